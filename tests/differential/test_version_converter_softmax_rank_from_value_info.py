"""Softmax, LogSoftmax and Hardmax between opsets 12 and 13 of an intermediate value: its
rank comes from the graph's value_info (as onnx's converter reads it), so a last axis
stays one node either way, where an unknown rank would take the Flatten/Reshape rewrite
(up) or be refused (down). Compared with onnx's converter, byte for byte."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec.protobuf.codec import decode
from wirecodec.version_converter import convert_version

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


def _model(op: str, axis: int, opset: int) -> Any:
    nodes = [helper.make_node("Elu", ["x"], ["r"]), helper.make_node(op, ["r"], ["y"], axis=axis)]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", F, [2, 3, 4])],
        [helper.make_tensor_value_info("y", F, [2, 3, 4])],
        value_info=[helper.make_tensor_value_info("r", F, [2, 3, 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
@pytest.mark.parametrize(("axis", "start", "target"), [(2, 12, 13), (-1, 12, 13), (2, 13, 12), (-1, 13, 12)])
def test_an_intermediate_value_last_axis_converts_as_onnx(
    op: str, axis: int, start: int, target: int
) -> None:
    model = _model(op, axis, start)
    ours = convert_version(decode(ModelProto, model.SerializeToString()), target)
    assert [n.op_type for n in ours.graph.node] == ["Elu", op]  # one node: the rank was known
    # down: the last axis as rank - 1; up: -1 (Hardmax's kept as written, as onnx keeps it)
    expected = 2 if target == 12 else axis if op == "Hardmax" else -1
    assert [a.i for a in ours.graph.node[1].attribute] == [expected]
    if (op, start) == ("Hardmax", 13):
        return  # onnx has no Hardmax 13 -> 12 adapter (docs/opset-conversion.md)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = onnx.version_converter.convert_version(model, target)
    assert ours.SerializeToString() == theirs.SerializeToString()
