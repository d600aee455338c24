"""Copying a stream that cannot seek (a pipe, an HTTP body) to an anonymous temporary file.

Readers that need to seek (a zip's directory sits at its end) or to serve ranges later (a
server without range requests) get the stream's bytes in a temporary file, copied a
piece at a time so the stream is never held whole in memory. The file has no name (it
is gone once closed) and is closed on any error, Ctrl-C included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import BinaryIO, Final

__all__ = ["PIECE", "spool"]

PIECE: Final = 1 << 20  # bytes copied at a time: the memory a spool costs


def spool(read: Callable[[int], bytes], piece: int = PIECE) -> BinaryIO:
    """Call ``read(piece)`` until it returns nothing, writing each piece to an anonymous
    temporary file; return that file, flushed and rewound (its size: ``seek(0, 2)``)."""
    import tempfile  # only here: it imports shutil and random

    file = tempfile.TemporaryFile()  # noqa: SIM115 (handed on, closed on error)
    try:
        while data := read(piece):
            file.write(data)
        file.flush()
        file.seek(0)
    except BaseException:
        file.close()
        raise
    return file
