"""walk(..., peek=True) looks at waiting elements without loading them (issue 37, survivor 3)."""

from __future__ import annotations

from schema_dsl.onnx import GraphProto, NodeProto
from wirecodec import decode, encode
from wirecodec.protobuf.lazy import Pending, waiting_record
from wirecodec.protobuf.walk import walk


def _waiting(graph: GraphProto, name: str) -> bool:
    return isinstance(waiting_record(graph, name), Pending)


def _graph() -> bytes:
    # Nodes under 32 bytes each: they wait in one pending record until read.
    return encode(GraphProto(node=[NodeProto(op_type=f"Op{i % 5}", output=[f"y{i}"]) for i in range(40)]))


def test_a_peeking_walk_sees_every_waiting_element_and_leaves_them_waiting() -> None:
    data = _graph()
    graph = decode(GraphProto, data)
    assert _waiting(graph, "node")
    seen = [site.message.op_type for site in walk(graph, peek=True) if isinstance(site.message, NodeProto)]
    assert seen == [node.op_type for node in decode(GraphProto, data, lazy=False).node]
    assert _waiting(graph, "node")  # nothing was kept on the graph
    assert encode(graph) == data


def test_a_plain_walk_loads_what_it_visits() -> None:
    # The contrast that makes the test above mean something: without peek, the record is read.
    graph = decode(GraphProto, _graph())
    assert len([site for site in walk(graph) if isinstance(site.message, NodeProto)]) == 40
    assert not _waiting(graph, "node")
