"""Re-emitted source bytes (wirecodec.protobuf.origin) against protobuf, change by change.

A decoded message whose bytes are canonical encodes as its own slice of the input until
something in it changes. The oracle is upb: the same model is parsed by both libraries,
the same random changes are made to both through the API they share (assignment,
containers, ClearField, Clear, MergeFrom, CopyFrom, detached children, ParseFromString),
and after every change the encodings must be identical, with source reuse on and off.
Inputs are the onnx package's backend test models and PyTorch exports, none written here.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

import wirecodec
from schema_dsl import Kind, Message
from schema_dsl.fields import FieldSpec
from schema_dsl.message import copy_message
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, TensorShapeProto
from tests.support.decode_modes import EVERY_ELEMENT
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, message_class, pb_class
from wirecodec.protobuf.codec import encode_chunks
from wirecodec.protobuf.lazy import waiting_fields

Path = tuple[tuple[str, int | None], ...]


def _both_encodings(mine: Message) -> tuple[bytes, bytes]:
    reused = wirecodec.encode(mine)
    walked = wirecodec.encode(mine, reuse_source=False)
    return reused, walked


def _paths(message: Message, path: Path = ()) -> Iterator[tuple[Path, Message]]:
    """Every message in the tree with the fields and indexes that lead to it."""
    yield path, message
    for spec, value in message.ListFields():
        if spec.kind is not Kind.MESSAGE:
            continue
        if spec.repeated:
            for i, child in enumerate(value):
                yield from _paths(child, (*path, (spec.name, i)))
        else:
            yield from _paths(value, (*path, (spec.name, None)))


def _follow(root: Any, path: Path) -> Any:
    for name, index in path:
        root = getattr(root, name)
        if index is not None:
            root = root[index]
    return root


def _value(spec: FieldSpec, rng: random.Random) -> Any:
    kind = spec.kind
    if kind is Kind.STRING:
        return rng.choice(["", "x", "changed", "ü" * rng.randint(1, 70)])
    if kind is Kind.BYTES:
        return bytes(rng.randrange(256) for _ in range(rng.choice([0, 3, 200])))
    if kind in (Kind.FLOAT, Kind.DOUBLE):
        return rng.choice([0.0, -1.5, 3.25, 1e10])
    if kind is Kind.BOOL:
        return rng.random() < 0.5
    if kind is Kind.ENUM:
        assert spec.enum_values is not None
        return rng.choice(sorted(spec.enum_values))
    if kind in (Kind.UINT32, Kind.UINT64, Kind.FIXED32, Kind.FIXED64):
        return rng.choice([0, 1, 300, 70000])
    wide = kind in (Kind.INT64, Kind.SINT64, Kind.SFIXED64)
    return rng.choice([0, 1, -1, 300, -70000, (1 << 40) if wide else 1 << 30])


def _change(mine: Message, theirs: Any, rng: random.Random, donors: list[tuple[Message, Any]]) -> str:
    """Make one random change to both messages the same way; returns what it did."""
    specs = mine.__schema__.fields
    spec = rng.choice(specs)
    name = spec.name
    pick = rng.random()
    if pick < 0.08:
        mine.Clear()
        theirs.Clear()
        return "Clear()"
    if pick < 0.16 and (spec.repeated or mine.HasField(name)):
        mine.ClearField(name)
        theirs.ClearField(name)
        return f"ClearField({name})"
    if pick < 0.22:
        same = [d for d in donors if d[0].__schema__ is mine.__schema__ and d[0] is not mine]
        if same:
            source_mine, source_theirs = rng.choice(same)
            how = rng.choice(["MergeFrom", "CopyFrom", "MergeFromString"])
            if how == "MergeFromString":
                mine.MergeFromString(wirecodec.encode(source_mine))
                theirs.MergeFromString(source_theirs.SerializeToString())
            else:
                getattr(mine, how)(source_mine)
                getattr(theirs, how)(source_theirs)
            return how
    return _change_field(mine, theirs, spec, rng, donors)


def _change_field(
    mine: Message, theirs: Any, spec: FieldSpec, rng: random.Random, donors: list[tuple[Message, Any]]
) -> str:
    """Change field ``spec`` of both messages the same way; returns what it did."""
    name = spec.name
    if spec.kind is Kind.MESSAGE and not spec.repeated:
        # Write into the child, present or not (an unset one is a detached stub until then).
        fields = spec.message_type.__schema__.fields
        inner = [s for s in fields if s.kind is not Kind.MESSAGE and not s.repeated]
        child_mine, child_theirs = getattr(mine, name), getattr(theirs, name)
        if inner and rng.random() < 0.7:
            field = rng.choice(inner)
            value = _value(field, rng)
            setattr(child_mine, field.name, value)
            setattr(child_theirs, field.name, value)
            return f"{name}.{field.name} = {value!r}"
        child_mine.SetInParent()
        child_theirs.SetInParent()
        return f"{name}.SetInParent()"
    if spec.kind is Kind.MESSAGE:
        box_mine, box_theirs = getattr(mine, name), getattr(theirs, name)
        op = rng.choice(["add", "pop", "del", "append", "remove", "sort", "extend"])
        if op in ("pop", "del", "remove", "sort") and not box_mine:
            op = "add"
        if op == "add":
            box_mine.add()
            box_theirs.add()
        elif op == "pop":
            box_mine.pop()
            box_theirs.pop()
        elif op == "del":
            at = rng.randrange(len(box_mine))
            del box_mine[at]
            del box_theirs[at]
        elif op == "remove":
            box_mine.remove(box_mine[0])
            box_theirs.remove(box_theirs[0])
        elif op == "sort":
            box_mine.sort(key=lambda m: m.ByteSize(), reverse=True)
            box_theirs.sort(key=lambda m: m.ByteSize(), reverse=True)
        else:
            same = [d for d in donors if d[0].__schema__ is spec.message_type.__schema__]
            if not same:
                return "nothing"
            donor_mine, donor_theirs = rng.choice(same)
            if op == "append":
                box_mine.append(donor_mine)
                box_theirs.append(donor_theirs)
            else:
                box_mine.extend([donor_mine, donor_mine])
                box_theirs.extend([donor_theirs, donor_theirs])
        return f"{name}.{op}"
    if spec.repeated:
        box_mine, box_theirs = getattr(mine, name), getattr(theirs, name)
        op = rng.choice(["append", "extend", "insert", "pop", "del", "setitem", "reverse"])
        if op in ("pop", "del", "setitem", "reverse") and not box_mine:
            op = "append"
        value = _value(spec, rng)
        if op == "append":
            box_mine.append(value)
            box_theirs.append(value)
        elif op == "extend":
            box_mine.extend([value, value])
            box_theirs.extend([value, value])
        elif op == "insert":
            box_mine.insert(0, value)
            box_theirs.insert(0, value)
        elif op == "pop":
            box_mine.pop()
            box_theirs.pop()
        elif op == "del":
            del box_mine[-1]
            del box_theirs[-1]
        elif op == "setitem":
            box_mine[0] = value
            box_theirs[0] = value
        else:
            box_mine.reverse()
            box_theirs.reverse()
        return f"{name}.{op}({value!r})"
    value = _value(spec, rng)
    setattr(mine, name, value)
    setattr(theirs, name, value)
    return f"{name} = {value!r}"


def _donor(mine: Message, theirs: Any) -> tuple[Message, Any]:
    """A message to merge, copy or append, in both libraries: decoded afresh from the
    pair's bytes, so ours has a source of its own."""
    fresh = wirecodec.decode(type(mine), wirecodec.encode(mine))
    return fresh, type(theirs).FromString(theirs.SerializeToString())


