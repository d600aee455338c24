"""HTTP servers on the loopback for the remote tests: a real nginx, and a bad one.

``nginx_server`` runs Debian's nginx (``.ci/run`` installs it) as the current user on a
free port of 127.0.0.1, serving a temporary directory, with its config, pid, logs and
temp paths inside that directory. Its access log records, for every request, the
status, ``$bytes_sent`` (headers and body: what really crossed the socket),
``$body_bytes_sent`` and the ``Range`` asked for: the tests count transfers from it, not
from what the client says it received. Tests that need it skip, with the reason, where
nginx is absent.

``bad_server`` is a small ``http.server`` whose misbehaviour a test chooses
(:class:`Behaviour`): ignore ``Range`` (200 with the whole file), cut the body short,
send a wrong ``Content-Range`` (both ends shifted, or only the start with a body to
match it, or one without the file's size), answer 416, reset
the connection mid-body, answer 503 some times before serving, or stall past the
client's timeout. ``/moved/NAME`` always redirects to ``/NAME``. Each behaviour starts
after ``spare`` well-served requests, so a model can be opened first and then fail
while a tensor is read.
"""

from __future__ import annotations

import ctypes
import getpass
import http.server
import os
import pathlib
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
_LOG_LINE = re.compile(r'^(\d+) (\d+) (\d+) "([^"]*)" (\S+)$')


@dataclass(frozen=True)
class Request:
    """One line of nginx's access log."""

    status: int
    bytes_sent: int  # headers and body
    body_bytes_sent: int
    range: str  # the Range header, "-" when none
    uri: str


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


_CONFIG = """
daemon off;
master_process on;
worker_processes 1;
{user}
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 64; }}
http {{
    log_format counted '$status $bytes_sent $body_bytes_sent "$http_range" $request_uri';
    access_log {work}/access.log counted;
    client_body_temp_path {work}/client_body;
    proxy_temp_path {work}/proxy;
    fastcgi_temp_path {work}/fastcgi;
    uwsgi_temp_path {work}/uwsgi;
    scgi_temp_path {work}/scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        location / {{ }}
    }}
}}
"""


def _die_with_parent() -> None:
    """In the child: be sent SIGTERM when the test process dies, even killed (Linux), so a
    test run stopped by a timeout leaves no server behind."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # elsewhere: stop() still ends it


class Nginx:
    """A running nginx serving ``root`` at ``base`` (``http://127.0.0.1:PORT/``)."""

    def __init__(self, work: pathlib.Path) -> None:
        self.work = work
        self.root = work / "www"
        self.root.mkdir()
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}/"
        self.log = work / "access.log"
        # Workers of a root master switch to "nobody", who cannot read a private temp dir.
        user = f"user {getpass.getuser()};" if os.geteuid() == 0 else ""
        config = work / "nginx.conf"
        config.write_text(_CONFIG.format(user=user, work=work, port=self.port, root=self.root))
        self.process = subprocess.Popen(
            [NGINX, "-c", str(config), "-p", str(work), "-e", str(work / "error.log")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent,
        )
        self._wait_until_listening()

    def _wait_until_listening(self) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"nginx exited: {err}{(self.work / 'error.log').read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("nginx did not start listening within 10 s")

    def url(self, name: str) -> str:
        return self.base + name

    def requests(self, at_least: int = 0) -> list[Request]:
        """Every request logged so far (waiting up to 2 s for ``at_least`` of them: nginx
        writes a line once the response is sent, which may be after the client read it)."""
        deadline = time.monotonic() + 2
        while True:
            lines = self.log.read_text().splitlines() if self.log.exists() else []
            if len(lines) >= at_least or time.monotonic() > deadline:
                break
            time.sleep(0.01)
        found = []
        for line in lines:
            match = _LOG_LINE.match(line)
            assert match is not None, f"unexpected access log line {line!r}"
            status, sent, body, asked, uri = match.groups()
            found.append(Request(int(status), int(sent), int(body), asked, uri))
        return found

    def forget(self) -> None:
        """Start counting afresh (the log is truncated; nginx keeps appending to it)."""
        with self.log.open("r+") as log:
            log.truncate(0)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()


@pytest.fixture(scope="module")
def nginx_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Nginx]:
    """A real nginx on the loopback for this test module (skips where nginx is absent)."""
    if not os.access(NGINX, os.X_OK):
        pytest.skip(f"nginx is not installed ({NGINX}); .ci/run installs Debian's nginx")
    server = Nginx(tmp_path_factory.mktemp("nginx"))
    try:
        yield server
    finally:
        server.stop()


