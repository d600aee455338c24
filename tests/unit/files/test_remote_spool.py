"""A server that ignores ``Range`` (``python -m http.server``), read with a full download
allowed: the file is spooled to a temporary file, not held in memory (issue 47, item 2)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import pathlib
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, OperatorSetIdProto, TensorProto

ROOT = pathlib.Path(__file__).resolve().parents[3]
MIB = 1 << 20
DataType = TensorProto.DataType


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def plain_server(tmp_path: pathlib.Path) -> Iterator[str]:
    """The standard library's file server (no Range support) on ``tmp_path``."""
    handler = functools.partial(_Quiet, directory=str(tmp_path))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _model(size: int) -> ModelProto:
    tensor = TensorProto(name="w", data_type=DataType.FLOAT, dims=[size // 4])
    tensor.raw_data = np.arange(size // 4, dtype=np.float32).tobytes()
    graph = GraphProto(name="g", initializer=[tensor])
    return ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(domain="", version=21)], graph=graph)


CHILD = """
import hashlib, pathlib, sys
import wirecodec
from wirecodec.files.opener import open_model
from wirecodec.files.remote.source import RemoteOptions

def high_water_kib():
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

allowed = RemoteOptions(allow_full_download=True)
# Warm the path up on a tiny model (no bytecode may be written in CI), then restart the peak.
open_model(sys.argv[1] + "/warm.onnx", remote=allowed).model
pathlib.Path("/proc/self/clear_refs").write_text("5")
before = high_water_kib()
opened = open_model(sys.argv[1] + "/big.onnx", remote=allowed)
names = [t.name for t in opened.model.graph.initializer]
growth = (high_water_kib() - before) / 1024
print(growth)
print(hashlib.sha256(wirecodec.encode(opened.model)).hexdigest())
"""


def test_a_full_download_is_spooled_to_disk_not_memory(tmp_path: pathlib.Path, plain_server: str) -> None:
    if not pathlib.Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux's /proc/self/clear_refs to restart the peak RSS")
    size = 48 * MIB
    wirecodec.save(_model(size), tmp_path / "big.onnx")
    wirecodec.save(_model(64), tmp_path / "warm.onnx")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), plain_server],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    growth_mb, digest = result.stdout.split()
    print(f"\nfull download of {size // MIB} MiB: peak RSS grew {float(growth_mb):.1f} MB")
    assert digest == hashlib.sha256((tmp_path / "big.onnx").read_bytes()).hexdigest()
    assert float(growth_mb) < size / MIB / 2
