"""The buffers :func:`~wirecodec.files.zip.container.load_zip` reads archives from, and what they hold.

A path or a regular file is mapped read-only (``lazy=False``: copied into anonymous
memory); bytes are used as they are; a pipe (``-``) or a URL is first copied, a piece at a
time, to an anonymous temporary file that is then mapped (an archive's directory sits at
its end, so it cannot be read as it streams by, and is never held whole in memory). Each
map is remembered, weakly, with the file it holds, so
:func:`~wirecodec.files.zip.container.replace_model` can recognise tensors whose
``raw_data`` is a view of the archive it rewrites.
"""

from __future__ import annotations

import mmap
import os
import sys
import weakref
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Final

from wirecodec.errors import ContainerError
from wirecodec.files.base.source import Source, classify, is_regular_file, open_source_file
from wirecodec.files.base.spool import spool
from wirecodec.protobuf.payloads import read_only_map

if TYPE_CHECKING:
    from wirecodec.files.remote.source import RemoteOptions

__all__ = ["ArchiveFile", "archive_file_of", "open_buffer"]



@dataclass(frozen=True)
class ArchiveFile:
    """The file a buffer made by ``load_zip`` holds. ``mapped``: a map of the file,
    which pins its inode (so the number names that file while any view lives);
    otherwise a copy, whose bytes the file may no longer hold."""

    device: int
    inode: int
    mapped: bool


# The buffers load_zip made and the file each one holds: lets replace_model recognise
# tensors that are views of the very archive it rewrites.
_ARCHIVE_MAPS: weakref.WeakKeyDictionary[mmap.mmap, ArchiveFile] = weakref.WeakKeyDictionary()


def _map(file: IO[bytes], lazy: bool) -> memoryview:
    """A read-only view of the whole file: a map of it, or (not lazy) a copy in memory."""
    info = os.fstat(file.fileno())
    if info.st_size == 0:
        raise ContainerError("the file is empty: a zip archive has at least 22 bytes")
    if lazy:
        mapped = read_only_map(file.fileno())  # a copy where maps fail
    else:
        # Anonymous memory rather than bytes so replace_model can still recognise the views.
        mapped = mmap.mmap(-1, info.st_size)
        file.seek(0)
        if file.readinto(mapped) != info.st_size:  # type: ignore[attr-defined]
            raise ContainerError("the file changed size while it was read")
    _ARCHIVE_MAPS[mapped] = ArchiveFile(info.st_dev, info.st_ino, lazy)
    return memoryview(mapped).toreadonly()


# A pipe is copied to its temporary file a MiB at a time (the memory the copy costs); a URL
# 4 MiB at a time, each piece one range request.
_PIPE_PIECE: Final = 1 << 20
_URL_PIECE: Final = 1 << 22


def open_buffer(source: Source, lazy: bool, remote: RemoteOptions | None = None) -> memoryview:
    """The whole archive as a read-only byte view: mapped (or copied) from a file, or
    ``source`` itself; a pipe or a URL (``remote``: its options) spooled to a file first."""
    kind = classify(source)
    if kind in ("stdin", "url"):
        with _spooled(str(source), remote) as spool:
            return _map(spool, lazy)  # the map outlives the file object
    if kind == "path":
        with open_source_file(source) as file:  # type: ignore[arg-type]
            return _map(file, lazy)
    if kind == "buffer":
        view = memoryview(source)  # type: ignore[arg-type]
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view.toreadonly()
    if kind == "file":
        if is_regular_file(source):
            return _map(source, lazy)  # type: ignore[arg-type]
        return memoryview(source.read()).toreadonly()  # type: ignore[union-attr]
    raise TypeError(f"load_zip needs a path, '-', a URL, a binary file or bytes, got {type(source).__name__}")


def _spooled(source: str, remote: RemoteOptions | None) -> IO[bytes]:
    """``-`` (standard input) or a URL copied to an anonymous temporary file, rewound."""
    if classify(source) == "stdin":
        return spool(sys.stdin.buffer.read, _PIPE_PIECE)
    from wirecodec.files.remote.clients import open_source  # only for a URL
    from wirecodec.files.remote.source import RemoteOptions

    file = open_source(source, remote or RemoteOptions())
    position = 0

    def read(size: int) -> bytes:
        nonlocal position
        data = file.read(position, min(position + size, file.size))
        position += len(data)
        return data

    try:
        return spool(read, _URL_PIECE)
    finally:
        file.close()


def archive_file_of(data: Any) -> ArchiveFile | None:
    """The archive file a ``raw_data`` view made by ``load_zip`` comes from, else None."""
    owner = data.obj if isinstance(data, memoryview) else None
    return _ARCHIVE_MAPS.get(owner) if isinstance(owner, mmap.mmap) else None
