"""Opening a 2 GB-class model by URL: bytes transferred and wall time, counted by nginx.

    python bench/remote_open.py [--count 64] [--each-mib 32] [--repeat 5]

Writes the model of tests/big_sparse.py (``--count`` float32 weights of ``--each-mib``
MiB, 2 GiB by default, sparse on disk), serves it with a real nginx on the loopback
(tests/http_server.py: Debian's nginx, as the tests use it), and measures, best of
``--repeat``:

1. ``wirecodec inspect URL`` in-process (open + the summary it prints): wall time,
   requests and bytes nginx sent (``$bytes_sent``: headers and bodies);
2. the same as a command in a fresh process (``python -m wirecodec inspect URL``),
   interpreter start included;
3. reading one weight (``to_array``) of a model already open: time and bytes.

The loopback has no latency worth speaking of: over a real network each request adds a
round trip, and opening costs about one request per large tensor (see docs/remote.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import wirecodec  # noqa: E402
from tests.big_sparse import MIB, write_big_model  # noqa: E402
from tests.http_server import NGINX, Nginx  # noqa: E402
from wirecodec.cli import main  # noqa: E402
from wirecodec.files.opener import open_model  # noqa: E402


def _sent(server: Nginx, at_least: int = 0) -> tuple[int, int]:
    requests = server.requests(at_least)
    return len(requests), sum(r.bytes_sent for r in requests)


def run(count: int, each: int, repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="wirecodec-remote-") as work:
        server = Nginx(pathlib.Path(work))
        try:
            big = write_big_model(server.root / "big.onnx", count=count, each=each)
            url = server.url("big.onnx")
            print(
                f"# {NGINX} on the loopback; model {big.size:,} bytes ({count} x {each // MIB} MiB weights)"
            )
            best = None
            for _ in range(repeat):
                server.forget()
                started = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    assert main(["inspect", url]) == 0
                seconds = time.perf_counter() - started
                if best is None or seconds < best[0]:
                    best = (seconds, *_sent(server))
            assert best is not None
            seconds, requests, sent = best
            share = 100 * sent / big.size
            print(
                f"open + inspect, in-process:  {seconds * 1000:7.1f} ms  {requests} requests  {sent:,} bytes "
                f"({share:.3f}% of the model)"
            )
            fresh = None
            for _ in range(repeat):
                server.forget()
                started = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "wirecodec", "inspect", url],
                    cwd=ROOT,
                    check=True,
                    capture_output=True,
                )
                seconds = time.perf_counter() - started
                fresh = seconds if fresh is None else min(fresh, seconds)
            requests, sent = _sent(server)
            print(f"open + inspect, new process: {fresh * 1000:7.1f} ms  {requests} requests  {sent:,} bytes")
            opened = open_model(url)
            tensor = opened.model.graph.initializer[count // 2]
            server.forget()
            started = time.perf_counter()
            array = wirecodec.to_array(tensor)
            seconds = time.perf_counter() - started
            requests, sent = _sent(server, 1)
            print(
                f"read one weight ({array.nbytes:,} bytes): {seconds * 1000:7.1f} ms  "
                f"{requests} request  {sent:,} bytes"
            )
        finally:
            server.stop()


def main_() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--each-mib", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run(args.count, args.each_mib * MIB, args.repeat)


if __name__ == "__main__":
    main_()
