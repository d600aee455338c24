"""FlexAttention against onnx's inference: Q, K and V of rank 4 (a missing shape is refused
in strict mode, as onnx does), the sizes they share equal, Hq a multiple of Hkv, the batch
merged from the three. Strict: both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


@pytest.mark.quick
@pytest.mark.parametrize(
    "shapes",
    [
        [("B", "Hq", "L", "D"), ("B", "Hkv", "S", "D"), ("B", "Hkv", "S", "Dv")],
        [(2, 8, 128, 64), (2, 4, 256, 64), (2, 4, 256, 32)],
        [(2, 8, 128, 64), (2, 3, 256, 64), (2, 3, 256, 64)],
        [(2, 8, 128, 64), (2, 4, 256, 64), (2, 4, 128, 64)],
        [(2, 8, 128, 64), (2, 4, 256, 64), (2, 2, 256, 64)],
        [(2, 8, 128, 64), (2, 4, 256, 32), (2, 4, 256, 64)],
        [(2, 8, 128), (2, 4, 256, 64), (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, 4, 256), (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, 4, 256, 64), (2, 4, 256)],
        [(2, 8, 128, 64), (3, 4, 256, 64), (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, 4, 256, 64), (3, 4, 256, 64)],
        [("B", 8, 128, 64), (2, 4, 256, 64), (2, 4, 256, 64)],
        [("B", "H", 128, 64), (2, 3, 256, 64), (2, 3, 256, 64)],
        [(2, 8, 128, 64), None, (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, 4, 256, 64), None],
        [None, (2, 4, 256, 64), (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, "S", 256, 64), (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, 0, 256, 64), (2, 0, 256, 64)],
        [(2, 8, 128, 64), (2, 16, 256, 64), (2, 16, 256, 64)],
        [(2, 8, 128, "D"), (2, 4, 256, 64), (2, 4, 256, 64)],
        [(2, 8, 128, 64), (2, 4, "S", 64), (2, 4, "T", 64)],
        [("A", 8, 128, 64), ("B", 4, 256, 64), ("C", 4, 256, 64)],
    ],
)
def test_flex_attention_as_onnx(shapes: list[Any]) -> None:
    names = ["Q", "K", "V"]
    graph = helper.make_graph(
        [helper.make_node("FlexAttention", names, ["Y"], domain="ai.onnx.preview")],
        "g",
        [helper.make_tensor_value_info(n, F, s) for n, s in zip(names, shapes, strict=True)],
        [],
    )
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.preview", 1)]
    assert_strict_inference_as_onnx(helper.make_model(graph, opset_imports=opsets))
