"""Reading an unset sub-message field, side by side with onnx's classes (upb).

A walk over a graph reads ``attr.g`` and ``attr.graphs`` of every attribute
(onnxconverter-common's ``sort_topology``), so that first read is made cheap
(schema_dsl.presence._stub); these pin that it still means what protobuf's does: the
read gives an empty message of the field's class, the same object every time, no
presence; a write through it (a scalar, a list, a nested child) makes the field present
in its parent and everything above; ``ClearField`` cuts the link. Each case runs on a
message built here and on one decoded from bytes (a node of a model, as a user's loop
sees it), and ends comparing the bytes both libraries write.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import schema_dsl.onnx as ours
from tests.support.decode_modes import MODES, DecodeMode
from tests.support.reference import require_onnx
from wirecodec.protobuf.codec import decode

onnx = require_onnx()

# (class, singular message field) of every such field of every class onnx has
FIELDS = sorted(
    (name, field.name)
    for name in dir(ours)
    if isinstance(getattr(ours, name), type)
    and hasattr(getattr(ours, name), "__schema__")
    and hasattr(onnx, name)
    for field in getattr(onnx, name).DESCRIPTOR.fields
    if field.message_type is not None and not field.is_repeated
)


def _pair(cls_name: str, decoded: bool) -> tuple[Any, Any]:
    theirs = getattr(onnx, cls_name)()
    mine = getattr(ours, cls_name)()
    if decoded:  # (an empty message's bytes, b"": decoded all the same)
        mine = decode(getattr(ours, cls_name), theirs.SerializeToString())
    return mine, theirs


def _same_bytes(mine: Any, theirs: Any) -> None:
    assert mine.SerializeToString() == theirs.SerializeToString()


def _first_scalar(descriptor: Any) -> str | None:
    for field in descriptor.fields:
        if field.message_type is None and not field.is_repeated and field.type == field.TYPE_STRING:
            return str(field.name)
    return None


@pytest.mark.parametrize("decoded", [False, True], ids=["built", "decoded"])
@pytest.mark.parametrize(("cls_name", "field"), FIELDS)
def test_a_read_is_an_empty_message_of_the_fields_class_and_the_same_one_each_time(
    cls_name: str, field: str, decoded: bool
) -> None:
    mine, theirs = _pair(cls_name, decoded)
    first, their_first = getattr(mine, field), getattr(theirs, field)
    assert type(first).__name__ == type(their_first).__name__
    assert type(first) is getattr(ours, cls_name).__schema__.by_name[field].message_type
    assert (first is getattr(mine, field)) == (their_first is getattr(theirs, field)) is True
    assert first.ListFields() == [] and their_first.ListFields() == []
    assert mine.HasField(field) == theirs.HasField(field) is False
    _same_bytes(mine, theirs)


@pytest.mark.parametrize("decoded", [False, True], ids=["built", "decoded"])
@pytest.mark.parametrize(("cls_name", "field"), FIELDS)
def test_a_write_through_the_read_object_sets_the_field(cls_name: str, field: str, decoded: bool) -> None:
    mine, theirs = _pair(cls_name, decoded)
    child, their_child = getattr(mine, field), getattr(theirs, field)
    name = _first_scalar(their_child.DESCRIPTOR)
    if name is None:  # no string field: the child's presence alone is written
        child.SetInParent()
        their_child.SetInParent()
    else:
        setattr(child, name, "x")
        setattr(their_child, name, "x")
    assert mine.HasField(field) == theirs.HasField(field) is True
    assert getattr(mine, field) is child and (getattr(theirs, field) is their_child)
    _same_bytes(mine, theirs)


ATTRIBUTE_WRITES: dict[str, Callable[[Any], None]] = {
    "name": lambda attr: setattr(attr.g, "name", "x"),
    "a node added to its list": lambda attr: attr.g.node.add(),
    "an appended input name": lambda attr: attr.g.node.add().input.append("a"),
    "a grandchild": lambda attr: setattr(attr.g.node.add().attribute.add().t, "name", "w"),
    "a grandchild's own unset child": lambda attr: setattr(
        attr.g.output.add().type.tensor_type, "elem_type", 1
    ),
    "a list read, then written": lambda attr: (attr.g.node, attr.g.initializer.add()),
}


# a model built here, or decoded in each of the codec's modes ("records": every node a view
# of its record, rebuilt on each read, whose children share their family's extras)
SOURCES: tuple[DecodeMode | None, ...] = (None, *MODES)
SOURCE_IDS = ["built", *(mode.name for mode in MODES)]


def _node_pair(source: DecodeMode | None) -> tuple[Any, Any]:
    """A model whose one node has a graph attribute with no graph in it (as a loop over a
    model reads it): built on both sides, or ours decoded from onnx's bytes."""
    their_node = onnx.NodeProto(op_type="If", input=["c"], output=["y"])
    their_node.attribute.add(name="then_branch", type=onnx.AttributeProto.GRAPH)
    theirs = onnx.ModelProto(graph=onnx.GraphProto(node=[their_node]))
    if source is not None:
        return source.decode(ours.ModelProto, theirs.SerializeToString()), theirs
    attr = ours.AttributeProto(name="then_branch", type=ours.AttributeProto.GRAPH)
    node = ours.NodeProto(op_type="If", input=["c"], output=["y"], attribute=[attr])
    return ours.ModelProto(graph=ours.GraphProto(node=[node])), theirs


