"""Read-only maps of model and data files, for ``load`` and external data.

A big file is mapped as a :class:`~wirecodec.protobuf.payloads.SourceMap`, which keeps a
descriptor of the file: saving a model whose tensors are views of it then copies their
bytes file to file in the kernel (``copy_file_range``) instead of faulting every page of
the map into this process to write it out again, which takes nearly twice as long
(docs/performance.md). A descriptor per file is cheap for the few big files a process
holds; small files, which a process may hold by the thousand, get a plain map and keep
no descriptor.
"""

from __future__ import annotations

import mmap
import os
import weakref
from dataclasses import dataclass
from typing import Any, Final

from wirecodec.protobuf.payloads import SourceMap, address, read_only_map

__all__ = ["KEEP_DESCRIPTOR_FROM", "FileOrigin", "file_of", "map_read_only", "remember_file"]

# Files of at least this many bytes keep a descriptor with their map.
KEEP_DESCRIPTOR_FROM: Final = 1 << 26


def map_read_only(fileno: int, size: int, name: str) -> mmap.mmap:
    """A read-only map of the whole open file ``fileno`` (``size`` bytes; ``name`` for messages).

    Where the file cannot be mapped, an anonymous map holding a copy of it
    (docs/platforms.md)."""
    if size < KEEP_DESCRIPTOR_FROM:
        return read_only_map(fileno)
    # A descriptor of our own: the caller's file object may be closed while views live on.
    return SourceMap.adopt(os.dup(fileno), name)


# -- which file a map shows -----------------------------------------------------------------------
# A tensor loaded from an external data file holds a view of that file's map and no longer
# says where its bytes came from (``load`` clears the reference, as onnx's does). The write-back
# (wirecodec.files.writeback) asks here, so a model saved where the file still resolves keeps
# pointing into it instead of copying its weights.


@dataclass(frozen=True)
class FileOrigin:
    """The data file a map shows: its real path, and what identified it when it was mapped."""

    path: str
    device: int
    inode: int
    size: int
    mtime_ns: int

    def unchanged(self) -> bool:
        """Whether the file at :attr:`path` is still the one mapped (same inode, size and
        modification time): only then does a reference to it mean what the view holds."""
        try:
            info = os.stat(self.path)
        except OSError:
            return False
        return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns) == (
            self.device,
            self.inode,
            self.size,
            self.mtime_ns,
        )


_ORIGINS: Final[weakref.WeakKeyDictionary[mmap.mmap, FileOrigin]] = weakref.WeakKeyDictionary()


def remember_file(mapped: mmap.mmap, path: str | os.PathLike[str], info: os.stat_result) -> None:
    """Note that ``mapped`` shows the data file at ``path`` (``info``: its ``fstat`` when mapped)."""
    _ORIGINS[mapped] = FileOrigin(
        os.path.realpath(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns
    )


def file_of(payload: Any) -> tuple[FileOrigin, int] | None:
    """(the data file, the offset in it) of a payload that is a non-empty view of a data
    file's map noted by :func:`remember_file`; None for anything else, or without numpy
    (the one portable way to see where a read-only view starts)."""
    if not isinstance(payload, memoryview) or not payload.nbytes or not payload.c_contiguous:
        return None
    mapped = payload.obj
    if not isinstance(mapped, mmap.mmap):
        return None
    origin = _ORIGINS.get(mapped)
    if origin is None:
        return None
    try:
        offset = address(payload) - address(mapped)
    except ImportError:
        return None
    if not 0 <= offset <= origin.size - payload.nbytes:
        return None
    return origin, offset
