"""Sequential byte sources for the streaming reader: a buffer, a file by descriptor, a pipe.

Each keeps an absolute position (counted from where the model starts), reads ahead in
a bounded window, and never allocates more than it was actually given: a length prefix
that lies about a size costs only the bytes that really arrive. Positions and sizes are
Python ints, so nothing here caps at 2 or 4 GiB.
"""

from __future__ import annotations

import io
import os
from typing import IO, Any, Final

from wirecodec.protobuf import positional

__all__ = ["BufferInput", "FileInput", "Input", "StreamInput", "StreamClosedError"]

_WINDOW: Final = 1 << 16  # read-ahead for headers and small records
_CHUNK: Final = 1 << 24  # the most one pread of a big payload asks for at a time
# File objects may allocate what a read asks for before they know what they have.
_STREAM_READ: Final = 1 << 18


class StreamClosedError(ValueError):
    """A payload was read after its stream was closed."""


class Input:
    """A forward-only reader with look-ahead. ``size`` is None until the end is known."""

    pos: int
    size: int | None
    seekable: bool

    def peek(self, n: int) -> bytes:
        """Up to ``n`` bytes at the position, without consuming them (fewer only at the end)."""
        raise NotImplementedError

    def take(self, n: int) -> Any:
        """Consume and return up to ``n`` bytes (a bytes-like object; fewer only at the end)."""
        raise NotImplementedError

    def skip(self, n: int) -> int:
        """Consume up to ``n`` bytes without keeping them; returns how many there were."""
        raise NotImplementedError

    def at_end(self) -> bool:
        return not self.peek(1)

    def drain(self) -> int:
        """Consume everything left; returns the total size, now known."""
        while self.skip(_STREAM_READ) == _STREAM_READ:
            pass
        self.size = self.pos
        return self.pos

    def read_at(self, offset: int, length: int) -> Any:
        """``length`` bytes at ``offset`` (seekable inputs only)."""
        raise StreamClosedError("this input cannot go back to a payload")

    def close(self) -> None:
        """Release what this input holds (the file it opened, the buffer it views)."""


class _Sized(Input):
    """An input whose size is known from the start: skipping is moving the position."""

    def skip(self, n: int) -> int:
        assert self.size is not None
        moved = max(0, min(n, self.size - self.pos))
        self.pos += moved
        return moved


class BufferInput(_Sized):
    """Reads a bytes-like object in place: records and payloads are views, not copies."""

    def __init__(self, data: Any) -> None:
        view = memoryview(data)
        if view.ndim != 1 or view.itemsize != 1:
            view = view.cast("B")
        self._view: memoryview | None = view
        self.pos = 0
        self.size = view.nbytes
        self.seekable = True

    def _buffer(self) -> memoryview:
        if self._view is None:
            raise StreamClosedError("the stream was closed")
        return self._view

    def peek(self, n: int) -> bytes:
        return bytes(self._buffer()[self.pos : self.pos + n])

    def take(self, n: int) -> Any:
        piece = self._buffer()[self.pos : self.pos + n]
        self.pos += piece.nbytes
        return piece

    def read_at(self, offset: int, length: int) -> Any:
        return self._buffer()[offset : offset + length]

    def close(self) -> None:
        if self._view is not None:
            self._view.release()
            self._view = None


class _Positional(_Sized):
    """An input read by position (``_pread(length, offset)``): a window for headers, payloads
    skipped and read back by position later."""

    _window: Any
    _window_at: int

    def _pread(self, length: int, offset: int) -> Any:
        raise NotImplementedError

    def peek(self, n: int) -> bytes:
        inside = self.pos - self._window_at
        if inside >= 0 and inside + n <= len(self._window):
            return self._window[inside : inside + n]  # type: ignore[no-any-return]
        self._window = self._pread(max(n, _WINDOW), self.pos)
        self._window_at = self.pos
        return self._window[:n]  # type: ignore[no-any-return]

    def take(self, n: int) -> Any:
        data = self.peek(n) if n <= _WINDOW else self._pread(n, self.pos)
        self.pos += len(data)
        return data

    def read_at(self, offset: int, length: int) -> Any:
        return self._pread(length, offset)


