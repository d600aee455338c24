"""``==`` and ``CopyFrom`` of decoded messages, side by side with onnx: the shortcuts (equal
unchanged source bytes; a copy decoded again from them) answer what the field-by-field
comparison and copy answer, before and after changes, below and above the records threshold."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto
from tests.support.reference import require_onnx

onnx = require_onnx()

SIZES = (40, 1500)  # below and above records.RECORDS_AFTER


def _bytes(nodes: int) -> bytes:
    helper = onnx.helper
    made = [
        helper.make_node(
            "LeakyRelu", [f"x{i}"], [f"x{i + 1}"], name=f"n{i % 7}", alpha=[0.5, -0.0, 0.0][i % 3]
        )
        for i in range(nodes)
    ]
    return bytes(helper.make_model(helper.make_graph(made, "g", [], [])).SerializeToString())


def _pair(nodes: int) -> tuple[Any, Any]:
    data = _bytes(nodes)
    return wirecodec.decode(ModelProto, data), onnx.load_model_from_string(data)


def _equalities(graph: Any) -> list[bool]:
    nodes = graph.node
    # 0 and 21 have equal fields; 1 and 8 differ only by -0.0 and 0.0; 1 and 22 are equal.
    return [
        nodes[0] == nodes[21],
        nodes[0] == nodes[7],
        nodes[1] == nodes[8],
        nodes[1] == nodes[22],
        nodes[3] == nodes[3],
    ]


@pytest.mark.parametrize("nodes", SIZES)
def test_equality_of_unchanged_and_changed_nodes_as_onnx(nodes: int) -> None:
    mine, theirs = _pair(nodes)
    assert _equalities(mine.graph) == _equalities(theirs.graph)
    for model in (mine, theirs):
        node = model.graph.node[21]
        node.name = "changed"
        node.name = "n0"  # changed back: equal again, though its source bytes no longer hold
        model.graph.node[8].attribute[0].f = -0.0  # now equal to node 1
    assert _equalities(mine.graph) == _equalities(theirs.graph)
    assert (mine == wirecodec.decode(ModelProto, _bytes(nodes))) is False  # node 8 changed
    assert mine.graph.node[0] == NodeProto.FromString(theirs.graph.node[0].SerializeToString())
    assert (mine.graph.node[0] == NodeProto.FromString(theirs.graph.node[7].SerializeToString())) is False


@pytest.mark.parametrize("nodes", SIZES)
def test_copy_from_a_decoded_node_is_independent_as_onnx(nodes: int) -> None:
    mine, theirs = _pair(nodes)
    for model, node_class in ((mine, NodeProto), (theirs, onnx.NodeProto)):
        graph = model.graph
        copy = node_class()
        copy.CopyFrom(graph.node[5])
        copy.name = "copy"  # the original keeps its name
        copy.attribute[0].f = 9.0
        graph.node[6].CopyFrom(graph.node[5])  # into another element of the same field
        graph.node[5].input[0] = "changed"  # the copies keep theirs
        graph.node.add().CopyFrom(copy)
    assert [(n.name, list(n.input), n.attribute[0].f) for n in mine.graph.node[4:8]] == [
        (n.name, list(n.input), n.attribute[0].f) for n in theirs.graph.node[4:8]
    ]
    assert wirecodec.encode(mine) == theirs.SerializeToString()


@pytest.mark.parametrize("nodes", SIZES)
def test_copy_of_a_message_into_a_part_of_itself(nodes: int) -> None:
    # upb crashes on this one (a segmentation fault), so onnx copies a copy.
    mine, theirs = _pair(nodes)
    body = mine.graph.node[3].attribute.add(name="body", type=5)  # GRAPH
    body.g.CopyFrom(mine.graph)  # the source contains the target
    theirs_body = theirs.graph.node[3].attribute.add(name="body", type=5)
    before = onnx.GraphProto()
    before.CopyFrom(theirs.graph)  # the graph as it is when copied: the body attribute still empty
    theirs_body.g.CopyFrom(before)
    assert wirecodec.encode(mine) == theirs.SerializeToString()


@pytest.mark.parametrize("nodes", SIZES)
def test_copies_of_a_model_decoded_from_a_part_of_a_buffer(nodes: int) -> None:
    # Offsets of such a decode are the part's, not the whole buffer's. A small message is
    # copied slot by slot; the graph, past codec._COPY_FROM_SOURCE_AT bytes, is decoded again
    # from its source bytes, which are read at the part's offsets.
    data = _bytes(nodes)
    theirs = onnx.load_model_from_string(data)
    mine = wirecodec.decode(ModelProto, memoryview(b"padding" + data)[7:])
    copy = NodeProto()
    copy.CopyFrom(mine.graph.node[5])
    assert copy.SerializeToString() == theirs.graph.node[5].SerializeToString()
    assert copy == mine.graph.node[5] and copy is not mine.graph.node[5]
    graph = GraphProto()
    graph.CopyFrom(mine.graph)
    assert graph.SerializeToString() == theirs.graph.SerializeToString()
    assert graph == mine.graph and graph is not mine.graph


def _searches(model: Any, other: Any, node_cls: Any, gone: int) -> list[Any]:
    """index / count / in / remove of a graph's nodes for values reached every way a program
    has: a node of the graph itself, of another decode, a changed one, one built by hand.
    (upb's container has no index or count: onnx's answer is a list's.)"""
    nodes = model.graph.node
    searched = nodes if hasattr(nodes, "index") else list(nodes)
    built = node_cls()
    built.CopyFrom(other.graph.node[22])
    built.name = "n1"  # equal to node 1 (and 22: the first wins)
    values = [nodes[22], other.graph.node[8], other.graph.node[21], built, node_cls()]
    found = []
    for value in values:
        try:
            at: Any = searched.index(value)
        except ValueError:
            at = "absent"
        later = searched.index(value, 3) if value in list(nodes)[3:] else None
        found.append((at, searched.count(value), value in nodes, later))
    nodes.remove(other.graph.node[gone])  # equal to one node: it goes, the others stay
    found.append([*[n.name for n in nodes][:12], len(nodes)])
    return found


@pytest.mark.parametrize("nodes", SIZES)
def test_index_count_and_in_as_onnx(nodes: int) -> None:
    """The searches compare unchanged records by their bytes (no view built): the same
    answers as onnx's, before and after elements change (a change makes a node equal to
    another, or unequal to every other)."""
    mine, theirs = _pair(nodes)
    mine_other, theirs_other = _pair(nodes)
    assert _searches(mine, mine_other, NodeProto, 30) == _searches(theirs, theirs_other, onnx.NodeProto, 30)
    for model in (mine, theirs):
        model.graph.node[8].attribute[0].f = 0.5  # now equal to node 1's value
        model.graph.node[0].name = "unique"
    for other in (mine_other, theirs_other):
        other.graph.node[21].input[0] = "x22"
    assert _searches(mine, mine_other, NodeProto, 33) == _searches(theirs, theirs_other, onnx.NodeProto, 33)


@pytest.mark.parametrize("nodes", SIZES)
def test_search_after_a_held_node_moved_and_changed(nodes: int) -> None:
    """A node held, moved by an insert before it, then changed: searching for its old value
    finds nothing (its record's bytes are no longer what the field holds there)."""
    answers = []
    for model, other, node_cls in (
        (*_pair(nodes), NodeProto),
        (
            onnx.load_model_from_string(_bytes(nodes)),
            onnx.load_model_from_string(_bytes(nodes)),
            onnx.NodeProto,
        ),
    ):
        graph_nodes = model.graph.node
        held = graph_nodes[30]
        if hasattr(graph_nodes, "insert"):
            graph_nodes.insert(0, node_cls())
        else:  # upb has no insert: the same move by hand
            moved = list(graph_nodes)
            del graph_nodes[:]
            graph_nodes.add()
            graph_nodes.extend(moved)
            held = graph_nodes[31]
        held.name = "changed"
        old = other.graph.node[30]
        answers.append((old in graph_nodes, held in graph_nodes, list(graph_nodes).index(held)))
    assert answers[0] == answers[1] == (False, True, 31)
