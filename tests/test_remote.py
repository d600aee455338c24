"""Models by URL (issue 25): structure by byte ranges, each tensor's bytes when read.

Against a real nginx on the loopback (tests/http_server.py; skipped with the reason
where nginx is absent), counting the bytes nginx says it sent, and against a bad server
for every way a server can fail.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from tests.http_server import Nginx
from wirecodec import helper
from wirecodec.files.remote_source import is_url

WEIGHTS = 4
SHAPE = (256, 256)  # 256 KiB of float32 each: large enough to wait (64 KiB and more)


def weights_model(count: int = WEIGHTS, shape: tuple[int, ...] = SHAPE) -> ModelProto:
    """A small graph with ``count`` random float32 initializers of ``shape``, and a tiny one."""
    rng = np.random.default_rng(25)
    inits = [
        wirecodec.from_array(rng.standard_normal(shape).astype(np.float32), f"w{i}") for i in range(count)
    ]
    inits.append(wirecodec.from_array(np.arange(4, dtype=np.float32), "small"))
    info = [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)) for name in ("x", "y")]
    node = helper.make_node("Add", ["x", "w0"], ["y"])
    return helper.make_model(helper.make_graph([node], "g", info[:1], info[1:], initializer=inits))


@pytest.fixture(scope="module")
def served(nginx_server: Nginx) -> Nginx:
    """nginx serving ``m.onnx`` (single file) and ``ext/m.onnx`` with ``ext/m.onnx.data``."""
    model = weights_model()
    wirecodec.save(model, nginx_server.root / "m.onnx")
    (nginx_server.root / "ext").mkdir()
    wirecodec.save(model, nginx_server.root / "ext" / "m.onnx", external_data=True)
    return nginx_server


def body_bytes(server: Nginx, requests: int) -> int:
    return sum(r.body_bytes_sent for r in server.requests(requests))


def test_load_by_url_equals_local_load(served: Nginx) -> None:
    remote = wirecodec.load(served.url("m.onnx"))
    local = wirecodec.load(served.root / "m.onnx")
    assert wirecodec.encode(remote) == wirecodec.encode(local)
    for mine, theirs in zip(remote.graph.initializer, local.graph.initializer, strict=True):
        assert np.array_equal(wirecodec.to_array(mine), wirecodec.to_array(theirs))


def test_is_url() -> None:
    assert is_url("https://h/m.onnx") and is_url("s3://bucket/m.onnx")
    assert not is_url("m.onnx") and not is_url("C://m.onnx") and not is_url(pathlib.Path("x"))