@pytest.mark.parametrize("source", SOURCES, ids=SOURCE_IDS)
@pytest.mark.parametrize("write", sorted(ATTRIBUTE_WRITES))
def test_writes_through_an_attributes_unset_graph(write: str, source: DecodeMode | None) -> None:
    mine, theirs = _node_pair(source)
    attr, their_attr = mine.graph.node[0].attribute[0], theirs.graph.node[0].attribute[0]
    assert attr.HasField("g") == their_attr.HasField("g") is False
    assert (len(attr.graphs), len(attr.g.node)) == (len(their_attr.graphs), len(their_attr.g.node)) == (0, 0)
    assert attr.HasField("g") == their_attr.HasField("g") is False  # reads set nothing
    _same_bytes(mine, theirs)
    ATTRIBUTE_WRITES[write](attr)
    ATTRIBUTE_WRITES[write](their_attr)
    assert attr.HasField("g") == their_attr.HasField("g")
    assert type(attr.g) is ours.GraphProto
    _same_bytes(mine, theirs)


@pytest.mark.parametrize("source", SOURCES, ids=SOURCE_IDS)
def test_clear_field_cuts_the_link_of_a_held_read(source: DecodeMode | None) -> None:
    mine, theirs = _node_pair(source)
    attr, their_attr = mine.graph.node[0].attribute[0], theirs.graph.node[0].attribute[0]
    held, their_held = attr.g, their_attr.g
    attr.ClearField("g")
    their_attr.ClearField("g")
    held.name = "late"
    their_held.name = "late"
    assert attr.HasField("g") == their_attr.HasField("g") is False
    assert (attr.g is held) == (their_attr.g is their_held) is False
    _same_bytes(mine, theirs)


@pytest.mark.parametrize("mode", MODES, ids=[mode.name for mode in MODES])
def test_every_attribute_of_a_decoded_model_reads_alike(mode: DecodeMode) -> None:
    """A walk as onnxconverter-common's: ``attr.g`` and ``attr.graphs`` of every attribute
    of a decoded model with bodies, read twice; nothing becomes present, the bytes stay."""
    cond = onnx.helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, [])
    body = onnx.helper.make_graph([onnx.helper.make_node("Identity", ["c"], ["o"])], "b", [], [cond])
    nodes = [
        onnx.helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body),
        onnx.helper.make_node("Relu", ["y"], ["z"], name="r"),
        onnx.helper.make_node("Concat", ["z", "z"], ["w"], axis=0),
    ]
    theirs = onnx.helper.make_model(onnx.helper.make_graph(nodes, "g", [cond], []))
    data = theirs.SerializeToString()
    mine = mode.decode(ours.ModelProto, data)

    def walk(graph: Any) -> list[tuple[str, bool, str, int]]:
        seen = []
        for node in graph.node:
            for attr in node.attribute:
                seen.append((attr.name, attr.HasField("g"), type(attr.g).__name__, len(attr.g.node)))
                if len(attr.g.node):
                    seen += walk(attr.g)
                for g in attr.graphs:
                    seen += walk(g)
        return seen

    assert walk(mine.graph) == walk(theirs.graph)
    assert walk(mine.graph) == walk(theirs.graph)
    assert mode.encode(mine) == theirs.SerializeToString() == data
