"""A declared value whose type is there but empty (``type {}``, as exporters write the
outputs of If branches: silero-vad's) against onnx's inference: onnx fills it in place and
adds no value_info entry; a value with no type at all gets both. Found by
onnxconverter-common's float16 conversion of silero-vad (tests/clients)."""

from __future__ import annotations

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


def _declared(name: str, kind: str) -> object:
    info = onnx.ValueInfoProto(name=name)
    if kind == "empty":
        info.type.SetInParent()
    elif kind == "elem":
        info.type.tensor_type.elem_type = F
    return info


@pytest.mark.quick
@pytest.mark.parametrize("kind", ["empty", "none", "elem"])
@pytest.mark.parametrize("where", ["main", "branch", "value_info"])
def test_a_declared_empty_type_is_filled_as_by_onnx(kind: str, where: str) -> None:
    x = helper.make_tensor_value_info("x", F, [2, "N"])
    if where == "branch":
        body = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["b"])], "body", [], [_declared("b", kind)]
        )
        node = helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)
        inputs = [helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []), x]
        graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", F, None)])
    elif where == "main":
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], "g", [x], [_declared("y", kind)]
        )
    else:
        nodes = [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Relu", ["t"], ["y"])]
        graph = helper.make_graph(nodes, "g", [x], [], value_info=[_declared("t", kind)])
    assert_strict_inference_as_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
