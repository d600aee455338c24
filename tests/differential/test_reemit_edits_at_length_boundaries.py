"""Re-encoding a long field one of whose elements changed itself (wirecodec.protobuf.origin.
reuse_field) where that element's *source* record has a length at a varint boundary: a
payload of 127, 128, 129, 16383, 16384 or 16385 bytes has a length of one, two or three
bytes, and the bytes before the record are copied from the source up to where the record
began. Each edit is made the same way on onnx's message; the bytes must be onnx's."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto
from tests.support.reference import require_onnx

onnx = require_onnx()

SIZES = [127, 128, 129, 16383, 16384, 16385]


def _node_of_size(size: int, index: int) -> Any:
    node = onnx.helper.make_node("Relu", [f"x{index}"], [f"x{index + 1}"], name=f"n{index}")
    pad = 0
    node.doc_string = ""
    while node.ByteSize() < size:
        pad += 1
        node.doc_string = "d" * pad
    assert node.ByteSize() == size, size
    return node


def _graph_bytes(size: int) -> bytes:
    # Every node at least 32 bytes: none waits (wirecodec.protobuf.lazy), so the node list
    # is decoded whole and keeps a span of its own, re-emitted around the changed node.
    nodes = [
        onnx.helper.make_node("Relu", [f"x{i}"], [f"x{i + 1}"], name=f"a node long enough to keep {i}")
        for i in range(6)
    ]
    nodes[2] = _node_of_size(size, 2)
    return bytes(onnx.helper.make_graph(nodes, "g", [], []).SerializeToString())


def _both(data: bytes) -> tuple[Any, Any]:
    ours = wirecodec.decode(GraphProto, data)
    assert ours.node._records is not None  # the field's own span: what reuse_field re-emits
    return ours, onnx.GraphProto.FromString(data)


@pytest.mark.parametrize("size", SIZES)
def test_renaming_an_element_whose_record_length_is_at_a_boundary(size: int) -> None:
    ours, theirs = _both(_graph_bytes(size))
    for graph in (ours, theirs):
        graph.node[2].name = "renamed"
    assert wirecodec.encode(ours) == theirs.SerializeToString()


@pytest.mark.parametrize("size", SIZES)
def test_growing_an_element_past_a_boundary_and_renaming_the_next(size: int) -> None:
    ours, theirs = _both(_graph_bytes(size))
    for graph in (ours, theirs):
        graph.node[2].doc_string += "more"
        graph.node[3].name = "next"
    assert wirecodec.encode(ours) == theirs.SerializeToString()
