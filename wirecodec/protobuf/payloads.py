"""Writing big ``bytes`` payloads into files without holding them in memory.

A payload that is a view of a :class:`SourceMap` (a read-only map of a file that keeps
its descriptor) is copied file to file by the kernel (``os.copy_file_range``, else
``os.sendfile``, else ``pread``/``write`` in bounded chunks): its pages are never mapped
into this process. A view of any other read-only file map is written a window at a
time, and each window's pages are handed back (``MADV_DONTNEED``) once written, so the
process's resident size does not grow with the payload. Anything else is written as is.

Offsets are Python ints: nothing here stops at 2 or 4 GiB.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import io
import mmap
import os
import weakref
from collections.abc import Callable, Iterator
from typing import IO, Any, Final, TypeVar

from wirecodec.protobuf import positional
from wirecodec.protobuf.lazy import PendingBytes

__all__ = [
    "SourceMap",
    "address",
    "advance",
    "read_only_map",
    "release",
    "stand_in",
    "report_progress",
    "write_all",
    "write_payload",
]

_M = TypeVar("_M", bound=mmap.mmap)

WINDOW: Final = 1 << 23  # bytes written (or copied) per step
_PAGE: Final = mmap.PAGESIZE
# Errors meaning "this pair of files cannot be copied that way": try the next way.
_UNSUPPORTED: Final = {errno.EXDEV, errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EBADF, errno.ENOTSUP}

_progress: contextvars.ContextVar[Callable[[int], None] | None] = contextvars.ContextVar(
    "wirecodec_write_progress", default=None
)


@contextlib.contextmanager
def report_progress(callback: Callable[[int], None]) -> Iterator[None]:
    """Within the block, every write made by wirecodec's writers calls ``callback(nbytes)``."""
    token = _progress.set(callback)
    try:
        yield
    finally:
        _progress.reset(token)


def advance(nbytes: int) -> None:
    """Tell the progress callback (if any) that ``nbytes`` more were written."""
    callback = _progress.get()
    if callback is not None and nbytes:
        callback(nbytes)


class SourceMap(mmap.mmap):
    """A read-only map of a whole file that remembers the file, so payloads sliced from
    it can be copied file to file. The descriptor closes when the map is collected.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     _ = f.write(b"0123456789"); f.flush()
    ...     source = SourceMap.open(f.name)
    ...     bytes(memoryview(source)[2:5])
    b'234'
    """

    fd: int
    path: str

    @classmethod
    def read_only(cls, fd: int) -> SourceMap:
        """Map the whole file open as ``fd`` read-only; where the file cannot be mapped, an
        anonymous map holding a copy of its bytes."""
        return _read_only(cls, fd)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> SourceMap:
        """Map the file at ``path``."""
        return cls.adopt(os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0)), os.fspath(path))

    @classmethod
    def adopt(cls, fd: int, path: str) -> SourceMap:
        """Map the whole file open as ``fd``, which the map then owns (and closes, even on failure)."""
        try:
            mapped = cls.read_only(fd)
        except BaseException:
            os.close(fd)
            raise
        mapped.fd = fd
        mapped.path = path
        weakref.finalize(mapped, os.close, fd)
        return mapped


def read_only_map(fd: int) -> mmap.mmap:
    """A read-only map of the whole file open as ``fd``; see :meth:`SourceMap.read_only`."""
    return _read_only(mmap.mmap, fd)


