"""SwiGLU against onnx's inference: A and B share one shape (no broadcasting), a size wins
over a symbol, and an unknown shape on either side leaves the output's shape unknown.
Both refuse in strict mode, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


@pytest.mark.quick
@pytest.mark.parametrize(
    ("a", "b"),
    [
        ((2, 3, 8), (2, 3, 8)),
        ((2, 3, 8), (2, 3)),
        ((2, 3, 8), (2, 3, 4)),
        ((2, 3, 8), (2, 3, 1)),
        (("N", 3, 8), (2, "M", 8)),
        (("N", "M"), ("N", "K")),
        (("N", None), (None, 4)),
        ((2, 3), None),
        (None, (2, 3)),
    ],
)
def test_swiglu_as_onnx(a: Any, b: Any) -> None:
    graph = helper.make_graph(
        [helper.make_node("SwiGLU", ["a", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("a", F, a), helper.make_tensor_value_info("b", F, b)],
        [],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])
    assert_strict_inference_as_onnx(model)
