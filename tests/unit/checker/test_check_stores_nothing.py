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
from wirecodec import helper


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


@pytest.mark.quick
def test_checking_stores_no_empty_lists_on_a_body() -> None:
    """A body without value_info or initializers keeps none stored after a check (a graph of
    50k If nodes would hold 100k empty lists)."""
    then = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t"])], "then", [], [helper.make_tensor_value_info("t", 1, [1])]
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [], [helper.make_tensor_value_info("e", 1, [1])]
    )
    node = helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", 1, [1]), helper.make_tensor_value_info("c", 9, [])],
        [helper.make_tensor_value_info("y", 1, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    decoded = wirecodec.decode(ModelProto, model.SerializeToString())
    wirecodec.check(decoded)
    body = decoded.graph.node[0].attribute[0].g
    for name in ("value_info", "input", "initializer", "sparse_initializer", "quantization_annotation"):
        assert not body._has & body.__schema__.bit[name], name
