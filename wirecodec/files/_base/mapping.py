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
from typing import Final

from wirecodec.protobuf.payloads import SourceMap, read_only_map

__all__ = ["KEEP_DESCRIPTOR_FROM", "map_read_only"]

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
