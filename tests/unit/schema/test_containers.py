"""Repeated fields behave like protobuf's repeated containers, judged by the onnx package.

Every scenario runs on a ``schema_dsl.onnx`` message and on the onnx (protobuf) message of
the same name; the two must end with the same bytes and fail with the same exception type.
"""

from __future__ import annotations

import copy
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wirecodec
from schema_dsl import onnx as ours
from schema_dsl.containers import RepeatedCompositeFieldContainer, RepeatedScalarFieldContainer

onnx = pytest.importorskip("onnx")


def both(scenario: Callable[[Any], Any]) -> tuple[Any, Any]:
    """Run ``scenario`` on our module and on onnx; return (ours, theirs) results or exception types."""
    results = []
    for module in (ours, onnx):
        try:
            results.append(scenario(module))
        except Exception as exc:  # the type is what is compared
            results.append(type(exc))
    return results[0], results[1]


def same_bytes(mine: Any, theirs: Any) -> None:
    assert wirecodec.encode(mine) == theirs.SerializeToString()


# -- the bug of the issue: append stored a reference --------------------------------------


def test_appending_one_template_three_times_gives_three_nodes() -> None:
    def scenario(m: Any) -> Any:
        graph, template = m.GraphProto(), m.NodeProto(op_type="Relu")
        for name in ("a", "b", "c"):
            template.name = name
            graph.node.append(template)
        template.name = "changed after"
        return graph

    mine, theirs = both(scenario)
    assert [n.name for n in mine.node] == ["a", "b", "c"]
    same_bytes(mine, theirs)


def test_extend_and_insert_copy_too() -> None:
    def scenario(m: Any) -> Any:
        graph, node = m.GraphProto(), m.NodeProto(name="x", input=["i"])
        graph.node.extend([node, node])
        graph.node.insert(1, node)
        node.input.append("later")
        node.name = "y"
        graph.node[0].name = "first"
        return graph

    mine, theirs = both(scenario)
    assert [n.name for n in mine.node] == ["first", "x", "x"]
    assert all(list(n.input) == ["i"] for n in mine.node)
    same_bytes(mine, theirs)


def test_add_builds_in_place_and_returns_the_element() -> None:
    def scenario(m: Any) -> Any:
        model = m.ModelProto()
        entry = model.metadata_props.add(key="k", value="v")
        entry.value = "changed through the returned element"
        node = model.graph.node.add(op_type="Add", input=["a", "b"])
        node.attribute.add(name="alpha", f=0.5, type=m.AttributeProto.FLOAT)
        return model

    mine, theirs = both(scenario)
    assert mine.metadata_props[0].value == "changed through the returned element"
    assert mine.HasField("graph")
    same_bytes(mine, theirs)


def test_add_with_a_wrong_field_name_fails_like_protobuf() -> None:
    mine, theirs = both(lambda m: m.GraphProto().node.add(nme="x"))
    assert theirs is ValueError and issubclass(mine, ValueError)


@pytest.mark.parametrize(
    "scenario",
    [
        lambda m: m.GraphProto().node.append(m.AttributeProto()),
        lambda m: m.GraphProto().node.append({}),
        lambda m: m.GraphProto().node.extend([1]),
        lambda m: m.GraphProto().node.extend("ab"),
        lambda m: m.GraphProto(node=[m.NodeProto()]).node.__setitem__(0, m.NodeProto()),
        lambda m: m.NodeProto().input.append(3),
        lambda m: m.NodeProto().input.insert(0, 3),
        lambda m: m.TensorProto().float_data.append("1"),
        lambda m: m.TensorProto().int64_data.append(1.0),
        lambda m: m.TensorProto().int64_data.append(True),
        lambda m: m.TensorProto().int64_data.append(2**63),
        lambda m: m.TensorProto().int32_data.append(2**31),
        lambda m: m.TensorProto().dims.extend([1, "2"]),
        lambda m: m.TensorProto().string_data.append("text"),
    ],
)
def test_refused_elements_fail_like_protobuf(scenario: Callable[[Any], Any]) -> None:
    mine, theirs = both(scenario)
    assert isinstance(mine, type) and isinstance(theirs, type), (mine, theirs)
    assert issubclass(mine, theirs) or issubclass(theirs, mine), (mine, theirs)


