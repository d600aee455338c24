"""LinearAttention with grouped query heads (q_num_heads a multiple of kv_num_heads, key and
value narrower than the query): d_k from the key per kv head, d_v from the value per kv
head, the output q_num_heads * d_v wide, the state (B, kv_num_heads, d_k, d_v). Strict
inference by both: the same bytes, or both refuse. Both outputs are asked for: onnx's rule
sets the state's type whether or not the node has that output, and so refuses a
one-output node in strict mode (wirecodec infers it)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


@pytest.mark.parametrize(
    ("q_heads", "kv_heads", "query", "key", "value"),
    [
        (4, 2, (2, 3, 64), (2, 3, 32), (2, 3, 32)),  # d_k = d_v = 16
        (4, 2, (2, 3, 64), (2, 3, 32), (2, 3, 48)),  # d_v = 24: output 96 wide
        (6, 3, (1, 5, 48), (1, 5, 24), (1, 5, 12)),  # d_v = 4
        (4, 1, (2, 3, 32), (2, 3, 8), (2, 3, 8)),  # one kv head
        (4, 2, (2, 3, 64), (2, 3, 32), (2, 3, None)),  # d_v unknown
        (4, 2, (2, 3, 64), (2, 3, 32), None),  # no value shape: d_v unknown
    ],
)
def test_grouped_heads_shapes_as_onnx(q_heads: int, kv_heads: int, query: Any, key: Any, value: Any) -> None:
    names = ["query", "key", "value", "", "decay", "beta"]
    node = helper.make_node(
        "LinearAttention",
        names,
        ["output", "present_state"],
        q_num_heads=q_heads,
        kv_num_heads=kv_heads,
    )
    batch, steps = query[:2]
    shapes = {
        "query": query,
        "key": key,
        "value": value,
        "decay": (batch, steps, kv_heads),
        "beta": (batch, steps, 1),
    }
    inputs = [helper.make_tensor_value_info(n, F, s) for n, s in shapes.items()]
    graph = helper.make_graph([node], "g", inputs, [])
    assert_strict_inference_as_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)]))
