"""Positional reads on a file descriptor, on every platform.

``os.pread`` and ``os.preadv`` read at an offset without moving the descriptor's
position, so several readers can share one descriptor; ``os.posix_fadvise`` tells the
kernel how a file will be read. Windows has none of the three and WebAssembly
(Pyodide) lacks ``preadv``. Where one is missing, a read here seeks, reads and puts the
position back, all under one lock, so to every caller that goes through this module
the descriptor behaves as with ``pread`` (a caller that reads the descriptor directly,
at the same moment, from another thread is the one case this cannot cover). Advice is
a hint: where it is missing, nothing is done.

Each function looks the platform call up when called, not when this module is
imported, so tests can remove one (``del os.pread``) at any time.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Final

__all__ = ["advise_normal", "advise_random", "pread", "preadinto"]

# Every emulated positional read of this process, whatever the descriptor: seek and read
# must not interleave with another emulated read of the same descriptor, and a lock per
# descriptor number would outlive (and be shared by reuses of) the number.
_SEEK_LOCK: Final = threading.Lock()


def pread(fd: int, length: int, offset: int) -> bytes:
    """Up to ``length`` bytes of ``fd`` at ``offset`` (fewer only at the end of the file)."""
    native = getattr(os, "pread", None)
    if native is not None:
        data: bytes = native(fd, length, offset)
        return data
    with _SEEK_LOCK:
        before = os.lseek(fd, 0, os.SEEK_CUR)
        try:
            os.lseek(fd, offset, os.SEEK_SET)
            return os.read(fd, length)
        finally:
            os.lseek(fd, before, os.SEEK_SET)


def preadinto(fd: int, view: memoryview, offset: int) -> int:
    """Read into ``view`` from ``fd`` at ``offset``; the number of bytes read (0 at the end).

    With ``os.preadv`` the bytes land in ``view`` directly; without it they are read and
    copied once.
    """
    native = getattr(os, "preadv", None)
    if native is not None:
        got: int = native(fd, [view], offset)
        return got
    data = pread(fd, view.nbytes, offset)
    view[: len(data)] = data
    return len(data)


def advise_random(fd: int) -> None:
    """Hint that ``fd`` is about to be read at scattered offsets (no readahead)."""
    _advise(fd, "POSIX_FADV_RANDOM")


def advise_normal(fd: int) -> None:
    """Undo :func:`advise_random`."""
    _advise(fd, "POSIX_FADV_NORMAL")


def _advise(fd: int, name: str) -> None:
    advise = getattr(os, "posix_fadvise", None)
    advice = getattr(os, name, None)
    if advise is None or advice is None:
        return
    with contextlib.suppress(OSError):  # a hint some file systems refuse
        advise(fd, 0, 0, advice)
