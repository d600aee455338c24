"""A value its enum lacks (an attribute's ``type`` of 99) moves to the unknown fields, which
protobuf writes after the known ones: re-encoding such bytes never gives them back as they
came, wherever the decoder met them — in an element decoded at once or in one it left
waiting (small elements past a field's first four: wirecodec.protobuf.lazy)."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec.protobuf.representation import Representation

onnx = require_onnx()


def _attribute(k: int) -> Any:
    # ``ref_attr_name`` (field 21) comes after ``type`` (20): an unknown type moves behind it.
    attribute = onnx.helper.make_attribute(f"a{k}", k)
    attribute.ref_attr_name = "r"
    return attribute


def _model_with_attribute_type(at: int, attributes: int, value: int) -> bytes:
    node = onnx.helper.make_node("Custom", ["x"], ["y"], domain="test")
    for k in range(attributes):
        node.attribute.append(_attribute(k))
    data = onnx.helper.make_model(onnx.helper.make_graph([node], "g", [], [])).SerializeToString()
    # The type of attribute ``at`` is the varint after its tag (field 20: b"\xa0\x01"), value 2 (INT).
    marker = _attribute(at).SerializeToString()
    patched = marker.replace(b"\xa0\x01\x02", b"\xa0\x01" + bytes([value]))
    assert patched != marker and data.count(marker) == 1
    return data.replace(marker, patched)


@pytest.mark.parametrize(
    "representation", [None, Representation(every_element_waits=True)], ids=["default", "waiting"]
)
@pytest.mark.parametrize("at", [0, 5])  # decoded at once / left waiting by default
def test_an_unknown_enum_value_is_written_as_protobuf_writes_it(
    representation: Representation | None, at: int
) -> None:
    data = _model_with_attribute_type(at, attributes=6, value=99)
    theirs = onnx.load_model_from_string(data)
    assert theirs.graph.node[0].attribute[at].type == 0  # protobuf: unknown, so unset
    mine = wirecodec.decode(ModelProto, data, representation=representation)
    assert wirecodec.encode(mine) == theirs.SerializeToString() != data
    assert mine.graph.node[0].attribute[at].type == 0


def test_a_known_value_is_copied_as_it_came() -> None:
    data = _model_with_attribute_type(5, attributes=6, value=7)  # INTS: known, so canonical
    assert wirecodec.encode(wirecodec.decode(ModelProto, data)) == data
