"""Issue 35, item 16: a small model by URL costs the verbs two requests (its size, then
all of it), not one per header; counted in nginx's access log."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import wirecodec
from tests.support import odd_models
from tests.support.http_server import Nginx
from wirecodec.cli import main
from wirecodec.cli.common import SMALL_MODEL
from wirecodec.helper import make_graph, make_model, make_node, make_tensor_value_info
from wirecodec.numpy_helper import from_array


def _many_weights(count: int, each: int) -> wirecodec.ModelProto:
    """``count`` float32 weights of ``each`` elements (each past 64 KiB: left pending when walked)."""
    rng = np.random.default_rng(7)
    inits = [from_array(rng.standard_normal(each).astype(np.float32), f"w{i}") for i in range(count)]
    node = make_node("Add", ["x", "w0"], ["y"], name="add")
    info = [make_tensor_value_info(name, 1, [each]) for name in ("x", "y")]
    return make_model(make_graph([node], "g", info[:1], info[1:], initializer=inits))


@pytest.fixture(scope="module")
def served(nginx_server: Nginx) -> Nginx:
    wirecodec.save(_many_weights(24, 25_000), nginx_server.root / "small.onnx")  # 2.4 MB, as the issue's
    wirecodec.save(_many_weights(24, 100_000), nginx_server.root / "large.onnx")  # 9.6 MB: past SMALL_MODEL
    wirecodec.save(odd_models.weights_model(), nginx_server.root / "tiny.onnx")  # under one block
    wirecodec.save(
        _many_weights(200, 20_000), nginx_server.root / "many.onnx"
    )  # 16 MB, 200 tensors of 78 KiB
    return nginx_server


def _requests(served: Nginx, argv: list[str], capsys: pytest.CaptureFixture[str]) -> int:
    served.forget()
    assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    return len(served.requests(1))


def test_a_small_model_is_fetched_in_two_requests(
    served: Nginx, capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path
) -> None:
    url = served.url("small.onnx")
    size = (served.root / "small.onnx").stat().st_size
    assert 2_000_000 < size <= SMALL_MODEL
    assert _requests(served, ["inspect", url], capsys) == 2
    # Everything is in hand: reading a tensor and running checks cost nothing more.
    assert _requests(served, ["tensors", url, "w5", "-o", str(tmp_path / "w5.npy")], capsys) == 2
    assert _requests(served, ["check", url], capsys) == 2
    # The library keeps its own default: headers by ranges, tensors when read (many requests).
    served.forget()
    wirecodec.load(url, load_external_data=False)
    assert len(served.requests(3)) > 2


def test_a_model_under_one_block_takes_one_request(served: Nginx, capsys: pytest.CaptureFixture[str]) -> None:
    assert _requests(served, ["inspect", served.url("tiny.onnx")], capsys) == 1


def test_a_larger_model_still_reads_tensors_when_read(
    served: Nginx, capsys: pytest.CaptureFixture[str]
) -> None:
    url = served.url("large.onnx")
    size = (served.root / "large.onnx").stat().st_size
    assert size > SMALL_MODEL
    served.forget()
    assert main(["inspect", url]) == 0
    capsys.readouterr()
    body = sum(r.body_bytes_sent for r in served.requests(1))
    assert body < size // 10  # the structure only


def test_a_larger_model_of_many_tensors_is_walked_once(
    served: Nginx, capsys: pytest.CaptureFixture[str]
) -> None:
    """One request per tensor header, the structure between payloads filled from the
    blocks the walk read (with the library's 64-block cache, they are fetched again)."""
    url = served.url("many.onnx")
    verb = _requests(served, ["inspect", url], capsys)
    assert verb <= 200 + 2
    served.forget()
    wirecodec.load(url, load_external_data=False)
    assert len(served.requests(verb + 1)) > verb
