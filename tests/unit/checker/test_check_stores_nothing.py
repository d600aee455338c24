"""A check reads a decoded model without changing what it holds: a node without attributes
is left without a stored attribute list (a long graph would hold one per node)."""

from __future__ import annotations

import pytest

import wirecodec
from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)


@pytest.mark.quick
def test_checking_stores_no_empty_attribute_lists() -> None:
    graph = GraphProto(name="g", node=[NodeProto(op_type="Relu", input=["x"], output=["y"])])
    graph.node.add(
        op_type="LeakyRelu",
        input=["y"],
        output=["z"],
        attribute=[AttributeProto(name="alpha", f=0.1, type=1)],
    )
    value = ValueInfoProto(
        name="x", type=TypeProto(tensor_type=TypeProto.Tensor(elem_type=1, shape=TensorShapeProto()))
    )
    graph.input.append(value)
    graph.output.append(ValueInfoProto(name="z", type=value.type))
    model = ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)
    decoded = wirecodec.decode(ModelProto, model.SerializeToString())
    wirecodec.check(decoded)
    bare = decoded.graph.node[0]
    assert not bare._has & bare.__schema__.bit["attribute"]
    assert len(decoded.graph.node[1].attribute) == 1
