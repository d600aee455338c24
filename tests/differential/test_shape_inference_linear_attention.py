"""LinearAttention against onnx's inference: the heads (positive, q a multiple of kv), the
update rule and the decay/beta inputs it needs or forbids, the ranks and last dimensions
of the inputs, and the shapes when the query is unknown but the past state is not. Both
refuse in strict mode, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT
NAMES = ("query", "key", "value", "past_state", "decay", "beta")
QKV = {"query": (2, 3, 64), "key": (2, 3, 64), "value": (2, 3, 64)}


def _same(shapes: dict[str, Any], **attributes: Any) -> None:
    names = [n if n in shapes else "" for n in NAMES]
    while not names[-1]:
        names.pop()
    node = helper.make_node("LinearAttention", names, ["output", "present_state"], **attributes)
    inputs = [helper.make_tensor_value_info(n, F, s) for n, s in shapes.items()]
    graph = helper.make_graph([node], "g", inputs, [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)])
    assert_strict_inference_as_onnx(model)


@pytest.mark.parametrize(("q_heads", "kv_heads"), [(4, 4), (4, 2), (4, 1), (6, 4), (0, 2), (2, 0), (3, 3)])
@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta", "other"])
@pytest.mark.parametrize("extra", ["", "decay", "beta", "both"])
def test_heads_rules_and_optional_inputs_as_onnx(q_heads: int, kv_heads: int, rule: str, extra: str) -> None:
    shapes: dict[str, Any] = dict(QKV)
    if extra in ("decay", "both"):
        shapes["decay"] = (2, 3, kv_heads or 1)
    if extra in ("beta", "both"):
        shapes["beta"] = (2, 3, 1)
    _same(shapes, q_num_heads=q_heads, kv_num_heads=kv_heads, update_rule=rule)


@pytest.mark.parametrize(
    "changed",
    [
        {"query": (2, 64)},
        {"past_state": (2, 4, 16)},
        {"past_state": (2, 4, 16, 16)},
        {"decay": (2, 3)},
        {"decay": (2, 3, 5)},
        {"decay": (2, 3, 64)},
        {"beta": (2, 3, 3)},
        {"query": None, "key": None, "value": None, "past_state": (2, 4, 16, 16)},
        {"query": None, "key": None, "value": None},
        {"value": (2, 3, None)},
        {"query": (2, 3, 62)},
    ],
)
def test_ranks_and_sizes_as_onnx(changed: dict[str, Any]) -> None:
    shapes: dict[str, Any] = {**QKV, "decay": (2, 3, 4), "beta": (2, 3, 4), **changed}
    _same(shapes, q_num_heads=4, kv_num_heads=4, update_rule="gated_delta")
