"""The one source switch: what a model source is, decided once, and the one way a source is
opened by name.

A source is a path, ``-`` (standard input), bytes or another buffer, a binary file object,
or a URL (``http://``, ``https://``; other schemes through fsspec). :func:`classify` tells
which; every front door (the opener, ``load``, ``load_tensor``, ``stream``, ``load_zip``,
``convert``, ``check`` and the CLI through them) asks it, so a new kind of source is
added here once. :func:`open_source_file` is the one place a source is opened by name,
and :func:`head_of` the one look at a source's first bytes (a zip's signature, say).

>>> classify("-"), classify(b"..."), classify("m.onnx"), classify("https://host/m.onnx")
('stdin', 'buffer', 'path', 'url')
"""

from __future__ import annotations

import mmap
import os
import pathlib
import stat
from typing import IO, Any, Final, Literal

__all__ = [
    "STDIN",
    "Source",
    "SourceKind",
    "classify",
    "head_of",
    "is_regular_file",
    "is_zip",
    "is_url",
    "is_zip_head",
    "open_source_file",
]

Source = str | os.PathLike[str] | IO[bytes] | bytes | bytearray | memoryview | mmap.mmap
"""Anything a model can come from (a URL is a ``str``)."""

SourceKind = Literal["url", "stdin", "path", "buffer", "file"]

STDIN: Final = "-"
"""The source that means "read the model from standard input"."""

_BUFFERS: Final = (bytes, bytearray, memoryview, mmap.mmap)

_ZIP_SIGNATURES: Final = (b"PK\x03\x04", b"PK\x05\x06")  # a first entry, or an empty archive's end


def is_zip_head(head: bytes) -> bool:
    """Whether the first four bytes of a source are a zip archive's (a container, .onnxz)."""
    return bytes(head[:4]) in _ZIP_SIGNATURES


def is_zip(source: Source) -> bool:
    """Whether ``source`` (a path, a binary file or bytes) holds a zip archive, by its first bytes.

    A file object is read at its current position and put back; one that cannot seek
    is not examined (False). Here, not in the zip layer, so that opening a model that is
    not a container never imports that layer.
    """
    first = head_of(source, 4)
    return is_zip_head(first)


def is_url(source: object) -> bool:
    """Whether ``source`` is a string naming a remote file (``https://...``, ``s3://...``).

    >>> is_url("https://example.com/model.onnx"), is_url("model.onnx"), is_url("C:\\\\m.onnx")
    (True, False, False)
    """
    if not isinstance(source, str):
        return False
    scheme, sep, _ = source.partition("://")
    # A scheme of one letter would be a Windows drive.
    return (
        bool(sep) and len(scheme) > 1 and scheme.replace("+", "").replace("-", "").replace(".", "").isalnum()
    )


def classify(source: object) -> SourceKind:
    """Which kind of source ``source`` is; a ``TypeError`` names what it got otherwise.

    A one-letter scheme is a Windows drive (``C://x``), not a URL; ``-`` is standard input
    only as a string (a path named ``-`` is ``pathlib.Path("-")``)."""
    if isinstance(source, str):
        if source == STDIN:
            return "stdin"
        return "url" if is_url(source) else "path"
    if isinstance(source, os.PathLike):
        return "path"
    if isinstance(source, _BUFFERS):
        return "buffer"
    if hasattr(source, "read"):
        return "file"
    raise TypeError(
        f"a model comes from a path, '-', a URL, a binary file or bytes, not {type(source).__name__}"
    )


def open_source_file(path: str | os.PathLike[str]) -> IO[bytes]:
    """The file at ``path`` opened for reading (binary); the ``OSError`` names the path."""
    return pathlib.Path(path).open("rb")


def is_regular_file(file: Any) -> bool:
    """Whether a file object is a regular file (mappable, seekable), not a pipe or a device."""
    try:
        return stat.S_ISREG(os.fstat(file.fileno()).st_mode)
    except (OSError, AttributeError, ValueError):
        return False


def head_of(source: Source, size: int) -> bytes:
    """The first ``size`` bytes of a source without consuming them (a file object is put back
    where it was; one that cannot seek gives nothing: it cannot be looked at twice)."""
    kind = classify(source)
    if kind == "path":
        with open_source_file(source) as file:  # type: ignore[arg-type]
            return file.read(size)
    if kind == "buffer":
        return bytes(memoryview(source).cast("B")[:size])  # type: ignore[arg-type]
    if kind == "file":
        stream: Any = source
        try:
            if not stream.seekable():
                return b""
            position = stream.tell()
            head: bytes = stream.read(size)
            stream.seek(position)
        except (OSError, ValueError, AttributeError):
            return b""
        return head
    return b""