def test_a_refused_element_names_the_field_and_changes_nothing() -> None:
    node = ours.NodeProto(input=["a"])
    with pytest.raises(TypeError, match=r"NodeProto\.input: expected str, got int"):
        node.input.extend(["b", 3])
    with pytest.raises(TypeError, match=r"NodeProto\.input"):
        node.input[0:1] = ["c", 4]
    assert list(node.input) == ["a"]


def test_scalar_elements_are_converted_as_protobuf_converts_them() -> None:
    def scenario(m: Any) -> Any:
        t = m.TensorProto()
        t.float_data.append(0.1)  # rounds to float32
        t.float_data.extend([1, np.float32(2.5)])
        t.int64_data.append(np.int64(5))
        t.int32_data.extend(np.array([1, 2], dtype=np.int32))
        t.dims.extend(np.array([3, 4], dtype=np.int64))
        t.string_data.append(b"abc")
        n = m.NodeProto()
        n.input.append(b"utf8 bytes")
        return t, n

    (t, n), (pt, pn) = both(scenario)
    assert list(t.float_data) == list(pt.float_data) == [0.10000000149011612, 1.0, 2.5]
    assert [type(x) for x in t.int64_data] == [int]
    assert list(n.input) == ["utf8 bytes"]
    same_bytes(t, pt)
    same_bytes(n, pn)


def test_reading_and_removing() -> None:
    def scenario(m: Any) -> Any:
        g = m.GraphProto()
        for name in "abcde":
            g.node.add(name=name)
        sliced = [n.name for n in g.node[1:3]]
        g.node.remove(m.NodeProto(name="b"))  # by equality, as protobuf
        popped = g.node.pop().name
        first = g.node.pop(0).name
        del g.node[0]
        g.node.add(name="z")
        g.node.add(name="y")
        g.node.sort(key=lambda n: n.name)
        g.node.reverse()
        del g.node[1:]
        n = m.NodeProto(input=["a", "b", "c", "d"])
        n.input[0] = "A"
        n.input[1:3] = ["B", "C", "X"]
        n.input.remove("X")
        del n.input[-1]
        n.input.sort(reverse=True)
        return sliced, popped, first, g, n, type(g.node[0:1]) is list

    mine, theirs = both(scenario)
    assert mine[:3] == theirs[:3] == (["b", "c"], "e", "a")
    same_bytes(mine[3], theirs[3])
    same_bytes(mine[4], theirs[4])
    assert mine[5] and theirs[5]


def test_removing_what_is_not_there_is_a_value_error() -> None:
    mine, theirs = both(lambda m: m.GraphProto().node.remove(m.NodeProto(name="zzz")))
    assert mine is theirs is ValueError
    mine, theirs = both(lambda m: m.NodeProto().input.remove("x"))
    assert mine is theirs is ValueError


def test_merge_from_on_a_container_copies() -> None:
    def scenario(m: Any) -> Any:
        g, node = m.GraphProto(), m.NodeProto(name="n")
        g.node.MergeFrom([node])
        node.name = "changed"
        n = m.NodeProto()
        n.input.MergeFrom(["a", "b"])
        return g, n

    (g, n), (pg, pn) = both(scenario)
    same_bytes(g, pg)
    same_bytes(n, pn)


def test_writes_through_a_container_of_a_detached_message_reach_the_model() -> None:
    def scenario(m: Any) -> Any:
        model = m.ModelProto()
        inputs = model.graph.node  # taken before anything is written
        node = inputs.add(op_type="Relu")
        again = model.graph.node
        node.input.append("x")
        return model, again is inputs or list(again) == list(inputs)

    (mine, same), (theirs, their_same) = both(scenario)
    assert same and their_same
    assert mine.HasField("graph")
    same_bytes(mine, theirs)


def test_containers_of_decoded_messages_are_containers() -> None:
    model = ours.ModelProto()
    model.graph.node.add(op_type="Relu", input=["x"])
    model.graph.initializer.add(name="w", dims=[2], float_data=[1.0, 2.0])
    decoded = wirecodec.decode(ours.ModelProto, wirecodec.encode(model))
    assert isinstance(decoded.graph.node, RepeatedCompositeFieldContainer)
    assert isinstance(decoded.graph.node[0].input, RepeatedScalarFieldContainer)
    assert isinstance(decoded.graph.initializer[0].float_data, RepeatedScalarFieldContainer)
    with pytest.raises(TypeError, match=r"NodeProto\.input"):
        decoded.graph.node[0].input.append(1)  # type: ignore[arg-type]
    template = decoded.graph.node[0]
    decoded.graph.node.append(template)
    template.op_type = "Sigmoid"
    assert [n.op_type for n in decoded.graph.node] == ["Sigmoid", "Relu"]


