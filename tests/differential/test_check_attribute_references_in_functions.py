"""An attribute that refers to its function's attribute (``ref_attr_name``) is valid inside
a model-local function's body and nowhere else (onnx.proto's AttributeProto.ref_attr_name):
the checker must know which function holds each attribute it walks. onnx's checker judges
the one in a function valid; outside functions it does not enforce the rule, wirecodec's
``attribute-ref`` does (docs/checker.md, "Compared with onnx.checker.check_model")."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from tests.support.reference import require_onnx
from wirecodec import checker

onnx = require_onnx()
helper = onnx.helper


def _referring_attribute() -> Any:
    attribute = onnx.AttributeProto()
    attribute.name, attribute.ref_attr_name, attribute.type = "alpha", "slope", onnx.AttributeProto.FLOAT
    return attribute


def _model(in_function: bool) -> Any:
    inner = helper.make_node("LeakyRelu", ["a"], ["b"])
    inner.attribute.append(_referring_attribute())
    leaky = helper.make_function(
        "local", "Leaky", ["a"], ["b"], [inner], [helper.make_opsetid("", 17)], ["slope"]
    )
    if in_function:
        node = helper.make_node("Leaky", ["x"], ["y"], domain="local", slope=0.2)
    else:
        node = helper.make_node("LeakyRelu", ["x"], ["y"])
        node.attribute.append(_referring_attribute())
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", 1, [2])],
        [helper.make_tensor_value_info("y", 1, [2])],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)], functions=[leaky]
    )


@pytest.mark.quick
def test_a_reference_inside_a_function_body_is_valid_as_onnx_says() -> None:
    model = _model(in_function=True)
    onnx.checker.check_model(model, full_check=True)
    assert checker.violations(wirecodec.load(model.SerializeToString())) == []


def test_a_reference_in_the_main_graph_is_reported() -> None:
    model = _model(in_function=False)
    found = checker.violations(wirecodec.load(model.SerializeToString()))
    assert [(v.rule, v.path) for v in found] == [
        ("attribute-ref", "graph.node[0].attribute[0].ref_attr_name")
    ]
