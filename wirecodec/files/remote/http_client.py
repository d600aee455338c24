"""A file over HTTP(S), read with ``Range`` requests: the standard library only.

One persistent connection per file (``http.client``: ``urllib.request`` would open a new
one for every range). Each answer is checked before its bytes are used:

- ``206 Partial Content`` with a ``Content-Range`` naming exactly the range asked for,
  and a body of exactly that length;
- ``200 OK`` to a ranged request means the server ignores ``Range``: the first request
  (which also learns the size) refuses it with a :class:`~wirecodec.RemoteError`, unless
  the caller allowed a full download (then the body is the whole file);
- ``416``, ``404`` and the like are errors at once; ``408``, ``429``, ``500``, ``502``,
  ``503``, ``504``, a reset or timed-out connection and a truncated body are tried again
  (``RemoteOptions.retries``, waiting ``backoff`` seconds, doubling);
- redirects (``301``, ``302``, ``303``, ``307``, ``308``) are followed, at most five.

Every error names the URL and the byte range.
"""

from __future__ import annotations

import http.client
import re
import time
import urllib.parse
import weakref
from typing import BinaryIO, Final

from wirecodec.errors import RemoteError
from wirecodec.files.base.spool import spool
from wirecodec.files.remote.source import RangeSource, RemoteOptions

__all__ = ["HttpSource", "first_bytes"]

_TRANSIENT: Final = frozenset({408, 429, 500, 502, 503, 504})
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS: Final = 5
_CONTENT_RANGE: Final = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)\s*$")
_UNSATISFIED: Final = re.compile(r"bytes\s+\*/(\d+)\s*$")
_ERROR_BODY: Final = 1 << 16  # an error page is read this far, then the connection dropped
_SPOOL_CHUNK: Final = 1 << 20  # a full download is copied to its temporary file this much at a time


class _RetryError(Exception):
    """A transient failure: worth asking again."""


class _Answer:
    """What one ranged GET gave: its status and, for a 206 or an allowed 200, the body."""

    def __init__(
        self,
        status: int,
        body: bytes,
        content_range: str | None,
        spool: BinaryIO | None = None,
        kind: str | None = None,
    ) -> None:
        self.status = status
        self.body = body
        self.content_range = content_range
        self.spool = spool  # an allowed full download, on disk (``body`` is then empty)
        self.kind = kind  # the Content-Type, for a look at the first bytes (first_bytes)


