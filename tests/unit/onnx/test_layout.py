"""The slotted representation keeps its invariants (schema_dsl.message).

Every declared class is a holder of slots plus the declared class on top; ``_has`` holds
a bit per stored field. These tests check, on decoded models and after sequences of
changes judged by the onnx package, that the layout's invariants hold: no holder
instance escapes, a message or repeated field's bit is set exactly when its slot holds
a value, an unset scalar's slot holds its default, and presence agrees with protobuf's.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schema_dsl.onnx as ours
import wirecodec
from schema_dsl import Kind, Message, SchemaError, optional
from schema_dsl.fields import STRING
from schema_dsl.message import Extras, slot_value
from tests.support.exports import Export
from tests.support.reference import all_message_classes, backend_corpus, message_class, pb_class

_EMPTY = object()


def check_layout(message: Message, path: str = "") -> None:
    """Assert the representation's invariants on ``message`` and everything below it."""
    schema = message.__schema__
    where = path or type(message).__qualname__
    assert type(message) is schema.cls, where  # never a holder, a detached child neither
    assert not hasattr(message, "__dict__"), where
    x = slot_value(message, "_x", _EMPTY)
    assert x is None or isinstance(x, Extras), where
    has = message._has
    assert has >> len(schema.fields) == 0, where  # no bit past the fields
    for spec, bit in schema.field_bits:
        value = slot_value(message, spec.name, _EMPTY)
        here = f"{where}.{spec.name}"
        if spec.repeated or spec.kind is Kind.MESSAGE:
            assert (value is not _EMPTY) == bool(has & bit), here
        else:
            assert value is not _EMPTY, here  # a scalar slot is never empty
            if not has & bit:
                assert value == spec.default and type(value) is type(spec.default), here
        if value is _EMPTY or spec.kind is not Kind.MESSAGE:
            continue
        for i, child in enumerate(value if spec.repeated else [value]):
            check_layout(child, f"{here}[{i}]" if spec.repeated else here)


def _present(schema_of: Message, message: Any) -> list[str]:
    """The singular fields of ``schema_of``'s class that ``message`` (ours or protobuf's) has."""
    return [f.name for f in schema_of.__schema__.fields if not f.repeated and message.HasField(f.name)]


def test_every_class_is_a_holder_of_slots_and_a_declared_class_on_top() -> None:
    classes = all_message_classes()
    assert len(classes) > 20
    for cls in classes:
        schema = cls.__schema__
        assert cls.__bases__ == (schema.holder,) and cls.__slots__ == ()
        assert schema.holder.__slots__ == tuple(spec.name for spec in schema.declared)
        blank = cls()
        assert type(blank) is cls and blank._has == 0
        check_layout(blank)


def test_only_classes_that_can_have_an_empty_slot_fall_back_on_getattr() -> None:
    # A __getattr__ anywhere in the class costs all its reads CPython's specialization;
    # the scalar-only classes (TensorShapeProto.Dimension is the most numerous) need none.
    scalar_only = []
    for cls in all_message_classes():
        can_be_empty = any(spec.repeated or spec.kind is Kind.MESSAGE for spec in cls.__schema__.fields)
        assert hasattr(cls, "__getattr__") == can_be_empty, cls.__qualname__
        if not can_be_empty:
            scalar_only.append(cls.__qualname__)
            with pytest.raises(AttributeError, match="no attribute 'not_a_field'"):
                cls().not_a_field  # noqa: B018
    assert "TensorShapeProto.Dimension" in scalar_only
    node = ours.NodeProto()
    assert list(node.attribute) == [] and not node.HasField("name")
    assert ours.AttributeProto().t.ByteSize() == 0  # an unset message field still reads as empty


def test_holders_keep_plain_slot_stores() -> None:
    # The decoders fill holders with plain attribute stores; a __setattr__ or __delattr__
    # anywhere in a holder's bases sends each of them through a Python-level lookup
    # (CPython's tp_setattro), which made decoding several times slower once already.
    for cls in all_message_classes():
        for base in cls.__schema__.holder.__mro__[:-1]:
            assert not {"__setattr__", "__delattr__"} & set(vars(base)), (cls.__qualname__, base)
        assert "__delattr__" in vars(cls) and "__setattr__" in vars(cls)
    node = ours.NodeProto(name="n")
    with pytest.raises(AttributeError, match="ClearField"):
        del node.name
    assert node.name == "n"


