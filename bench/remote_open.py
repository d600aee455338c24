"""Opening real exports by URL: bytes transferred and wall time, counted by nginx, beside onnx.

    python bench/remote_open.py [MODEL ...] [--repeat 3]

Each MODEL (default: the PyTorch dynamo exports of ``bench/run.py``'s inputs, the
540 MB single file ``gpt`` and the 2.3 GB ``gpt-external`` with its data file) is served,
with the files beside it, by a real nginx on the loopback (tests/support/http_server.py:
Debian's nginx, as the tests use it). Best of ``--repeat``, counting what nginx says it
sent (``$bytes_sent``: headers and bodies):

1. ``wirecodec inspect URL`` in-process (open + the summary it prints);
2. the same as a command in a fresh process (``python -m wirecodec inspect URL``),
   interpreter start included;
3. reading one weight (``to_array``, the largest initializer) of a model already open;
4. the reference, what a user of onnx does with a model on a web server: download the
   model and its data files (``urllib``), then ``onnx.load`` it.

The loopback has no latency worth speaking of: over a real network each request adds a
round trip, and opening costs about one request per large tensor (see docs/remote.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import wirecodec  # noqa: E402
from schema_dsl.onnx import TensorProto  # noqa: E402
from tests.support.http_server import NGINX, Nginx  # noqa: E402
from wirecodec.cli import main  # noqa: E402
from wirecodec.files.opener import open_model  # noqa: E402

DEFAULT_MODELS = [
    pathlib.Path("bench/.cache/gpt-torch-v32000-d768-l12/model.onnx"),
    pathlib.Path("bench/.cache/gpt-external-torch-v32000-d1536-l17/model.onnx"),
]


def _serve(server: Nginx, model: pathlib.Path) -> tuple[str, int]:
    """Put ``model``'s folder in nginx's root (linked, not copied); its URL and the bytes of the folder."""
    folder = server.root / model.parent.name
    folder.mkdir()
    size = 0
    for file in model.parent.iterdir():
        try:
            os.link(file, folder / file.name)
        except OSError:
            shutil.copyfile(file, folder / file.name)
        size += file.stat().st_size
    return server.url(f"{folder.name}/{model.name}"), size


def _best(server: Nginx, repeat: int, prepare: Callable[[], Callable[[], object]]) -> tuple[float, int, int]:
    """The fastest of ``repeat`` runs: ``prepare()`` (not counted) gives the step to time.
    Seconds, requests and bytes nginx sent for the step."""
    best: tuple[float, int, int] | None = None
    for _ in range(repeat):
        step = prepare()
        server.forget()
        started = time.perf_counter()
        step()
        seconds = time.perf_counter() - started
        requests = server.requests()
        if best is None or seconds < best[0]:
            best = (seconds, len(requests), sum(r.bytes_sent for r in requests))
    assert best is not None
    return best


def _opened_weight(url: str, name: str) -> Callable[[], object]:
    """Reading weight ``name`` of the model at ``url``, opened now (the open is not the step)."""
    opened = open_model(url)
    opened.resolve_external()  # data files: references become pending reads too
    tensor = next(t for t in opened.model.graph.initializer if t.name == name)
    return lambda: wirecodec.to_array(tensor)


def _inspect(url: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["inspect", url]) == 0


def _inspect_in_a_new_process(url: str) -> None:
    subprocess.run(
        [sys.executable, "-m", "wirecodec", "inspect", url], cwd=ROOT, check=True, capture_output=True
    )


def _download_and_onnx_load(url: str, names: list[str]) -> None:
    import onnx

    base = url.rsplit("/", 1)[0]
    with tempfile.TemporaryDirectory(prefix="wirecodec-download-") as scratch:
        for name in names:
            with urllib.request.urlopen(f"{base}/{name}") as answer, open(f"{scratch}/{name}", "wb") as out:
                shutil.copyfileobj(answer, out, 1 << 20)
        model = onnx.load(f"{scratch}/{url.rsplit('/', 1)[1]}")
        assert len(model.graph.node) > 0


def _row(what: str, seconds: float, requests: int, sent: int, size: int) -> str:
    return f"| {what} | {seconds:.3f} s | {requests} | {sent:,} ({100 * sent / size:.3f}%) |"


def run(model: pathlib.Path, repeat: int) -> None:
    with tempfile.TemporaryDirectory(prefix="wirecodec-remote-") as work:
        server = Nginx(pathlib.Path(work))
        try:
            url, size = _serve(server, model)
            names = sorted(file.name for file in model.parent.iterdir())
            print(
                f"\n`{model.parent.name}`: {size:,} bytes in {len(names)} files ({NGINX} on the loopback)\n"
            )
            print("| step | best time | requests | bytes nginx sent (share of the files) |")
            print("|---|---|---|---|")
            ours = _best(server, repeat, lambda: lambda: _inspect(url))
            print(_row("wirecodec: open + inspect, in-process", *ours, size))
            fresh = _best(server, repeat, lambda: lambda: _inspect_in_a_new_process(url))
            print(_row("wirecodec: `wirecodec inspect URL`, new process", *fresh, size))
            opened = open_model(url)
            opened.resolve_external()  # data files: references become pending reads too
            tensor = max(
                opened.model.graph.initializer, key=lambda t: wirecodec.raw_size(t.data_type, _count(t))
            )
            one = _best(server, repeat, lambda: _opened_weight(url, tensor.name))
            print(_row(f"wirecodec: read one weight (`{tensor.name}`)", *one, size))
            theirs = _best(server, repeat, lambda: lambda: _download_and_onnx_load(url, names))
            print(_row("onnx: download the files, then `onnx.load`", *theirs, size))
            print(
                f"\nopen + inspect: {ours[0] / theirs[0]:.4f}× onnx's time, "
                f"{ours[2] / theirs[2]:.5f}× its bytes"
            )
        finally:
            server.stop()


def _count(tensor: TensorProto) -> int:
    count = 1
    for dim in tensor.dims:
        count *= dim
    return count


def main_() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "models", nargs="*", type=pathlib.Path, help="ONNX files (default: the bench's exports)"
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for model in args.models or DEFAULT_MODELS:
        if not model.exists():
            raise SystemExit(f"{model}: not found (build the bench inputs: python bench/run.py --only load)")
        run(model.resolve(), args.repeat)


if __name__ == "__main__":
    main_()