class HttpSource(RangeSource):
    """An ``http://`` or ``https://`` file (see the module doc); learns its size at once."""

    def __init__(self, url: str, options: RemoteOptions, *, probe: bool = True) -> None:
        super().__init__(options)
        self.url = url
        self._target = urllib.parse.urlsplit(url)
        if not self._target.hostname:
            raise RemoteError("no host in the URL", url)
        # The connection lives in a box the finalizer holds: a source dropped with its
        # model closes its socket (no ResourceWarning), and the box does not keep it alive.
        self._box: list[http.client.HTTPConnection] = []
        weakref.finalize(self, _close_all, self._box)
        self.size = self._probe() if probe else 0  # 0: not asked (first_bytes only)

    # -- the first request: the size, and whether Range is honoured ---------------------------

    def _probe(self) -> int:
        end = self.options.block
        answer = self._get(0, end, probe=True)
        if answer.status == 200:
            # The whole file came (the caller allowed it), spooled to a temporary file:
            # every read is served from it.
            self.requests += 1
            if answer.spool is None:  # an empty file
                self.whole = answer.body
                return 0
            self.spool = answer.spool
            weakref.finalize(self, answer.spool.close)
            whole = answer.spool.seek(0, 2)
            self.received += whole
            return whole
        if answer.status == 416:
            empty = _UNSATISFIED.match(answer.content_range or "")
            if empty is not None and int(empty.group(1)) == 0:
                return 0  # an empty file: nothing to ask for
            raise RemoteError("the server answered 416 Range Not Satisfiable", self.url, 0, end)
        _, _, size = self._checked_range(answer, 0, end, probe=True)
        if size is None:  # "bytes 0-N/*": nothing else says how far the file goes
            raise RemoteError(
                "the server does not say the file's size (Content-Range total '*')", self.url, 0, end
            )
        self.requests += 1
        self.received += len(answer.body)
        self._blocks[0] = answer.body[: self.options.block]
        return size

    def _checked_range(
        self, answer: _Answer, start: int, end: int, *, probe: bool
    ) -> tuple[int, int, int | None]:
        found = _CONTENT_RANGE.match(answer.content_range or "")
        if found is None:
            raise RemoteError(
                f"a 206 answer without a valid Content-Range (got {answer.content_range!r})",
                self.url,
                start,
                end,
            )
        first, last = int(found.group(1)), int(found.group(2))
        total = None if found.group(3) == "*" else int(found.group(3))
        # The probe may get less than it asked for (a file shorter than a block).
        expected_last = end - 1 if not probe or total is None else min(end, total) - 1
        if first != start or last != expected_last or (total is not None and last >= total):
            raise RemoteError(
                f"the server sent bytes {first}-{last} (Content-Range {answer.content_range!r}), "
                "not the range asked for",
                self.url,
                start,
                end,
            )
        if len(answer.body) != last - first + 1:
            raise RemoteError(
                f"a body of {len(answer.body)} bytes for a Content-Range of {last - first + 1}",
                self.url,
                start,
                end,
            )
        return first, last, total

    # -- every other request ------------------------------------------------------------------

    def _fetch(self, start: int, end: int) -> bytes:
        answer = self._get(start, end, probe=False)
        if answer.status == 200:
            raise RemoteError("the server stopped honouring Range (answered 200 OK)", self.url, start, end)
        if answer.status == 416:
            raise RemoteError(
                f"the server answered 416 Range Not Satisfiable (the file had {self.size} bytes)",
                self.url,
                start,
                end,
            )
        self._checked_range(answer, start, end, probe=False)
        return answer.body

    def _get(self, start: int, end: int, *, probe: bool, head: int = 0) -> _Answer:
        """One ranged GET, tried again on transient failures (``head``: see :meth:`_once`)."""
        options = self.options
        last = ""
        for attempt in range(options.retries + 1):
            if attempt:
                time.sleep(options.backoff * 2 ** (attempt - 1))
            try:
                return self._once(start, end, probe=probe, head=head)
            except RemoteError:
                raise  # (an OSError too, but final)
            except _RetryError as exc:
                last = str(exc)
            except (OSError, http.client.HTTPException) as exc:  # resets, timeouts, truncation
                self._drop()
                last = _describe(exc)
        tries = options.retries + 1
        raise RemoteError(f"{last} ({tries} {'try' if tries == 1 else 'tries'})", self.url, start, end)

    def _once(self, start: int, end: int, *, probe: bool, head: int = 0) -> _Answer:
        """One GET of bytes ``start``-``end``; with ``head``, the first ``head`` bytes of any
        answer with a body (200 or 206) and its Content-Type, the rest left unread."""
        target = self._target
        for _ in range(_MAX_REDIRECTS + 1):
            connection = self._connect()
            path = target.path or "/"
            if target.query:
                path += "?" + target.query
            headers = {"Range": f"bytes={start}-{end - 1}", "Accept-Encoding": "identity"}
            headers.update(self.options.headers)
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            status = response.status
            if status in _REDIRECTS:
                location = response.getheader("Location")
                response.read(_ERROR_BODY)
                self._drop()
                if not location:
                    raise RemoteError(f"a {status} redirect without a Location", self.url, start, end)
                target = self._target = urllib.parse.urlsplit(urllib.parse.urljoin(target.geturl(), location))
                continue
            if head and status in (200, 206):
                body = response.read(head)
                kind = response.headers.get_content_type()
                self._drop()  # the rest of the body is not wanted
                return _Answer(status, body, response.getheader("Content-Range"), kind=kind)
            if status == 200 and probe and response.getheader("Content-Length") == "0":
                response.read()
                return _Answer(200, b"", None)  # an empty file: no range to honour
            if status == 200 and not (probe and self.options.allow_full_download):
                self._drop()  # the body is the whole file: not read
                if probe:
                    raise RemoteError(
                        "the server ignores Range requests (answered 200 OK with the whole file); "
                        "allow a full download to read it anyway "
                        "(RemoteOptions(allow_full_download=True), or --allow-full-download)",
                        self.url,
                        start,
                        end,
                    )
                return _Answer(status, b"", None)
            if status == 200:
                return _Answer(status, b"", None, _spooled(response))
            if status == 206:
                body = response.read()  # http.client raises IncompleteRead if it is cut short
                if response.will_close:
                    self._drop()
                return _Answer(status, body, response.getheader("Content-Range"))
            content_range = response.getheader("Content-Range")
            reason = response.reason
            response.read(_ERROR_BODY)
            self._drop()
            if status in _TRANSIENT:
                raise _RetryError(f"HTTP {status} {reason}")
            if status == 416:
                return _Answer(status, b"", content_range)
            raise RemoteError(f"HTTP {status} {reason}", self.url, start, end)
        raise RemoteError(f"more than {_MAX_REDIRECTS} redirects", self.url, start, end)

    def _connect(self) -> http.client.HTTPConnection:
        if not self._box:
            target = self._target
            make = http.client.HTTPSConnection if target.scheme == "https" else http.client.HTTPConnection
            if target.scheme not in ("http", "https"):
                raise RemoteError(f"a redirect to {target.scheme!r}, not HTTP", self.url)
            self._box.append(make(target.hostname or "", target.port, timeout=self.options.timeout))
        return self._box[0]

    def _drop(self) -> None:
        _close_all(self._box)

    def close(self) -> None:
        super().close()
        self._drop()


def first_bytes(url: str, options: RemoteOptions, size: int) -> tuple[str, bytes]:
    """The Content-Type and first ``size`` bytes of ``url``, whether the server honours
    ``Range`` or sends the whole file (only ``size`` bytes of it are read): a look at what a
    URL holds when it fails to open as a model. Failures are :class:`RemoteError`."""
    source = HttpSource(url, options, probe=False)
    try:
        answer = source._get(0, size, probe=True, head=size)
    finally:
        source.close()
    if answer.status not in (200, 206):
        raise RemoteError(f"HTTP {answer.status}", url, 0, size)
    return answer.kind or "", answer.body[:size]


def _spooled(response: http.client.HTTPResponse) -> BinaryIO:
    """The body of ``response`` copied to an anonymous temporary file, a chunk at a time
    (never all in memory); the file is gone once closed, also on an error or Ctrl-C."""
    file = spool(response.read, _SPOOL_CHUNK)
    expected = response.getheader("Content-Length")
    size = file.seek(0, 2)
    file.seek(0)
    if expected is not None and expected.isdigit() and size != int(expected):
        file.close()
        raise http.client.IncompleteRead(b"", int(expected) - size)
    return file


def _close_all(box: list[http.client.HTTPConnection]) -> None:
    while box:
        box.pop().close()


def _describe(exc: BaseException) -> str:
    if isinstance(exc, http.client.IncompleteRead):
        return f"the body was cut short ({len(exc.partial)} bytes, {exc.expected} more expected)"
    if isinstance(exc, TimeoutError):
        return "timed out"
    name = type(exc).__name__
    return f"{name}: {exc}" if str(exc) else name
