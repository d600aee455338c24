"""A repeated field whose elements wait is its container (wirecodec.protobuf.lazy,
schema_dsl.containers.WaitingContainer): present, stored in its slot, its length known
without loading; the first use loads it once, and it reads, compares, merges and encodes as
the same field decoded by onnx (protobuf's upb) from the same bytes."""

from __future__ import annotations

import struct
from typing import Any

import pytest

import wirecodec
from schema_dsl.containers import container_class
from schema_dsl.onnx import GraphProto, NodeProto, TensorProto
from tests.support.reference import require_onnx
from wirecodec.protobuf.lazy import Pending, PendingRun, waiting_record
from wirecodec.protobuf.wire import encode_varint

onnx = require_onnx()


def _graph_bytes() -> bytes:
    helper = onnx.helper
    nodes = [helper.make_node("Relu", [f"x{i}"], [f"x{i + 1}"]) for i in range(12)]
    inputs = [helper.make_tensor_value_info(f"i{i}", 1, [1]) for i in range(9)]
    outputs = [helper.make_tensor_value_info(f"i{i}", 1, [1]) for i in range(9)]
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return bytes(graph.SerializeToString())


def _pair() -> tuple[Any, Any]:
    data = _graph_bytes()
    # records=False: the suite's run on records (tests/run.sh --records) would hold these
    # fields as records, and this file is about the fields that wait.
    return wirecodec.decode(GraphProto, data, records=False), onnx.GraphProto.FromString(data)


def test_a_waiting_field_is_present_and_its_length_known_without_loading() -> None:
    graph, theirs = _pair()
    assert isinstance(waiting_record(graph, "node"), Pending)
    assert len(graph.node) == len(theirs.node) == 12
    assert [spec.name for spec, _ in graph.ListFields()] == [d.name for d, _ in theirs.ListFields()]
    assert isinstance(waiting_record(graph, "node"), Pending)  # still waiting: nothing was read


def test_the_first_use_loads_once_and_the_container_becomes_the_plain_one() -> None:
    graph, theirs = _pair()
    held = graph.node
    assert [n.output[0] for n in held] == [n.output[0] for n in theirs.node]
    assert waiting_record(graph, "node") is None
    assert held is graph.node  # the same container: every reference sees one list
    assert type(held) is container_class(GraphProto.__schema__.by_name["node"])


@pytest.mark.parametrize("left", ["input", "output"])
def test_two_fields_compare_whichever_one_waits(left: str) -> None:
    graph, theirs = _pair()
    right = "output" if left == "input" else "input"
    read_first = getattr(graph, left)
    list(read_first)  # this one loaded, the other still waiting
    assert waiting_record(graph, right) is not None
    assert (read_first == getattr(graph, right)) == (getattr(theirs, left) == getattr(theirs, right))
    assert (read_first != getattr(graph, right)) == (getattr(theirs, left) != getattr(theirs, right))


def test_two_waiting_fields_compare_equal_as_onnx_says() -> None:
    graph, theirs = _pair()
    assert (graph.input == graph.output) is (theirs.input == theirs.output) is True
    other, _ = _pair()
    assert graph.node == other.node
    other_again, _ = _pair()
    assert (graph.node != other_again.node) is False


def test_a_merge_into_a_waiting_run_keeps_every_value_in_order() -> None:
    values = [float(i) for i in range(64)]
    body = struct.pack("<64f", *values)
    data = b"\x22" + encode_varint(len(body)) + body
    tensor = wirecodec.decode(TensorProto, data)
    assert isinstance(waiting_record(tensor, "float_data"), PendingRun)
    tensor.MergeFrom(TensorProto(float_data=[99.0]))
    theirs = onnx.TensorProto.FromString(data)
    theirs.MergeFrom(onnx.TensorProto(float_data=[99.0]))
    assert list(tensor.float_data) == list(theirs.float_data) == [*values, 99.0]
    assert wirecodec.encode(tensor) == theirs.SerializeToString()


def test_writes_into_a_waiting_field_land_after_its_elements() -> None:
    graph, theirs = _pair()
    for g in (graph, theirs):
        g.node.add(op_type="Last")
        g.node.insert(0, type(g.node[0])(op_type="First"))
        del g.node[5]
    assert [n.op_type for n in graph.node] == [n.op_type for n in theirs.node]
    assert wirecodec.encode(graph) == theirs.SerializeToString()


def test_a_peek_leaves_the_field_waiting() -> None:
    graph, theirs = _pair()
    seen = [n.output[0] for n in wirecodec.protobuf.lazy.peek(graph, "node")]
    assert seen == [n.output[0] for n in theirs.node]
    assert isinstance(waiting_record(graph, "node"), Pending)


def test_two_waiting_fields_concatenate_and_order_as_lists() -> None:
    graph, theirs = _pair()
    joined = graph.input + graph.output  # both wait: list's C code reads the right one's storage
    assert [v.name for v in joined] == [v.name for v in [*theirs.input, *theirs.output]]
    graph, _ = _pair()
    assert (graph.input < graph.output) is False and (graph.input <= graph.output) is True


def test_a_field_whose_every_element_waits_is_present_and_encoded() -> None:
    # metadata_props is rarely read: every element waits, the first one included, so no
    # element the decoder built made the field present before it began to wait.
    node = onnx.helper.make_node("Relu", ["x"], ["y"])
    onnx.helper.set_metadata_props(node, {f"k{i}": "v" for i in range(3)})
    data = bytes(node.SerializeToString())
    ours, theirs = wirecodec.decode(NodeProto, data), onnx.NodeProto.FromString(data)
    assert isinstance(waiting_record(ours, "metadata_props"), Pending)
    assert [spec.name for spec, _ in ours.ListFields()] == [d.name for d, _ in theirs.ListFields()]
    assert wirecodec.encode(ours) == theirs.SerializeToString()


def test_a_loaded_field_plus_a_waiting_one_holds_both() -> None:
    graph, theirs = _pair()
    list(graph.input)
    assert waiting_record(graph, "output") is not None
    assert [v.name for v in graph.input + graph.output] == [v.name for v in [*theirs.input, *theirs.output]]


def test_a_change_to_a_field_waiting_from_its_first_element_is_encoded() -> None:
    node = onnx.helper.make_node("Relu", ["x"], ["y"])
    onnx.helper.set_metadata_props(node, {f"k{i}": "v" for i in range(3)})
    data = bytes(node.SerializeToString())
    ours, theirs = wirecodec.decode(NodeProto, data), onnx.NodeProto.FromString(data)
    for n in (ours, theirs):
        n.metadata_props.add(key="added", value="w")
    assert wirecodec.encode(ours) == theirs.SerializeToString()


def test_two_record_fields_concatenate_as_lists() -> None:
    # (a long graph keeps records: list's C concatenation would copy their placeholders)
    helper = onnx.helper
    values = [helper.make_tensor_value_info(f"v{i}", 1, [1]) for i in range(1100)]
    data = bytes(helper.make_graph([], "g", values[:3], values[3:]).SerializeToString())
    ours, theirs = wirecodec.decode(GraphProto, data), onnx.GraphProto.FromString(data)
    assert [v.name for v in ours.input + ours.output] == [v.name for v in [*theirs.input, *theirs.output]]
    assert [v.name for v in ours.output + ours.input][:2] == ["v3", "v4"]
