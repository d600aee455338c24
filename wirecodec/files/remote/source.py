"""A remote file read by byte ranges: the options, the block cache, the counters.

:class:`RangeSource` is what the remote opener (wirecodec.files.remote.structure) reads a model and
its data files through. Its subclasses only fetch one exact range
(:mod:`wirecodec.files.remote.http_client` over HTTP with ``Range`` headers,
:mod:`wirecodec.files.remote.fsspec_client` through an ``fsspec`` file system); this module
decides what to fetch:

- a read of at least one block (a tensor's payload) fetches exactly its range;
- a smaller read (a header, a name) fetches the aligned blocks around it, kept in a
  bounded cache, so the structure walk's many small reads cost few requests;
- every fetch is counted (``requests``, ``received``), so callers can report what an
  operation cost.

Sources are shared by every tensor of a model, and tensors may be read from many
threads: a lock serialises the fetches of one source (one connection).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import BinaryIO, Final

from wirecodec.errors import RemoteError
from wirecodec.files.base.source import is_url

__all__ = ["RangeSource", "RemoteOptions", "is_url"]

SCHEME_END: Final = "://"


@dataclass(frozen=True)
class RemoteOptions:
    """How a remote model is read (:func:`wirecodec.load` and every verb take these).

    ``timeout``: seconds a connection or a read may wait. ``retries``: how many times a
    transient failure (a reset or timed-out connection, a truncated body, HTTP 408, 429,
    500, 502, 503, 504) is tried again, waiting ``backoff`` seconds before the first
    retry and twice as long before each next. ``block``: the read-ahead of small reads;
    ``cache_blocks``: how many such blocks are kept (the cache holds at most
    ``block * cache_blocks`` bytes). ``allow_full_download``: a server that ignores
    ``Range`` (answers 200 with the whole file) is refused unless this is true; then the
    whole file is downloaded. ``headers``: extra request headers (``Authorization``).
    ``whole_below``: a model file of at most this many bytes is fetched whole in one
    request after the first (default 0: never): for a small file, one request costs less
    than a walk of its headers by ranges; its tensors then cost no further request.
    """

    timeout: float = 30.0
    retries: int = 3
    backoff: float = 0.25
    block: int = 1 << 15
    cache_blocks: int = 64
    allow_full_download: bool = False
    headers: tuple[tuple[str, str], ...] = field(default=())
    whole_below: int = 0

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ValueError(f"timeout must be positive, got {self.timeout}")
        if self.retries < 0 or self.backoff < 0:
            raise ValueError(f"retries and backoff must not be negative, got {self.retries}, {self.backoff}")
        if self.block < 1 or self.cache_blocks < 1:
            raise ValueError(
                f"block and cache_blocks must be positive, got {self.block}, {self.cache_blocks}"
            )


class RangeSource:
    """A remote file of ``size`` bytes, read by ranges (see the module doc).

    Subclasses set ``url`` and ``size`` and implement :meth:`_fetch`; ``whole`` holds the
    file when the server sent all of it (a download the caller allowed).
    """

    url: str
    size: int

    def __init__(self, options: RemoteOptions) -> None:
        self.options = options
        self.whole: bytes | None = None
        # A whole file the server sent (a download the caller allowed), spooled to an
        # anonymous temporary file (gone when closed, or when the process dies): the
        # download costs disk, not memory.
        self.spool: BinaryIO | None = None
        self.requests = 0  # fetches made (each one request, retries counted apart)
        self.received = 0  # body bytes received
        self._blocks: OrderedDict[int, bytes] = OrderedDict()
        self._lock = threading.Lock()

    def _fetch(self, start: int, end: int) -> bytes:
        """Exactly the bytes ``start`` to ``end`` (exclusive), or a :class:`RemoteError`."""
        raise NotImplementedError

    def _counted(self, start: int, end: int) -> bytes:
        data = self._fetch(start, end)
        if len(data) != end - start:
            raise RemoteError(f"got {len(data)} bytes, asked for {end - start}", self.url, start, end)
        self.requests += 1
        self.received += len(data)
        return data

    def read(self, start: int, end: int) -> bytes:
        """The bytes ``start`` to ``end`` (exclusive, clipped to the file's size)."""
        end = min(end, self.size)
        if start >= end:
            return b""
        if self.whole is not None:
            return self.whole[start:end]
        with self._lock:
            if self.spool is not None:
                self.spool.seek(start)
                return self.spool.read(end - start)
            if end - start >= self.options.block:
                return self._counted(start, end)
            return self._from_blocks(start, end)

    def read_some(self, start: int, most: int) -> bytes:
        """At least one byte at ``start`` and at most ``most`` (none past the end): what is
        at hand in one block, for a reader that only needs what comes next."""
        block = self.options.block
        return self.read(start, min(start + most, (start // block + 1) * block))

    def _from_blocks(self, start: int, end: int) -> bytes:
        block, blocks = self.options.block, self._blocks
        first, last = start // block, (end - 1) // block
        missing = [n for n in range(first, last + 1) if n not in blocks]
        if missing:
            # One request for the run of missing blocks (a read spans at most two).
            low, high = missing[0] * block, min((missing[-1] + 1) * block, self.size)
            data = self._counted(low, high)
            for n in range(missing[0], missing[-1] + 1):
                blocks[n] = data[(n - missing[0]) * block : (n - missing[0] + 1) * block]
        pieces = []
        for n in range(first, last + 1):
            blocks.move_to_end(n)
            pieces.append(blocks[n])
        while len(blocks) > max(self.options.cache_blocks, last - first + 1):
            blocks.popitem(last=False)
        joined = b"".join(pieces)
        return joined[start - first * block : end - first * block]

    def close(self) -> None:
        """Drop the cache and any connection (a later read opens a new one)."""
        self._blocks.clear()
