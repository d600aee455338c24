"""CausalConvWithState against onnx's inference: the activation's names, rank-3 input and
weight, a positive kernel size, and the carry state's shape. Both refuse in strict mode,
or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec import decode, encode
from wirecodec.shape_inference import InferenceError, infer_shapes

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
    try:
        theirs: bytes | None = onnx.shape_inference.infer_shapes(model, strict_mode=True).SerializeToString()
    except onnx.shape_inference.InferenceError:
        theirs = None
    try:
        ours: bytes | None = encode(
            infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True)
        )
    except InferenceError:
        ours = None
    assert ours == theirs