class FileInput(_Positional):
    """A regular file read with ``pread`` from ``base``: payloads can be skipped and
    read back later without moving anybody's file position."""

    def __init__(self, fd: int, base: int, *, owned: bool, owner: IO[bytes] | None = None) -> None:
        self._fd: int | None = fd
        self._owned = owned
        self._owner = owner  # a caller's file: once they close it, its descriptor is not ours to read
        self._base = base
        self.size = max(0, os.fstat(fd).st_size - base)
        self.seekable = True
        self.pos = 0
        self._window = b""
        self._window_at = 0

    def _descriptor(self) -> int:
        if self._fd is None or (self._owner is not None and self._owner.closed):
            raise StreamClosedError("the stream was closed")
        return self._fd

    def _pread(self, length: int, offset: int) -> Any:
        """Exactly ``length`` bytes at ``offset`` unless the file ends first."""
        fd = self._descriptor()
        if length <= _WINDOW:
            return positional.pread(fd, length, self._base + offset)
        # One buffer, filled in place: no second copy of a big payload.
        buffer = bytearray(length)
        view = memoryview(buffer)
        got = 0
        while got < length:
            n = positional.preadinto(fd, view[got : got + _CHUNK], self._base + offset + got)
            if n <= 0:
                break
            got += n
        view.release()
        if got < length:
            del buffer[got:]
        return memoryview(buffer).toreadonly()

    def end_offset(self) -> int:
        """Where the model ends in the underlying file (to leave a file object there)."""
        return self._base + self.pos

    def close(self) -> None:
        if self._fd is not None and self._owned:
            os.close(self._fd)
        self._fd = None
        self._owner = None
        self._window = b""


class RangeInput(_Positional):
    """Any positional reader with ``size`` and ``read(start, end) -> bytes`` (a model by URL:
    :class:`~wirecodec.files.remote.source.RangeSource`): the payloads of tensors over
    1 MiB are skipped, not fetched, and read back later by range (smaller tensors are
    read whole, as from a file)."""

    def __init__(self, reader: Any) -> None:
        self._reader = reader
        self._size = int(reader.size)
        self.size = self._size
        self.seekable = True
        self.pos = 0
        self._window: Any = b""
        self._window_at = 0

    def _pread(self, length: int, offset: int) -> Any:
        if self._reader is None:
            raise StreamClosedError("the stream was closed")
        end = min(offset + length, self._size)
        return self._reader.read(offset, end) if end > offset else b""

    def close(self) -> None:
        self._reader = None
        self._window = b""


class StreamInput(Input):
    """Any binary file object read front to back: a pipe, a socket, ``gzip.open(...)``."""

    def __init__(self, file: IO[bytes]) -> None:
        self._file: IO[bytes] | None = file
        self.pos = 0
        self.size = None
        self.seekable = False
        self._pending = bytearray()  # read but not consumed, starting at self.pos

    def _read(self, n: int) -> bytes:
        if self._file is None:
            raise StreamClosedError("the stream was closed")
        data = self._file.read(n)
        if data is None:  # a non-blocking source with nothing ready
            raise io.BlockingIOError(0, "the stream is non-blocking and has no data ready")
        return data

    def _fill(self, n: int) -> None:
        while len(self._pending) < n:
            data = self._read(max(n - len(self._pending), _WINDOW))
            if not data:
                self.size = self.pos + len(self._pending)
                return
            self._pending += data

    def peek(self, n: int) -> bytes:
        self._fill(n)
        return bytes(self._pending[:n])

    def take(self, n: int) -> Any:
        if n <= _WINDOW:
            self._fill(n)
            data = bytes(self._pending[:n])
            del self._pending[:n]
            self.pos += len(data)
            return data
        # A big payload: grow only as bytes arrive, so a lying length costs nothing extra.
        out = bytearray(self._pending[:n])
        del self._pending[: len(out)]
        while len(out) < n:
            data = self._read(min(n - len(out), _STREAM_READ))
            if not data:
                self.size = self.pos + len(out)
                break
            out += data
        self.pos += len(out)
        return memoryview(out).toreadonly()

    def skip(self, n: int) -> int:
        moved = min(n, len(self._pending))
        del self._pending[:moved]
        while moved < n:
            data = self._read(min(n - moved, _STREAM_READ))
            if not data:
                self.size = self.pos + moved
                break
            moved += len(data)
        self.pos += moved
        return moved

    def close(self) -> None:
        self._file = None
        self._pending = bytearray()