# -- the bad server ------------------------------------------------------------------------------

BEHAVIOURS = (
    "ignore-range",
    "truncate",
    "wrong-range",
    "late-start",
    "no-total",
    "416",
    "reset",
    "503",
    "stall",
)


@dataclass
class Behaviour:
    """What the bad server does: ``kind`` (one of BEHAVIOURS, or None to serve well) to
    every request after the first ``spare``; ``times`` limits how often (None: always)."""

    kind: str | None = None
    spare: int = 0
    times: int | None = None
    stall: float = 2.0
    seen: int = 0
    misbehaved: int = 0
    ranges: list[str] = field(default_factory=list)


_RANGE = re.compile(r"bytes=(\d+)-(\d+)$")


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _BadServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet

    def do_GET(self) -> None:
        if self.path.startswith("/moved/"):  # a redirect, as object stores and CDNs send
            self._send(302, b"", {"Location": "/" + self.path.removeprefix("/moved/")})
            return
        path = self.server.root / self.path.lstrip("/")
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        behaviour = self.server.behaviour
        asked = self.headers.get("Range", "")
        behaviour.ranges.append(asked)
        behaviour.seen += 1
        match = _RANGE.match(asked)
        start, last = (int(match.group(1)), int(match.group(2))) if match else (0, len(data) - 1)
        last = min(last, len(data) - 1)
        kind = behaviour.kind
        if behaviour.seen <= behaviour.spare or (
            behaviour.times is not None and behaviour.misbehaved >= behaviour.times
        ):
            kind = None
        if kind is not None:
            behaviour.misbehaved += 1
        if kind == "ignore-range" or not match:
            self._send(200, data, {})
            return
        if kind == "416":
            self._send(416, b"", {"Content-Range": f"bytes */{len(data)}"})
            return
        if kind == "503":
            self._send(503, b"busy", {})
            return
        if kind == "stall":
            time.sleep(behaviour.stall)
        if kind == "late-start":  # one byte late, but the body is what the header claims
            start += 1
        body = data[start : last + 1]
        shown = {
            "wrong-range": f"bytes {start + 1}-{last + 1}/{len(data)}",
            "no-total": f"bytes {start}-{last}/*",
        }.get(kind or "")
        headers = {"Content-Range": shown or f"bytes {start}-{last}/{len(data)}"}
        if kind == "truncate":
            self._send(206, body, headers, cut=len(body) // 2)
        elif kind == "reset":
            self._send(206, body, headers, cut=len(body) // 2, reset=True)
        else:
            self._send(206, body, headers)

    def _send(
        self, status: int, body: bytes, headers: dict[str, str], cut: int | None = None, reset: bool = False
    ) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        if cut is not None:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body if cut is None else body[:cut])
        self.wfile.flush()
        if cut is not None:
            if reset:  # an RST instead of a FIN: the client sees ECONNRESET
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True


class _BadServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: pathlib.Path) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.root = root
        self.behaviour = Behaviour()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gives up on a bad answer (it should) closes the connection under
        # the handler's feet: expected here, so not printed. Anything else is a bug.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@dataclass
class BadServer:
    """The bad server: files in ``root``, served at ``base``; set ``behave(...)`` per test."""

    root: pathlib.Path
    base: str
    server: _BadServer

    def url(self, name: str) -> str:
        return self.base + name

    def behave(
        self, kind: str | None, *, spare: int = 0, times: int | None = None, stall: float = 2.0
    ) -> Behaviour:
        assert kind is None or kind in BEHAVIOURS
        self.server.behaviour = Behaviour(kind, spare, times, stall)
        return self.server.behaviour


@pytest.fixture(scope="module")
def bad_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BadServer]:
    """A misbehaving HTTP server on the loopback (see :class:`Behaviour`)."""
    root = tmp_path_factory.mktemp("bad")
    server = _BadServer(root)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield BadServer(root, f"http://127.0.0.1:{server.server_address[1]}/", server)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
