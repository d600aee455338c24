"""Every reference sees every write (issue 48): the same program run on a graph decoded by
wirecodec and by onnx (protobuf's upb) from the same bytes reads the same values and leaves
the same bytes — on graphs below and above every size threshold of the decoder (records
past 1,024 elements), as a matrix of how an element was reached, how it is changed and how it
is read back."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx

onnx = require_onnx()

# Below the records threshold, and above it (the nodes and value_info become records).
SIZES = (60, 3000)


def _graph_bytes(nodes: int) -> bytes:
    helper = onnx.helper
    made, values = [], []
    for i in range(nodes):
        if i % 10 == 4:  # a node holding two small subgraphs (kept in its record too)
            branches = {
                f"{branch}_branch": helper.make_graph(
                    [helper.make_node("Neg", [f"x{i}"], [f"{branch}{i}"], name=f"{branch}-n{i}")],
                    f"{branch}{i}",
                    [],
                    [helper.make_tensor_value_info(f"{branch}{i}", 1, ["batch", 3])],
                )
                for branch in ("then", "else")
            }
            made.append(helper.make_node("If", ["c"], [f"x{i + 1}"], name=f"n{i}", **branches))
        elif i % 10 == 9:
            tensor = onnx.numpy_helper.from_array(__import__("numpy").arange(4, dtype="int64"), f"c{i}")
            made.append(helper.make_node("Constant", [], [f"x{i + 1}"], name=f"n{i}", value=tensor))
        else:
            made.append(
                helper.make_node(
                    "LeakyRelu", [f"x{i}"], [f"x{i + 1}"], name=f"n{i}", alpha=float(i), doc_string="d"
                )
            )
        values.append(helper.make_tensor_value_info(f"x{i + 1}", 1, ["batch", 3, i + 1]))
    graph = helper.make_graph(made, "g", [], [], value_info=values)
    return bytes(helper.make_model(graph).SerializeToString())


_BYTES: dict[int, bytes] = {}


def _pair(nodes: int) -> tuple[Any, Any]:
    data = _BYTES.get(nodes)
    if data is None:
        data = _BYTES[nodes] = _graph_bytes(nodes)
    return wirecodec.decode(ModelProto, data), onnx.load_model_from_string(data)


def _encoded(model: Any) -> bytes:
    return bytes(model.SerializeToString())


def _node_state(node: Any) -> tuple[Any, ...]:
    attributes = [(a.name, a.f) for a in node.attribute]
    return (node.name, node.op_type, list(node.input), list(node.output), attributes)


AT = 7  # the element the programs hold (a LeakyRelu node with an attribute)
AT_IF = 14  # ... and one holding subgraphs (an If node)

# How the element at ``at`` was reached: (graph, at) -> the node object.
REACH: dict[str, Callable[[Any, int], Any]] = {
    "index": lambda g, at: g.node[at],
    "negative-index": lambda g, at: g.node[at - len(g.node)],
    "slice": lambda g, at: g.node[at : at + 2][0],
    "iteration": lambda g, at: next(n for k, n in enumerate(g.node) if k == at),
    "reversed": lambda g, at: list(reversed(g.node))[len(g.node) - 1 - at],
    "dict-from-walk": lambda g, at: {n.name: n for n in g.node}[f"n{at}"],
}

# What part of it is held: node -> (held object, read of it, write through it).
HELD: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], None]]] = {
    "node": (lambda n: n, _node_state, lambda h: setattr(h, "doc_string", "held")),
    "output-list": (lambda n: n.output, list, lambda h: h.append("held")),
    "attribute": (
        lambda n: n.attribute[0],
        lambda a: (a.name, a.f, a.type),
        lambda a: setattr(a, "f", 99.5),
    ),
    "attribute-list": (
        lambda n: n.attribute,
        lambda h: [(a.name, a.f) for a in h],
        lambda h: h.add(name="added", f=1.0, type=1),
    ),
}


def _fresh(g: Any) -> Any:
    return g.node[AT]


# How the element (or its field) is changed, through another reference.
CHANGE: dict[str, Callable[[Any], Any]] = {
    "field-write": lambda g: setattr(_fresh(g), "name", "Z"),
    "sub-list-item": lambda g: _fresh(g).output.__setitem__(0, "Q"),
    "sub-list-append": lambda g: _fresh(g).output.append("more"),
    "attribute-write": lambda g: setattr(_fresh(g).attribute[0], "f", 2.5),
    "CopyFrom": lambda g: _fresh(g).CopyFrom(g.node[AT + 1]),
    "MergeFrom": lambda g: _fresh(g).MergeFrom(g.node[AT + 1]),
    "ClearField-attribute": lambda g: _fresh(g).ClearField("attribute"),
    "ClearField-name": lambda g: _fresh(g).ClearField("name"),
    "insert-before": lambda g: g.node.insert(0, type(g.node[0])(name="new", op_type="Relu")),
    "add": lambda g: g.node.add(name="added", op_type="Relu"),
    "delete-before": lambda g: g.node.__delitem__(0),
    "delete-slice-before": lambda g: g.node.__delitem__(slice(0, 3)),
    "remove-other": lambda g: g.node.remove(g.node[AT + 1]),
    "sort": lambda g: g.node.sort(key=lambda n: n.name),
    "reverse": lambda g: g.node.reverse(),
    "pop-first": lambda g: g.node.pop(0),
    "pop-last": lambda g: g.node.pop(),
}


def _body_state(graph: Any) -> tuple[Any, ...]:
    return graph.name, [_node_state(n) for n in graph.node], [v.name for v in graph.output]


# The parts of an If node's subgraph a program holds: node -> (held, read, write).
HELD_BODY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], None]]] = {
    "body": (lambda n: n.attribute[0].g, _body_state, lambda h: h.node.add(name="held", op_type="Relu")),
    "body-node": (lambda n: n.attribute[0].g.node[0], _node_state, lambda h: setattr(h, "name", "held")),
    "body-node-outputs": (lambda n: n.attribute[0].g.node[0].output, list, lambda h: h.append("held")),
    "body-output-dims": (
        lambda n: n.attribute[0].g.output[0].type.tensor_type.shape.dim,
        lambda h: [(d.dim_param, d.dim_value) for d in h],
        lambda h: h.add(dim_value=5),
    ),
}


def _fresh_body(g: Any) -> Any:
    return g.node[AT_IF].attribute[0].g


def _body_dim(g: Any) -> Any:
    return _fresh_body(g).output[0].type.tensor_type.shape.dim[0]


# Changes through another reference, at or around the If node and inside its subgraph.
CHANGE_BODY: dict[str, Callable[[Any], Any]] = {
    "body-node-write": lambda g: setattr(_fresh_body(g).node[0], "name", "Z"),
    "body-node-output-item": lambda g: _fresh_body(g).node[0].output.__setitem__(0, "Q"),
    "body-node-add": lambda g: _fresh_body(g).node.add(name="added", op_type="Relu"),
    "body-name": lambda g: setattr(_fresh_body(g), "name", "renamed"),
    "body-dim-write": lambda g: setattr(
        _fresh_body(g).output[0].type.tensor_type.shape.dim[0], "dim_param", "B"
    ),
    "body-CopyFrom": lambda g: _fresh_body(g).CopyFrom(g.node[AT_IF + 10].attribute[1].g),
    "attribute-ClearField-g": lambda g: g.node[AT_IF].attribute[0].ClearField("g"),
    "node-ClearField-attribute": lambda g: g.node[AT_IF].ClearField("attribute"),
    "node-CopyFrom": lambda g: g.node[AT_IF].CopyFrom(g.node[AT_IF + 10]),
    "field-write": CHANGE["field-write"],
    "delete-before": CHANGE["delete-before"],
    "sort": CHANGE["sort"],
    "reverse": CHANGE["reverse"],
}


def _run(
    model: Any, reach: str, held: str, change: str, *, at: int = AT, body: bool = False
) -> tuple[Any, ...]:
    g = model.graph
    node = REACH[reach](g, at)
    take, read, write = (HELD_BODY if body else HELD)[held]
    part = take(node)
    before = read(part)
    (CHANGE_BODY if body else CHANGE)[change](g)
    after_change = read(part)
    write(part)
    after_write = read(part)
    return before, after_change, after_write, _encoded(model)


@pytest.mark.parametrize("nodes", SIZES)
@pytest.mark.parametrize("reach", sorted(REACH))
@pytest.mark.parametrize("held", sorted(HELD))
def test_every_reference_sees_every_write(nodes: int, reach: str, held: str) -> None:
    failures = []
    for change in CHANGE:
        mine, theirs = _pair(nodes)
        try:
            got: Any = _run(mine, reach, held, change)
        except Exception as error:  # an exception is a wrong answer here: onnx raises none
            got = f"{type(error).__name__}: {error}"
        expected = _run(theirs, reach, held, change)
        if got != expected:
            failures.append(change)
    assert not failures, f"differ from onnx after: {failures}"


@pytest.mark.parametrize("nodes", SIZES)
@pytest.mark.parametrize("reach", sorted(REACH))
@pytest.mark.parametrize("held", sorted(HELD_BODY))
def test_every_reference_into_a_subgraph_sees_every_write(nodes: int, reach: str, held: str) -> None:
    # Above the threshold the If node is a record too, its subgraphs built with its view.
    failures = []
    for change in CHANGE_BODY:
        mine, theirs = _pair(nodes)
        try:
            got: Any = _run(mine, reach, held, change, at=AT_IF, body=True)
        except Exception as error:  # an exception is a wrong answer here: onnx raises none
            got = f"{type(error).__name__}: {error}"
        expected = _run(theirs, reach, held, change, at=AT_IF, body=True)
        if got != expected:
            failures.append(change)
    assert not failures, f"differ from onnx after: {failures}"


# Changing the field while iterating it: protobuf's container iterates by index.
LOOPS: dict[str, Callable[[Any], Any]] = {
    "remove-while-iterating": lambda g: [g.node.remove(n) for n in g.node if n.op_type == "Constant"],
    "delete-while-iterating": lambda g: [g.node.__delitem__(0) for k, _ in enumerate(g.node) if k % 50 == 0],
    "append-while-iterating": lambda g: [
        g.node.add(name=f"a{k}") for k, _ in enumerate(itertools.islice(g.node, 5))
    ],
    "insert-while-iterating": lambda g: [
        g.node.insert(0, type(n)(name=f"i{k}")) for k, n in enumerate(itertools.islice(g.node, 3))
    ],
    "reversed-while-shrinking": lambda g: [(n.name, g.node.pop()) and n.name for n in reversed(g.node)][:10],
    "iter-then-add": lambda g: (lambda it: (next(it).name, g.node.add(name="x") and None, next(it).name))(
        iter(g.node)
    ),
}


@pytest.mark.parametrize("nodes", SIZES)
@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_changing_the_field_while_iterating_it(nodes: int, loop: str) -> None:
    mine, theirs = _pair(nodes)
    expected = LOOPS[loop](theirs.graph)
    expected_names = [n.name for n in theirs.graph.node]
    got = LOOPS[loop](mine.graph)
    assert [n.name for n in mine.graph.node] == expected_names
    assert [getattr(v, "name", v) for v in got] == [getattr(v, "name", v) for v in expected]
    assert _encoded(mine) == _encoded(theirs)


@pytest.mark.parametrize("nodes", SIZES)
def test_two_references_read_at_different_times_are_one_object(nodes: int) -> None:
    mine, _ = _pair(nodes)
    a, b = mine.graph.node[5], mine.graph.node[5]
    assert a is b
    a.name = "A"
    b.name = "B"
    assert a.name == "B"
    d = mine.graph.value_info[30].type.tensor_type.shape.dim[0]
    mine.graph.value_info[30].type.tensor_type.shape.dim[0].dim_param = "N"
    assert d.dim_param == "N"


@pytest.mark.parametrize("nodes", SIZES)
def test_container_comparisons_as_onnx(nodes: int) -> None:
    mine, theirs = _pair(nodes)
    for model in (mine, theirs):
        model.graph.node[3].name = "changed"
    assert (mine.graph.node == tuple(mine.graph.node)) == (theirs.graph.node == tuple(theirs.graph.node))
    assert (mine.graph.node == list(mine.graph.node)[:-1]) is False
    assert mine.graph.node == list(mine.graph.node)
    assert (mine.graph.node[2] in mine.graph.node) is True


@pytest.mark.parametrize("nodes", SIZES)
def test_pop_out_of_range_warns_as_protobuf(nodes: int) -> None:
    mine, theirs = _pair(nodes)
    with pytest.warns(FutureWarning):
        got = mine.graph.node.pop(10**6)
    with pytest.warns(FutureWarning):
        expected = theirs.graph.node.pop(10**6)
    assert got.name == expected.name
    assert _encoded(mine) == _encoded(theirs)


def test_the_large_graph_is_past_the_records_threshold() -> None:
    # Otherwise the matrix above tests one representation twice.
    from schema_dsl.views import RecordContainer

    small, _ = _pair(SIZES[0])
    large, _ = _pair(SIZES[-1])
    assert not isinstance(small.graph.node, RecordContainer)
    assert isinstance(large.graph.node, RecordContainer)
    assert isinstance(large.graph.value_info, RecordContainer)
    # ... and the If nodes are records there, not messages the decoder built.
    assert type(list.__getitem__(large.graph.node, AT_IF)) is not type(large.graph.node[AT_IF])


@pytest.mark.parametrize("kind", ["bytearray", "writable-memoryview", "numpy"])
def test_a_buffer_assigned_is_copied_never_the_callers(kind: str) -> None:
    import numpy

    from schema_dsl.onnx import TensorProto

    buffer = bytearray(b"abcd")
    value: Any = {
        "bytearray": buffer,
        "writable-memoryview": memoryview(buffer),
        "numpy": numpy.frombuffer(buffer, dtype=numpy.uint8),
    }[kind]
    tensor = TensorProto()
    tensor.raw_data = value
    buffer[0] = 0  # the caller changes its buffer afterwards
    assert bytes(tensor.raw_data) == b"abcd"
    with pytest.raises(TypeError):
        onnx.TensorProto().raw_data = value  # onnx refuses these; we take a copy


def test_parsing_takes_what_protobuf_takes() -> None:
    import numpy

    data = onnx.ModelProto(ir_version=3).SerializeToString()
    for accepted in (data, bytearray(data), memoryview(data)):
        assert ModelProto.FromString(accepted).ir_version == onnx.ModelProto.FromString(accepted).ir_version
    for refused in (numpy.frombuffer(data, dtype=numpy.uint8), __import__("array").array("b", data)):
        with pytest.raises(TypeError) as theirs:
            onnx.ModelProto.FromString(refused)
        with pytest.raises(TypeError) as mine:
            ModelProto.FromString(refused)
        assert str(mine.value) == str(theirs.value)


def test_an_unset_sub_message_is_of_its_class() -> None:
    from schema_dsl.onnx import GraphProto, TypeProto

    handlers = {GraphProto: "graph", TypeProto: "type"}
    model = ModelProto()
    assert handlers[type(model.graph)] == "graph"  # code that dispatches on type(value)
    assert type(onnx.ModelProto().graph) is onnx.GraphProto
    graph = model.graph
    assert not model.HasField("graph")
    graph.node.add(name="n")  # the first write attaches it, as protobuf's
    assert model.HasField("graph") and model.graph is graph
    other = ModelProto()
    other_graph = other.graph
    other_graph.name = "g"  # a field write attaches it too
    assert other.HasField("graph") and other.graph.name == "g"
    value_type = other.graph.input.add().type
    shape = value_type.tensor_type.shape  # two unset levels below a present element
    shape.dim.add(dim_value=3)
    assert value_type.HasField("tensor_type") and value_type.tensor_type.shape.dim[0].dim_value == 3


def test_records_are_a_per_call_choice_that_reads_the_same() -> None:
    from schema_dsl.views import RecordContainer

    data = _BYTES.get(SIZES[-1]) or _graph_bytes(SIZES[-1])
    kept = wirecodec.decode(ModelProto, data)
    built = wirecodec.decode(ModelProto, data, records=False)
    assert isinstance(kept.graph.node, RecordContainer)
    assert not isinstance(built.graph.node, RecordContainer)
    for model in (kept, built):
        CHANGE["sort"](model.graph)
        CHANGE["CopyFrom"](model.graph)
    assert _encoded(kept) == _encoded(built)
