"""A loopback HTTP server that guards its files as an object store does: a ``GET`` without
the expected ``Authorization`` header is answered 401, one without the expected query
string (a presigned URL's signature) 403. It serves ``Range`` requests (206) and counts
what it was asked. Standard library only (``http.server`` in a thread), bound to 127.0.0.1,
every connection with a timeout, the thread stopped when the fixture ends."""

from __future__ import annotations

import http.server
import pathlib
import re
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

TOKEN = "Bearer s3cr3t"
SIGNATURE = "X-Amz-Signature=0123abcd&X-Amz-Expires=60"
_RANGE = re.compile(r"bytes=(\d+)-(\d+)$")


@dataclass
class Seen:
    """What the server was asked: each request's path, query, Range, and answer's status."""

    requests: list[tuple[str, str, str, int]] = field(default_factory=list)

    def statuses(self) -> list[int]:
        return [status for *_, status in self.requests]


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # seconds a connection may sit idle: a stuck client never holds the thread
    server: _GuardedServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        parts = urllib.parse.urlsplit(self.path)
        asked = self.headers.get("Range", "")
        status, body, headers = self._answer(parts.path, parts.query, asked)
        # Counted before the answer goes out: the client may look as soon as it has it.
        self.server.seen.requests.append((parts.path, parts.query, asked, status))
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, path: str, query: str, asked: str) -> tuple[int, bytes, dict[str, str]]:
        if self.headers.get("Authorization") != TOKEN:
            return 401, b"no credentials", {"WWW-Authenticate": "Bearer"}
        if query != SIGNATURE:
            return 403, b"signature does not match", {}
        file = self.server.root / path.lstrip("/")
        if ".." in path or not file.is_file():
            return 404, b"", {}
        data = file.read_bytes()
        match = _RANGE.match(asked)
        if not match:
            return 200, data, {}
        start, last = int(match.group(1)), min(int(match.group(2)), len(data) - 1)
        return 206, data[start : last + 1], {"Content-Range": f"bytes {start}-{last}/{len(data)}"}


class _GuardedServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: pathlib.Path) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.root = root
        self.seen = Seen()


@dataclass
class GuardedServer:
    """Files in ``root``; ``url(name)`` is the presigned URL, ``url(name, signed=False)`` without it."""

    root: pathlib.Path
    base: str
    server: _GuardedServer

    def url(self, name: str, *, signed: bool = True) -> str:
        return self.base + name + ("?" + SIGNATURE if signed else "")

    def forget(self) -> Seen:
        """Start counting afresh; returns the record that counts from now."""
        self.server.seen = Seen()
        return self.server.seen


@pytest.fixture(scope="module")
def guarded_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GuardedServer]:
    root = tmp_path_factory.mktemp("guarded")
    server = _GuardedServer(root)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield GuardedServer(root, f"http://127.0.0.1:{server.server_address[1]}/", server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
