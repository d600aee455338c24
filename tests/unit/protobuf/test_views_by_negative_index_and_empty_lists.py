"""The message model at two small edges: an element of a records container read by a negative
index (``graph.node[-1]``) is the live view of that element, so a write through it is kept,
as for a list of messages (and protobuf); a message whose only stored field is an empty list
(read, never written) holds no field, as its ``ListFields()`` says."""

from __future__ import annotations

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto
from tests.support.decode_modes import RECORDS_ALWAYS
from wirecodec.protobuf.lazy import holds_any_field


def _model_bytes(count: int) -> bytes:
    nodes = [
        NodeProto(op_type="Relu", input=[f"v{i}"], output=[f"v{i + 1}"], name=f"n{i}") for i in range(count)
    ]
    return ModelProto(ir_version=8, graph=GraphProto(name="g", node=nodes)).SerializeToString()


@pytest.mark.parametrize("at", [-1, -2, -5])
def test_a_write_through_an_element_read_by_a_negative_index_is_kept(at: int) -> None:
    model = wirecodec.decode(ModelProto, _model_bytes(5), representation=RECORDS_ALWAYS)
    held = model.graph.node[at]
    held.name = "renamed"
    assert model.graph.node[at].name == "renamed"
    assert [n.name for n in model.graph.node].count("renamed") == 1
    again = ModelProto.FromString(model.SerializeToString())
    assert again.graph.node[5 + at].name == "renamed"
    # As for a positive index: from the write on, the list holds the element itself (reads
    # and the encoder find it at once, not through the table of pins).
    assert list.__getitem__(model.graph.node, 5 + at) is held


@pytest.mark.quick
def test_a_message_whose_only_field_is_an_empty_list_read_holds_no_field() -> None:
    model = ModelProto()
    assert len(model.opset_import) == 0  # a read: may store an empty list
    assert len(model.functions) == 0
    assert model.ListFields() == []
    assert not holds_any_field(model)
    model.opset_import.add()
    assert holds_any_field(model)
