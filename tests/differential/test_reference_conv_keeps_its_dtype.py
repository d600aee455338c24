"""The evaluator's Conv gives its input's element type on every path (a 1x1 matmul, the
depthwise sum over kernel offsets, which sums 16-bit floats in float32, the grouped
einsum), with values as onnx's own evaluator gives them."""

from __future__ import annotations

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper
from wirecodec.reference import ReferenceEvaluator

_ELEM = {np.float16: TensorProto.FLOAT16, np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE}

# (x shape, w shape, group): depthwise 3x3 (the float32 sum), depthwise with a multiplier,
# pointwise, grouped, and one channel (a matmul)
_CASES = [
    ((1, 4, 6, 6), (4, 1, 3, 3), 4),
    ((1, 2, 5, 5), (4, 1, 3, 3), 2),
    ((2, 3, 4, 4), (5, 3, 1, 1), 1),
    ((1, 4, 5, 5), (6, 2, 3, 3), 2),
    ((1, 1, 9, 9), (2, 1, 3, 3), 1),
]


def _conv_model(x_shape: tuple[int, ...], w_shape: tuple[int, ...], group: int, elem: int) -> bytes:
    node = helper.make_node("Conv", ["x", "w"], ["y"], group=group)
    graph = helper.make_graph(
        [node],
        "conv",
        [
            helper.make_tensor_value_info("x", elem, list(x_shape)),
            helper.make_tensor_value_info("w", elem, list(w_shape)),
        ],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    return wirecodec.encode(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]))


@pytest.mark.quick
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize(("x_shape", "w_shape", "group"), _CASES)
def test_conv_output_has_the_input_dtype_and_onnx_values(
    x_shape: tuple[int, ...], w_shape: tuple[int, ...], group: int, dtype: type
) -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    data = _conv_model(x_shape, w_shape, group, _ELEM[dtype])
    (mine,) = ReferenceEvaluator(wirecodec.decode(ModelProto, data)).run(None, {"x": x, "w": w})
    assert mine.dtype == np.dtype(dtype)
    onnx = pytest.importorskip("onnx")
    reference = pytest.importorskip("onnx.reference")
    (theirs,) = reference.ReferenceEvaluator(onnx.load_from_string(data)).run(None, {"x": x, "w": w})
    assert theirs.dtype == mine.dtype
    tolerance = 1e-2 if dtype is np.float16 else 1e-5
    np.testing.assert_allclose(
        mine.astype(np.float64), theirs.astype(np.float64), rtol=tolerance, atol=tolerance
    )
