"""Fields declared ``rarely_read`` (every ``metadata_props``) wait whole until read, whatever
their elements' size; what a read gives, and what a bad element does, are unchanged."""

from __future__ import annotations

import pytest

from schema_dsl import INT64, Message, SchemaError, repeated
from schema_dsl.message import slot_value
from schema_dsl.onnx import GraphProto, NodeProto, StringStringEntryProto
from wirecodec import DecodeError, decode, encode
from wirecodec.protobuf.lazy import waiting_fields, waiting_record

onnx = pytest.importorskip("onnx", reason="the onnx package is the oracle")


def _node() -> NodeProto:
    props = [StringStringEntryProto(key=f"pkg.torch.onnx.k{i}", value="v" * (20 + 40 * i)) for i in range(5)]
    return NodeProto(op_type="MatMul", name="n", input=["a", "b"], output=["c"], metadata_props=props)


def test_metadata_waits_whole_and_reads_as_protobuf() -> None:
    data = encode(_node())
    node = decode(NodeProto, data)
    assert "metadata_props" in waiting_fields(node)
    assert waiting_record(node, "metadata_props") is not None and node.op_type == "MatMul"
    want = onnx.NodeProto.FromString(data)
    assert [(p.key, p.value) for p in node.metadata_props] == [(p.key, p.value) for p in want.metadata_props]
    assert encode(node) == want.SerializeToString()


def test_other_fields_keep_their_policy() -> None:
    graph = decode(GraphProto, encode(GraphProto(node=[_node()] * 3)))
    assert not waiting_fields(graph) and len(slot_value(graph, "node")) == 3  # few and big: decoded at once


def test_a_bad_metadata_element_fails_as_eagerly() -> None:
    good = encode(_node())
    bad_element = b"\x0a\x09abc"  # key's length runs past the element's end
    data = good + b"\x4a" + bytes([len(bad_element)]) + bad_element  # metadata_props = 9
    outcomes = []
    for lazy in (True, False):
        with pytest.raises(DecodeError) as caught:
            decode(NodeProto, data, lazy=lazy)
        outcomes.append((caught.value.offset, caught.value.path, caught.value.reason))
    assert outcomes[0] == outcomes[1]


def test_only_message_fields_can_be_rarely_read() -> None:
    with pytest.raises(SchemaError, match="only a message field"):

        class Wrong(Message):
            values: list[int] = repeated(1, INT64, rarely_read=True)