def _check_changes(
    cls: type[Message], data: bytes, seed: int, steps: int, every_element: bool = False
) -> None:
    rng = random.Random(seed)
    mine = wirecodec.decode(cls, data, representation=EVERY_ELEMENT if every_element else None)
    theirs = pb_class(cls).FromString(data)
    expected = theirs.SerializeToString()
    if expected == data:  # canonical, as protobuf writes: re-emitted whole, as one slice
        chunks, size = encode_chunks(mine)
        assert len(chunks) == 1 and isinstance(chunks[0], memoryview) and size == len(data)
    done: list[str] = []
    for _ in range(steps):
        found = list(_paths(mine))
        path, target = rng.choice(found)
        donors = [_donor(m, _follow(theirs, p)) for p, m in rng.sample(found, min(4, len(found)))]
        where = ".".join(f"{n}[{i}]" if i is not None else n for n, i in path) or "<root>"
        done.append(f"{where}: {_change(target, _follow(theirs, path), rng, donors)}")
        reused, walked = _both_encodings(mine)
        expected = theirs.SerializeToString()
        assert reused == expected, done
        assert walked == expected, done
        assert mine.ByteSize() == len(expected), done


def _sample(items: list[CorpusItem], count: int) -> list[CorpusItem]:
    # Spread over the corpus: every kind of file, the biggest included.
    ordered = sorted(items, key=lambda item: (item.message, len(item.data)))
    step = max(1, len(ordered) // count)
    return [*ordered[::step][:count], max(items, key=lambda item: len(item.data))]


@pytest.fixture(scope="module")
def corpus() -> list[CorpusItem]:
    return backend_corpus()


@pytest.mark.parametrize("lazy_all", [False, True], ids=["lazy", "every-element-deferred"])
def test_changes_to_backend_models_encode_as_protobuf_does(corpus: list[CorpusItem], lazy_all: bool) -> None:
    for number, item in enumerate(_sample(corpus, 60)):
        cls = message_class(item.message)
        _check_changes(cls, item.data, seed=number, steps=12, every_element=lazy_all)


def test_changes_to_pytorch_exports_encode_as_protobuf_does(pytorch_exports: list[Export]) -> None:
    for number, export in enumerate(pytorch_exports):
        _check_changes(ModelProto, export.data, seed=1000 + number, steps=25)


def test_an_unchanged_export_is_one_slice_and_a_change_reuses_the_rest(pytorch_exports: list[Export]) -> None:
    data = max((e.data for e in pytorch_exports), key=len)
    model = wirecodec.decode(ModelProto, data)
    chunks, _ = encode_chunks(model)
    assert len(chunks) == 1 and bytes(chunks[0]) == data
    model.graph.node[0].name = "renamed"
    chunks, size = encode_chunks(model)
    # Only the path to the change is encoded again: the other nodes and every
    # initializer, value_info and input are each one slice of the source.
    slices = sum(1 for c in chunks if isinstance(c, memoryview))
    graph = model.graph
    untouched = (
        len(graph.node)
        - 1
        + sum(len(field) for field in (graph.initializer, graph.value_info, graph.input, graph.output))
    )
    assert slices >= untouched
    reference = pb_class(ModelProto).FromString(data)
    reference.graph.node[0].name = "renamed"
    assert b"".join(chunks) == reference.SerializeToString() and size == reference.ByteSize()


def test_non_canonical_bytes_are_encoded_as_protobuf_would() -> None:
    # dim_value 3 written with a two-byte varint; a repeated singular field; an unknown field.
    dim = TensorShapeProto.Dimension
    for data in (b"\x08\x83\x00", b"\x08\x01\x08\x02", b"\x12\x01a\x08\x05", b"\xa0\x06\x01"):
        mine = wirecodec.decode(dim, data)
        theirs = pb_class(dim).FromString(data)
        assert _both_encodings(mine) == (theirs.SerializeToString(),) * 2
    node = NodeProto(name="n", input=["a"])
    assert wirecodec.decode(NodeProto, wirecodec.encode(node)) == node


def test_a_writable_buffer_is_never_reused() -> None:
    data = bytearray(wirecodec.encode(NodeProto(name="before")))
    node = wirecodec.decode(NodeProto, data)
    data[2:8] = b"after!"  # the buffer changes under the message: its fields do not
    assert wirecodec.encode(node) == wirecodec.encode(NodeProto(name="before"))


def test_copies_and_pickles_encode_their_own_fields() -> None:
    import copy
    import pickle

    def model(name: str) -> ModelProto:
        return ModelProto(graph=GraphProto(node=[NodeProto(name=name)]))

    data = wirecodec.encode(model("a"))
    decoded = wirecodec.decode(ModelProto, data)
    for clone in (copy.deepcopy(decoded), pickle.loads(pickle.dumps(decoded)), copy_message(decoded)):
        clone.graph.node[0].name = "b"
        assert wirecodec.encode(decoded) == data  # the original did not change
        assert wirecodec.encode(clone) == wirecodec.encode(model("b"))


def test_a_field_decoded_later_reports_its_changes() -> None:
    # Small elements past a field's first four wait undecoded (wirecodec.protobuf.lazy);
    # the list they become when first read must report changes like any other.
    # A big element after waiting ones makes the field's list a new one when it loads.
    nodes = [NodeProto(name=f"n{i}") for i in range(10)] + [NodeProto(name="big" * 20)]
    graph = GraphProto(name="g", node=nodes)
    data = wirecodec.encode(graph)
    for change in ("add", "pop", "sort", "clear"):
        decoded = wirecodec.decode(GraphProto, data)
        assert waiting_fields(decoded), "the nodes were expected to wait"
        expected = pb_class(GraphProto).FromString(data)
        if change == "add":
            decoded.node.add(name="new")
            expected.node.add(name="new")
        elif change == "sort":
            decoded.node.sort(key=lambda n: n.name, reverse=True)
            expected.node.sort(key=lambda n: n.name, reverse=True)
        else:
            getattr(decoded.node, change)()
            getattr(expected.node, change)() if change == "pop" else expected.ClearField("node")
        assert wirecodec.encode(decoded) == expected.SerializeToString(), change


def _long_fields_model() -> bytes:
    """A graph written by onnx.helper whose nodes, value_info and initializers are long fields."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    nodes, values, weights = [], [], []
    for i in range(60):
        nodes.append(
            helper.make_node(
                "Gemm" if i % 3 else "Relu",
                [f"t{i}", f"w{i % 20}"],
                [f"t{i + 1}"],
                name=f"/layers.{i}/op",
                alpha=0.5 + i,
                transB=i % 2,
                perm=[i, 1, 0],
            )
        )
        shape = ["batch", i + 1, 4, "seq"]
        values.append(helper.make_tensor_value_info(f"t{i + 1}", TensorProto.FLOAT, shape))
    for i in range(20):
        weights.append(numpy_helper.from_array(np.full((3, i + 1), i, dtype=np.float32), f"w{i}"))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("t0", TensorProto.FLOAT, ["batch", 4])],
        [values.pop()],
        initializer=weights,
        value_info=values,
    )
    data: bytes = helper.make_model(graph, producer_name="test").SerializeToString()
    return data


@pytest.mark.parametrize("seed", range(4))
def test_changes_inside_long_fields_encode_as_protobuf_does(seed: int) -> None:
    # Long repeated fields (a graph's nodes, value_info, initializers) are re-emitted
    # whole or between their changed elements: aim the changes there, and at the fields.
    data = _long_fields_model()
    rng = random.Random(seed)
    mine = wirecodec.decode(ModelProto, data)
    theirs = pb_class(ModelProto).FromString(data)
    assert getattr(mine.graph.node, "_span", None) not in (None, mine.graph._span)  # a span of its own
    done: list[str] = []
    for step in range(60):
        graph_mine, graph_theirs = mine.graph, theirs.graph
        name = rng.choice(["node", "value_info", "initializer"])
        box_mine, box_theirs = getattr(graph_mine, name), getattr(graph_theirs, name)
        if step % 5 == 4 or not box_mine:  # the field itself: add, pop, del, sort, append, ...
            spec = graph_mine.__schema__.by_name[name]
            donors = [_donor(m, t) for m, t in zip(box_mine[:2], box_theirs[:2], strict=True)]
            done.append(f"graph.{name}: {_change_field(graph_mine, graph_theirs, spec, rng, donors)}")
        else:
            at = rng.randrange(len(box_mine))
            path, target = rng.choice(list(_paths(box_mine[at])))
            other = _follow(box_theirs[at], path)
            done.append(f"{name}[{at}]{path}: {_change(target, other, rng, [_donor(target, other)])}")
        expected = theirs.SerializeToString()
        reused, walked = _both_encodings(mine)
        assert reused == expected, done
        assert walked == expected, done


def _rename(message: Any, name: str) -> None:
    message.name = name


def _several(graph: Any) -> None:
    graph.node[12].attribute[1].i = 7
    graph.node[40].Clear()
    graph.node[41].output.append("x")


def _dims_and_types(graph: Any) -> None:
    graph.value_info[0].type.tensor_type.shape.dim[0].dim_value = 3
    graph.value_info[58].ClearField("type")


def _then_sort(graph: Any) -> None:
    graph.node[5].name = "a"
    graph.node.sort(key=lambda node: node.name)


def _then_delete(graph: Any) -> None:
    graph.node[5].name = "a"
    del graph.node[6]


def _tensors(graph: Any) -> None:
    graph.initializer[3].dims.append(1)
    graph.initializer[19].ClearField("raw_data")


CHOSEN_CHANGES = {
    "first node": lambda graph: _rename(graph.node[0], "first"),
    "last node": lambda graph: _rename(graph.node[59], "last"),
    "first cleared": lambda graph: graph.node[0].Clear(),
    "middle cleared": lambda graph: graph.node[31].Clear(),
    "last cleared": lambda graph: graph.node[59].Clear(),
    "several": _several,
    "dims and types": _dims_and_types,
    "then sort": _then_sort,
    "then delete": _then_delete,
    "tensors": _tensors,
    "the graph itself": lambda graph: _rename(graph, "renamed"),
}


@pytest.mark.parametrize("change", CHOSEN_CHANGES)
def test_chosen_changes_inside_long_fields(change: str) -> None:
    data = _long_fields_model()
    mine, theirs = wirecodec.decode(ModelProto, data), pb_class(ModelProto).FromString(data)
    CHOSEN_CHANGES[change](mine.graph)
    CHOSEN_CHANGES[change](theirs.graph)
    assert _both_encodings(mine) == (theirs.SerializeToString(),) * 2


def test_a_shallow_copy_shares_fields_and_encodes_right() -> None:
    # copy.copy shares the containers (files.walk builds changed models this way).
    import copy

    data = _long_fields_model()
    decoded = wirecodec.decode(ModelProto, data)
    clone = copy.copy(decoded)
    clone.producer_name = "clone"
    expected = pb_class(ModelProto).FromString(data)
    expected.producer_name = "clone"
    assert _both_encodings(clone) == (expected.SerializeToString(),) * 2
    assert wirecodec.encode(decoded) == data
