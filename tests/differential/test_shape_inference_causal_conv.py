"""CausalConvWithState against onnx's inference: the activation's names, rank-3 input and
weight, a positive kernel size, and the carry state's shape. Both refuse in strict mode,
or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


@pytest.mark.parametrize("activation", [None, "silu", "swish", "none", "relu"])
@pytest.mark.parametrize(
    ("x", "w"),
    [
        ((2, 4, 8), (4, 1, 3)),
        ((2, 4), (4, 1, 3)),
        ((2, 4, 8), (4, 3)),
        ((2, 4, 8), (4, 1, 0)),
        ((2, 4, 8), (4, 1, 1)),
        ((2, 4, "L"), (4, 1, "K")),
        (None, (4, 1, 3)),
        ((2, 4, 8), None),
    ],
)
def test_causal_conv_with_state_as_onnx(activation: str | None, x: Any, w: Any) -> None:
    attributes = {} if activation is None else {"activation": activation}
    graph = helper.make_graph(
        [helper.make_node("CausalConvWithState", ["x", "w"], ["y", "state"], **attributes)],
        "g",
        [helper.make_tensor_value_info("x", F, x), helper.make_tensor_value_info("w", F, w)],
        [],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])
    assert_strict_inference_as_onnx(model)