def test_copies_and_pickles_keep_working() -> None:
    g = ours.GraphProto(name="g")
    g.node.add(name="a", input=["x"])
    parsed = ours.GraphProto.FromString(g.SerializeToString())
    for clone in (copy.deepcopy(g), pickle.loads(pickle.dumps(g)), parsed):
        assert clone == g
        assert isinstance(clone.node, RepeatedCompositeFieldContainer)
        clone.node.add(name="b")
        assert len(g.node) == 1
    assert copy.copy(g.node) == list(g.node) and type(copy.copy(g.node)) is list


def test_assigning_a_list_copies_its_messages() -> None:
    node = ours.NodeProto(name="n")
    graph = ours.GraphProto(node=[node])
    node.name = "changed"
    assert graph.node[0].name == "n"
    assert isinstance(graph.node, RepeatedCompositeFieldContainer)


def test_in_place_multiplication_is_refused() -> None:
    node = ours.NodeProto(input=["a"])
    with pytest.raises(TypeError, match=r"NodeProto\.input"):
        node.input *= 2
    assert list(node.input) == ["a"]


# -- generated sequences of container operations, side by side with protobuf -------------

_NAMES = st.sampled_from(["a", "b", "c"])
_OPS = st.one_of(
    st.tuples(st.just("add"), _NAMES),
    st.tuples(st.just("append"), _NAMES),
    st.tuples(st.just("extend"), st.lists(_NAMES, max_size=3)),
    st.tuples(st.just("insert"), st.integers(-3, 3), _NAMES),
    st.tuples(st.just("pop"), st.integers(-3, 2)),
    st.tuples(st.just("del"), st.integers(-3, 2), st.integers(-3, 3)),
    st.tuples(st.just("remove"), _NAMES),
    st.tuples(st.just("rename_template"), _NAMES),
    st.tuples(st.just("rename_element"), st.integers(-3, 2), _NAMES),
    st.tuples(st.just("input_append"), _NAMES),
    st.tuples(st.just("input_set"), st.integers(-3, 2), _NAMES),
    st.tuples(st.just("clear")),
)


def _apply(m: Any, ops: list[tuple[Any, ...]]) -> list[Any]:
    graph, template = m.GraphProto(), m.NodeProto(name="t")
    trace: list[Any] = []
    for op in ops:
        try:
            kind = op[0]
            if kind == "add":
                graph.node.add(name=op[1])
            elif kind == "append":
                template.name = op[1]
                graph.node.append(template)
            elif kind == "extend":
                graph.node.extend([m.NodeProto(name=n) for n in op[1]])
            elif kind == "insert":
                graph.node.insert(op[1], template)
            elif kind == "pop":
                if not -len(graph.node) <= op[1] < len(graph.node):
                    raise IndexError  # upb 7.36 answers SystemError here, a bug of its own
                trace.append(graph.node.pop(op[1]).name)
            elif kind == "del":
                del graph.node[op[1] : op[2]]
            elif kind == "remove":
                graph.node.remove(m.NodeProto(name=op[1]))
            elif kind == "rename_template":
                template.name = op[1]
            elif kind == "rename_element":
                graph.node[op[1]].name = op[2]
            elif kind == "input_append":
                template.input.append(op[1])
            elif kind == "input_set":
                template.input[op[1]] = op[2]
            elif kind == "clear":
                del graph.node[:]
            trace.append(None)
        except (IndexError, ValueError) as exc:
            trace.append(type(exc).__name__)
        trace.append(graph.SerializeToString())
    return trace


@settings(max_examples=150, deadline=None)
@given(st.lists(_OPS, max_size=12))
def test_generated_container_sequences_match_protobuf(ops: list[tuple[Any, ...]]) -> None:
    assert _apply(ours, ops) == _apply(onnx, ops)
