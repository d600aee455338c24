"""Two things a checker must see that a cheap look could miss, judged by onnx: the list values
of an attribute (an ``ints`` under a FLOAT attribute) and the bodies of a GRAPHS attribute
(a broken node inside ``attribute.graphs``). The checker looks at lists without storing
empty ones (issue 48, item 7); these rows make sure it still looks."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec.checker
from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, TensorProto = onnx.helper, onnx.TensorProto


def _io(name: str) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])


def _model(node: Any, *domains: str) -> Any:
    graph = helper.make_graph([node], "g", [_io("x")], [_io("y")])
    opsets = [helper.make_opsetid("", 18), *(helper.make_opsetid(d, 1) for d in domains)]
    return helper.make_model(graph, opset_imports=opsets)


def float_attribute_with_ints() -> tuple[Any, str]:
    attribute = helper.make_attribute("alpha", 1.0)
    attribute.ints.append(3)
    node = helper.make_node("LeakyRelu", ["x"], ["y"])
    node.attribute.append(attribute)
    return _model(node), "graph.node[0].attribute[0].ints"


def graphs_attribute_with_a_broken_body() -> tuple[Any, str]:
    body = helper.make_graph([helper.make_node("Relu", ["missing"], ["z"])], "body", [], [_io("z")])
    node = helper.make_node("Holder", ["x"], ["y"], domain="custom")
    node.attribute.append(helper.make_attribute("bodies", [body]))  # type GRAPHS
    return _model(node, "custom"), "graph.node[0].attribute[0].graphs[0].node[0].input[0]"


def graphs_attribute_with_sound_bodies() -> tuple[Any, str]:
    body = helper.make_graph([helper.make_node("Relu", ["x"], ["z"])], "body", [], [_io("z")])
    node = helper.make_node("Holder", ["x"], ["y"], domain="custom")
    node.attribute.append(helper.make_attribute("bodies", [body, body]))
    return _model(node, "custom"), ""


ROWS = (float_attribute_with_ints, graphs_attribute_with_a_broken_body, graphs_attribute_with_sound_bodies)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.__name__)
def test_the_checker_sees_lists_and_graphs_bodies_as_onnx(row: Any) -> None:
    model, where = row()
    try:
        onnx.checker.check_model(model)
        theirs = True
    except onnx.checker.ValidationError:
        theirs = False
    ours = wirecodec.checker.violations(wirecodec.decode(ModelProto, model.SerializeToString()))
    assert (not ours) == theirs, [(v.path, v.rule) for v in ours]
    if where:
        assert where in [v.path for v in ours], [(v.path, v.rule) for v in ours]
