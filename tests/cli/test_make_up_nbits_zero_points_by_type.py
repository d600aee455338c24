"""inspect's make-up counts com.microsoft's MatMulNBits weights as what they hold: the packed
UINT8 blocks of ``bits``-bit values, and UINT8 zero points (packed too, one per block). Zero
points of another type (float16, as onnxruntime's quantizer writes for some models) hold
one value per element and are counted as they are: never as packed bits."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from wirecodec import helper, numpy_helper, save
from wirecodec.cli import main

np = pytest.importorskip("numpy")
K, N, BLOCK = 32, 8, 16
BLOCKS = N * (K // BLOCK)  # 16 scales, 16 zero points


def _model(zero_points: Any) -> Any:
    weights = numpy_helper.from_array(np.zeros((N, K // BLOCK, BLOCK // 2), np.uint8), "w")
    scales = numpy_helper.from_array(np.ones((BLOCKS,), np.float16), "scales")
    node = helper.make_node(
        "MatMulNBits",
        ["x", "w", "scales", "zp"],
        ["y"],
        domain="com.microsoft",
        K=K,
        N=N,
        bits=4,
        block_size=BLOCK,
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", 10, [1, K])],
        [helper.make_tensor_value_info("y", 10, [1, N])],
        [weights, scales, numpy_helper.from_array(zero_points, "zp")],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    )


def _made(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], model: Any) -> dict[str, Any]:
    path = tmp_path / "m.onnx"
    save(model, path)
    assert main(["inspect", "--json", str(path)]) == 0
    made: dict[str, Any] = json.loads(capsys.readouterr().out)["make_up"]
    return made


@pytest.mark.quick
def test_float16_zero_points_are_counted_as_float16(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = _made(tmp_path, capsys, _model(np.full((BLOCKS,), 8, np.float16)))
    # 256 UINT4 weights, 16 float16 scales, 16 float16 zero points
    assert made["precision"]["weights"] == "UINT4"
    assert made["precision"]["share"] == pytest.approx(256 / 288)
    assert made["parameters_by_operator"] == {"MatMulNBits": 288}


def test_uint8_zero_points_are_counted_as_packed_bits(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # one 4-bit zero point per block, two blocks to a byte: 8 bytes hold the 16
    made = _made(tmp_path, capsys, _model(np.full((BLOCKS // 2,), 0x88, np.uint8)))
    assert made["precision"]["weights"] == "UINT4"
    assert made["precision"]["share"] == pytest.approx((256 + 16) / 288)
    assert made["parameters_by_operator"] == {"MatMulNBits": 288}
