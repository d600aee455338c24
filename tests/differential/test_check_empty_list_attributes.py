"""An attribute of a list type with no values (``ints: []`` under type INTS, and so for every
list type) is valid, as onnx's checker says: an empty list is the list type's value, not a
missing one (docs/checker.md, rule attribute-value: "a list may be empty"). Judged by onnx.
(A scalar type without its value, ``type: INT`` and no ``i``, onnx 1.23 accepts too; the
checker refuses it on purpose, as the rule says: not compared here.)"""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec.checker
from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, TensorProto, AttributeProto = onnx.helper, onnx.TensorProto, onnx.AttributeProto


def _io(name: str) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])


def _model(kind: int) -> Any:
    node = helper.make_node("Holder", ["x"], ["y"], domain="custom")
    node.attribute.append(AttributeProto(name="values", type=kind))  # the type, and no value
    graph = helper.make_graph([node], "g", [_io("x")], [_io("y")])
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)]
    return helper.make_model(graph, opset_imports=opsets)


_LISTS = ("FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS", "SPARSE_TENSORS", "TYPE_PROTOS")


@pytest.mark.quick
@pytest.mark.parametrize("kind", _LISTS)
def test_a_list_attribute_without_values_is_valid_as_onnx_says(kind: str) -> None:
    model = _model(getattr(AttributeProto, kind))
    try:
        onnx.checker.check_model(model)
        theirs = True
    except onnx.checker.ValidationError:
        theirs = False
    assert theirs  # what the rows are about, as onnx says
    ours = wirecodec.checker.violations(wirecodec.decode(ModelProto, model.SerializeToString()))
    assert (not ours) == theirs, [(v.path, v.rule) for v in ours]


@pytest.mark.parametrize("kind", _LISTS)
def test_a_list_attribute_carrying_another_field_is_reported_once_for_that_field(kind: str) -> None:
    """Only the field that should not be there is reported: the list's own field, empty, is
    still its value (no second finding saying it is missing)."""
    model = _model(getattr(AttributeProto, kind))
    model.graph.node[0].attribute[0].s = b"stray"
    ours = wirecodec.checker.violations(wirecodec.decode(ModelProto, model.SerializeToString()))
    assert [(v.path, v.rule) for v in ours] == [("graph.node[0].attribute[0].s", "attribute-value")]