def _read_only(kind: type[_M], fd: int) -> _M:
    try:
        return kind(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        # Some file systems (and WebAssembly's, for some files) cannot map a file: an
        # anonymous map holding its bytes instead, read once. Still a map, so everything
        # that tells maps from other buffers treats it alike; writes to the file after
        # this are not seen (a real shared map would see them).
        size = os.fstat(fd).st_size
        if size == 0:
            raise  # mmap's own error for an empty file: the callers say what it means
        copy = kind(-1, size)
        with memoryview(copy) as view:
            done = 0
            while done < size:
                got = positional.preadinto(fd, view[done:], done)
                if got <= 0:
                    raise OSError(errno.EIO, "the file shrank while it was read") from None
                done += got
        return copy


def address(buffer: Any) -> int:
    """The memory address of a buffer's first byte (read-only buffers included).

    Needs numpy (the one portable way to see the address of a read-only buffer); an
    :class:`ImportError` without it.
    """
    import numpy as np  # here: opening and decoding a model need no numpy (docs/performance.md)

    array = np.frombuffer(buffer, dtype=np.uint8)
    return int(array.__array_interface__["data"][0])


def write_all(file: IO[bytes], data: Any) -> None:
    """Write every byte of ``data`` (file objects may take less per call)."""
    view = memoryview(data).cast("B")
    while view.nbytes:
        written = file.write(view)
        if written is None:
            raise io.BlockingIOError(0, "the file is non-blocking and took nothing")
        view = view[written:]


def _mapped_file(chunk: Any) -> tuple[mmap.mmap, int] | None:
    """(map, offset of ``chunk`` in it) when ``chunk`` views a read-only file map."""
    if not isinstance(chunk, memoryview) or not isinstance(chunk.obj, mmap.mmap) or not chunk.nbytes:
        return None
    whole = chunk.obj
    with memoryview(whole) as full:
        if not full.readonly:  # a private or writable map: its pages may be all there is
            return None
    try:
        return whole, address(chunk) - address(whole)
    except ImportError:
        return None  # no numpy (docs/platforms.md): the payload is written through this process


def write_payload(file: IO[bytes], chunk: Any) -> None:
    """Write one payload to ``file`` without making its bytes resident here (see module).

    A payload still waiting to be fetched (:class:`~wirecodec.protobuf.lazy.PendingBytes`)
    is fetched now, piece by piece where its source reads ranges (a model by URL), and
    dropped once written: memory holds one piece (:data:`FETCH_PIECE`) at a time."""
    if isinstance(chunk, memoryview) and isinstance(chunk.obj, mmap.mmap) and chunk.obj in _STAND_INS:
        chunk = _STAND_INS[chunk.obj]  # the bytes the stand-in stood for, fetched now
    if isinstance(chunk, PendingBytes):
        if chunk.fetch_range is None:
            chunk = chunk.load()
        else:
            _write_fetched(file, chunk)
            return
    mapped = _mapped_file(chunk)
    if mapped is None:
        write_all(file, chunk)
        advance(memoryview(chunk).nbytes)
        return
    whole, offset = mapped
    length = chunk.nbytes
    if isinstance(whole, SourceMap) and _copy_between_files(whole.fd, offset, length, file):
        return
    for start in range(0, length, WINDOW):
        piece = chunk[start : start + WINDOW]
        write_all(file, piece)
        advance(piece.nbytes)
        _release(whole, offset + start, piece.nbytes)


# How much of a payload still to be fetched is fetched and written at a time: big enough
# that a request's round trip is a small part of its time, small beside a model's weights.
FETCH_PIECE: Final = 16 << 20


def _write_fetched(file: IO[bytes], record: PendingBytes) -> None:
    assert record.fetch_range is not None
    for start in range(0, record.nbytes, FETCH_PIECE):
        end = min(start + FETCH_PIECE, record.nbytes)
        piece = record.fetch_range(start, end)
        got = memoryview(piece).nbytes
        if got != end - start:
            raise OSError(f"fetched {got:,} bytes of a payload where {end - start:,} were asked")
        write_all(file, piece)
        advance(end - start)
        del piece  # dropped before the next is fetched


# Untouched anonymous maps standing in for bytes still to be fetched, and what they stand for.
_STAND_INS: weakref.WeakKeyDictionary[mmap.mmap, PendingBytes] = weakref.WeakKeyDictionary()


def stand_in(record: PendingBytes) -> memoryview:
    """A read-only view of ``record.nbytes`` bytes to encode in place of a field that waits to
    be fetched: sizes are planned from it, and :func:`write_payload` writes the record's
    fetched bytes where the encoder hands it over. Its pages are never touched (no memory)."""
    area = mmap.mmap(-1, max(record.nbytes, 1))
    _STAND_INS[area] = record
    return memoryview(area)[: record.nbytes].toreadonly()


def release(chunk: Any) -> None:
    """Hand back this process's pages of ``chunk`` if it views a read-only file map.

    For writers that read a mapped payload a window at a time (a zip entry, a hash):
    call it on each window once used, and the process's resident size stays at one
    window however big the payload. Anything else is left alone.
    """
    mapped = _mapped_file(chunk)
    if mapped is not None:
        _release(mapped[0], mapped[1], chunk.nbytes)


def _release(whole: mmap.mmap, offset: int, length: int) -> None:
    """Drop this process's mapping of the pages just written (they stay in the page
    cache; a later read maps them again). Only for read-only shared file maps."""
    first = offset - offset % _PAGE
    with contextlib.suppress(OSError, ValueError, AttributeError):
        whole.madvise(mmap.MADV_DONTNEED, first, offset + length - first)


def _copy_between_files(source_fd: int, offset: int, length: int, file: IO[bytes]) -> bool:
    """Copy ``length`` bytes at ``offset`` of ``source_fd`` to the end of what ``file``
    holds, in the kernel. False if ``file`` has no descriptor (nothing was written)."""
    try:
        file.flush()
        target = file.fileno()
    except (OSError, io.UnsupportedOperation, AttributeError, ValueError):
        return False
    done = 0
    for copier in (_copy_file_range, _sendfile):
        try:
            while done < length:
                moved = copier(source_fd, target, offset + done, min(length - done, WINDOW))
                if moved == 0:
                    break  # some file systems say "nothing" rather than "unsupported"
                done += moved
                advance(moved)
        except OSError as exc:
            if exc.errno not in _UNSUPPORTED:
                raise
            continue
        if done >= length:
            return True
        break
    # The portable way, a bounded window at a time (also finishes a copy begun above).
    while done < length:
        data = positional.pread(source_fd, min(length - done, WINDOW), offset + done)
        if not data:
            raise OSError(errno.EIO, "the source file ended before the payload did")
        write_all(file, data)
        done += len(data)
        advance(len(data))
    return True


def _copy_file_range(source: int, target: int, offset: int, count: int) -> int:
    if not hasattr(os, "copy_file_range"):
        raise OSError(errno.ENOSYS, "no copy_file_range")
    return os.copy_file_range(source, target, count, offset)


def _sendfile(source: int, target: int, offset: int, count: int) -> int:
    if not hasattr(os, "sendfile"):
        raise OSError(errno.ENOSYS, "no sendfile")
    return os.sendfile(target, source, offset, count)
