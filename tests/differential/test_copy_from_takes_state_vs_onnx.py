"""``CopyFrom`` takes the fresh copy's state whole (slots, presence, extras): what the copy
still holds beside its fields comes along — unknown fields, elements still waiting to be
decoded, a tensor's bytes — and what the message held before is gone, side by side with onnx."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto
from tests.support.reference import require_onnx

onnx = require_onnx()


def _graph_bytes(nodes: int) -> bytes:
    helper = onnx.helper
    made = [helper.make_node("Relu", [f"x{i}"], [f"x{i + 1}"], name=f"n{i}") for i in range(nodes)]
    weight = onnx.numpy_helper.from_array(__import__("numpy").arange(6, dtype="float32"), "w")
    graph = helper.make_graph(made, "g", [], [], initializer=[weight])
    return bytes(graph.SerializeToString())


@pytest.mark.parametrize("nodes", [3, 40, 1500])  # eager; small elements left waiting; records
def test_copied_graph_reads_and_encodes_as_onnx(nodes: int) -> None:
    data = _graph_bytes(nodes)
    mine, theirs = GraphProto(), onnx.GraphProto()
    for graph in (mine, theirs):  # gone after the copy, in both
        graph.node.add().name = "before"
        graph.value_info.add().name = "only before"  # a field the copy does not have
        graph.doc_string = "only before"
    held = mine.node
    mine.CopyFrom(wirecodec.decode(GraphProto, data))
    theirs.CopyFrom(onnx.GraphProto.FromString(data))
    assert [n.name for n in mine.node] == [n.name for n in theirs.node]
    assert (len(mine.value_info), mine.doc_string) == (len(theirs.value_info), theirs.doc_string) == (0, "")
    listed = [spec.name for spec, _ in mine.ListFields()]
    assert listed and listed == [spec.name for spec, _ in theirs.ListFields()]
    assert len(held) == 1 and held[0].name == "before"  # the old container is not the new field
    assert mine.SerializeToString() == theirs.SerializeToString() == data
    mine.node[1].output[0] = "changed"
    theirs.node[1].output[0] = "changed"
    assert mine.SerializeToString() == theirs.SerializeToString()


def _with_unknown_field() -> bytes:
    node = onnx.helper.make_node("Relu", ["x"], ["y"], name="n")
    # field 99, wire type 2: a length-delimited record neither schema knows
    return bytes(node.SerializeToString()) + b"\x9a\x06\x03abc"


def test_unknown_fields_come_along_and_old_ones_go() -> None:
    data = _with_unknown_field()
    results: list[Any] = []
    for cls in (NodeProto, onnx.NodeProto):
        target = cls.FromString(data)  # holds unknown fields of its own before the copy
        target.CopyFrom(cls.FromString(bytes(onnx.helper.make_node("Abs", ["a"], ["b"]).SerializeToString())))
        first = target.SerializeToString()
        target.CopyFrom(cls.FromString(data))
        results.append((bytes(first), bytes(target.SerializeToString())))
    assert results[0] == results[1]
    assert results[0][1] == data


def test_copy_into_a_held_node_of_a_model() -> None:
    node_bytes = bytes(onnx.helper.make_node("Relu", ["p"], ["q"], name="other").SerializeToString())
    graph = _graph_bytes(1500)
    model_bytes = bytes(onnx.helper.make_model(onnx.GraphProto.FromString(graph)).SerializeToString())
    seen = []
    for model, cls in (
        (wirecodec.decode(ModelProto, model_bytes), NodeProto),
        (onnx.load_model_from_string(model_bytes), onnx.NodeProto),
    ):
        held = model.graph.node[7]
        model.graph.node[7].CopyFrom(cls.FromString(node_bytes))
        held.input.append("extra")  # through the held reference, after the copy
        seen.append((held.name, list(held.input), bytes(model.SerializeToString())))
    assert seen[0] == seen[1]


def _built(helper: Any, numpy_helper: Any) -> Any:
    """A model built by hand (no source bytes: copied slot by slot), with sub-messages at
    every depth: a tensor attribute, value types, a subgraph."""
    import numpy

    tensor = numpy_helper.from_array(numpy.arange(4, dtype="float32").reshape(2, 2), "c")
    body = helper.make_graph([helper.make_node("Identity", ["c"], ["o"])], "body", [], [])
    nodes = [
        helper.make_node("Constant", [], ["c"], name="const", value=tensor),
        helper.make_node("If", ["cond"], ["o"], name="if", then_branch=body, else_branch=body),
    ]
    info = [helper.make_tensor_value_info("c", 1, ["N", 2])]
    return helper.make_model(helper.make_graph(nodes, "g", [], [], value_info=info))


def test_copies_of_built_messages_are_deep_as_onnx() -> None:
    results = []
    for library in (wirecodec, onnx):
        model = _built(library.helper, library.numpy_helper)
        original = bytes(model.SerializeToString())
        copies = [copy.copy(model), type(model)()]
        copies[1].CopyFrom(model)
        for made in copies:
            made.graph.node[0].attribute[0].t.dims[0] = 9  # a message inside a message
            made.graph.value_info[0].type.tensor_type.elem_type = 7
            made.graph.node[1].attribute[0].g.node[0].op_type = "Neg"  # inside a subgraph
            made.graph.node.add().name = "added"
        assert bytes(model.SerializeToString()) == original  # the original is untouched
        results.append([bytes(made.SerializeToString()) for made in copies])
    assert results[0] == results[1]