def test_a_declared_message_cannot_bring_slots_of_its_own() -> None:
    with pytest.raises(SchemaError, match="slots"):

        class Slotted(Message):
            __slots__ = ("extra",)
            name: str = optional(1, STRING)


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_decoded_backend_models_keep_the_invariants(lazy: bool) -> None:
    corpus = backend_corpus(None)[::5]
    assert len(corpus) > 300
    for item in corpus:
        cls = message_class(item.message)
        message = wirecodec.decode(cls, item.data, lazy=lazy)
        message._load_lazy()
        check_layout(message, item.name)
        for decoded in _messages(message):
            theirs = pb_class(type(decoded).__schema__.cls).FromString(decoded.SerializeToString())
            assert _present(decoded, decoded) == _present(decoded, theirs), item.name


def _messages(message: Message) -> Iterator[Message]:
    yield message
    for spec, value in message.ListFields():
        if spec.kind is Kind.MESSAGE:
            for child in value if spec.repeated else [value]:
                yield from _messages(child)


def test_pytorch_exports_keep_the_invariants(pytorch_exports: list[Export], tmp_path: pathlib.Path) -> None:
    for export in pytorch_exports:
        path = tmp_path / f"{export.name}.onnx"
        path.write_bytes(export.data)
        model = wirecodec.load(path)
        model._load_lazy()
        model.graph._load_lazy()
        check_layout(model, export.name)


# A change: (description, function applied to a module's TypeProto/AttributeProto pair).
_CHANGES: list[tuple[str, Any]] = [
    ("set elem_type", lambda t, a: setattr(t.tensor_type, "elem_type", 1)),
    ("set elem_type 0", lambda t, a: setattr(t.tensor_type, "elem_type", 0)),
    ("add a dim", lambda t, a: t.tensor_type.shape.dim.add(dim_value=3)),
    ("dim_param on dim 0", lambda t, a: setattr(t.tensor_type.shape.dim[0], "dim_param", "n")),
    ("read the sequence type", lambda t, a: t.sequence_type.elem_type),
    (
        "write through the sequence type",
        lambda t, a: setattr(t.sequence_type.elem_type.tensor_type, "elem_type", 7),
    ),
    ("clear the tensor type", lambda t, a: t.ClearField("tensor_type")),
    ("clear all", lambda t, a: t.Clear()),
    ("denotation", lambda t, a: setattr(t, "denotation", "IMAGE")),
    ("merge into itself a copy", lambda t, a: t.MergeFrom(type(t).FromString(t.SerializeToString()))),
    ("attribute i", lambda t, a: setattr(a, "i", 5)),
    ("attribute ints", lambda t, a: a.ints.extend([1, 2])),
    ("attribute t", lambda t, a: setattr(a.t, "data_type", 1)),
    ("attribute clear ints", lambda t, a: a.ClearField("ints")),
    ("attribute read g", lambda t, a: a.g.name),
    ("attribute copy from", lambda t, a: a.CopyFrom(type(a)(name="x", f=1.5, type=1))),
    ("attribute discard unknown", lambda t, a: a.DiscardUnknownFields()),
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(range(len(_CHANGES))), max_size=10))
def test_changes_keep_the_invariants_and_presence_of_protobuf(steps: list[int]) -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
    mine_t, mine_a = ours.TypeProto(), ours.AttributeProto()
    theirs_t, theirs_a = onnx.TypeProto(), onnx.AttributeProto()
    for step in steps:
        label, change = _CHANGES[step]
        outcomes = []
        for t, a in ((mine_t, mine_a), (theirs_t, theirs_a)):
            try:
                change(t, a)
                outcomes.append(None)
            except (IndexError, ValueError, TypeError, AttributeError) as exc:
                outcomes.append(type(exc).__name__)
        assert outcomes[0] == outcomes[1], label
        for mine, theirs in ((mine_t, theirs_t), (mine_a, theirs_a)):
            check_layout(mine)
            assert _present(mine, mine) == _present(mine, theirs), label
            assert mine.SerializeToString() == theirs.SerializeToString(), label


def test_loading_external_data_stores_no_empty_fields(tmp_path: pathlib.Path) -> None:
    """The walk for external tensors looks at fields without reading them into existence."""
    onnx = pytest.importorskip("onnx", reason="the onnx package writes the external data (test extra)")
    import numpy as np
    from onnx import helper, numpy_helper

    weight = numpy_helper.from_array(np.arange(4096, dtype=np.float32), "w")
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add", axis=1)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4096])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4096])],
        [weight],
    )
    path = tmp_path / "m.onnx"
    onnx.save_model(helper.make_model(graph), str(path), save_as_external_data=True, size_threshold=0)
    model = wirecodec.load(path)
    assert wirecodec.to_array(model.graph.initializer[0])[-1] == 4095  # the external data was found
    attribute = model.graph.node[0].attribute[0]
    for name in ("tensors", "sparse_tensors", "graphs"):
        assert slot_value(attribute, name) is None, name
    assert slot_value(model.graph, "sparse_initializer") is None
    check_layout(model)
