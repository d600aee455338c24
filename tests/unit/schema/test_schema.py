"""The ONNX schema in the DSL equals onnx's own descriptors, and the DSL validates declarations."""

from __future__ import annotations

import enum
from typing import Any, ClassVar

import pytest

import schema_dsl.onnx as ours
from schema_dsl import (
    ENUM,
    INT64,
    MESSAGE,
    STRING,
    Kind,
    Message,
    SchemaError,
    optional,
    repeated,
)
from tests.support.reference import all_message_classes

onnx = pytest.importorskip("onnx", reason="the onnx package's descriptors are the reference")
from google.protobuf.descriptor import FieldDescriptor  # noqa: E402

_KINDS = {
    FieldDescriptor.TYPE_INT32: Kind.INT32,
    FieldDescriptor.TYPE_INT64: Kind.INT64,
    FieldDescriptor.TYPE_UINT32: Kind.UINT32,
    FieldDescriptor.TYPE_UINT64: Kind.UINT64,
    FieldDescriptor.TYPE_SINT32: Kind.SINT32,
    FieldDescriptor.TYPE_SINT64: Kind.SINT64,
    FieldDescriptor.TYPE_FIXED32: Kind.FIXED32,
    FieldDescriptor.TYPE_FIXED64: Kind.FIXED64,
    FieldDescriptor.TYPE_SFIXED32: Kind.SFIXED32,
    FieldDescriptor.TYPE_SFIXED64: Kind.SFIXED64,
    FieldDescriptor.TYPE_FLOAT: Kind.FLOAT,
    FieldDescriptor.TYPE_DOUBLE: Kind.DOUBLE,
    FieldDescriptor.TYPE_BOOL: Kind.BOOL,
    FieldDescriptor.TYPE_STRING: Kind.STRING,
    FieldDescriptor.TYPE_BYTES: Kind.BYTES,
    FieldDescriptor.TYPE_ENUM: Kind.ENUM,
    FieldDescriptor.TYPE_MESSAGE: Kind.MESSAGE,
}
_MODULES = (onnx.onnx_ml_pb2, onnx.onnx_data_pb2, onnx.onnx_operators_ml_pb2)


def _descriptors() -> list[Any]:
    found: dict[str, Any] = {}

    def visit(desc: Any) -> None:
        found[desc.full_name] = desc
        for nested in desc.nested_types:
            visit(nested)

    for module in _MODULES:
        for desc in module.DESCRIPTOR.message_types_by_name.values():
            visit(desc)
    return sorted(found.values(), key=lambda d: d.full_name)


def _ours(full_name: str) -> type[Message]:
    obj: Any = ours
    for part in full_name.removeprefix("onnx.").split("."):
        obj = getattr(obj, part)
    assert isinstance(obj, type) and issubclass(obj, Message)
    return obj


def _is_repeated(fd: Any) -> bool:
    return bool(fd.is_repeated) if hasattr(fd, "is_repeated") else fd.label == FieldDescriptor.LABEL_REPEATED


@pytest.mark.parametrize("desc", _descriptors(), ids=lambda d: d.full_name)
def test_message_matches_descriptor(desc: Any) -> None:
    cls = _ours(desc.full_name)
    schema = cls.__schema__
    assert schema.full_name == desc.full_name
    assert sorted(schema.by_name) == sorted(f.name for f in desc.fields)
    for fd in desc.fields:
        spec = schema.by_name[fd.name]
        where = fd.full_name
        assert spec.number == fd.number, where
        assert spec.kind is _KINDS[fd.type], where
        assert spec.repeated == _is_repeated(fd), where
        assert spec.packed == fd.is_packed, where
        assert spec.oneof == (fd.containing_oneof.name if fd.containing_oneof else None), where
        if fd.message_type is not None:
            assert spec.message_type.__schema__.full_name == fd.message_type.full_name, where
        if fd.enum_type is not None:
            assert spec.enum_type is not None
            assert {m.name: int(m) for m in spec.enum_type} == {
                v.name: v.number for v in fd.enum_type.values
            }, where


def test_no_extra_classes_on_our_side() -> None:
    theirs = {d.full_name for d in _descriptors()}
    mine = {cls.__schema__.full_name for cls in all_message_classes()}
    assert mine == theirs


def test_every_enum_matches() -> None:
    enums: dict[str, Any] = {}
    for module in _MODULES:
        for name, desc in module.DESCRIPTOR.enum_types_by_name.items():
            enums[name] = desc
    for desc in _descriptors():
        for nested in desc.enum_types:
            enums[nested.full_name.removeprefix("onnx.")] = nested
    assert enums, "no enums found"
    for path, desc in enums.items():
        obj: Any = ours
        for part in path.split("."):
            obj = getattr(obj, part)
        assert issubclass(obj, enum.IntEnum), path
        assert {m.name: int(m) for m in obj} == {v.name: v.number for v in desc.values}, path


# -- the DSL rejects what protobuf would -----------------------------------------------------


@pytest.mark.parametrize("number", [0, 2**29, 19000, 19999, -1])
def test_bad_field_numbers(number: int) -> None:
    with pytest.raises(SchemaError, match="field number"):

        class Bad(Message):
            x: int = optional(number, INT64)


def test_duplicate_numbers() -> None:
    with pytest.raises(SchemaError, match="used twice"):

        class Bad(Message):
            a: int = optional(1, INT64)
            b: int = optional(1, INT64)


def test_packed_only_on_numeric_repeated() -> None:
    with pytest.raises(SchemaError, match="packed"):

        class Bad(Message):
            a: list[str] = repeated(1, STRING, packed=True)


def test_enum_needs_its_class() -> None:
    with pytest.raises(SchemaError, match="ENUM"):

        class Bad(Message):
            a: int = optional(1, ENUM)


def test_oneof_member_cannot_be_repeated() -> None:
    spec = repeated(1, INT64)
    spec.oneof = "g"
    with pytest.raises(SchemaError, match="oneof"):

        class Bad(Message):
            a: list[int] = spec


def test_an_annotation_without_a_field_is_refused() -> None:
    with pytest.raises(SchemaError, match="annotated but not declared"):

        class Bad(Message):
            a: int = optional(1, INT64)
            b: int  # forgot "= optional(2, INT64)": would silently not exist


def test_private_and_classvar_annotations_are_not_fields() -> None:
    class Fine(Message):
        a: int = optional(1, INT64)
        _note: str
        registry: ClassVar[dict[str, int]] = {}

    assert [s.name for s in Fine.__schema__.fields] == ["a"]


def test_a_oneof_cannot_share_a_field_name() -> None:
    with pytest.raises(SchemaError, match="oneof 'a' has the name of a field"):

        class Bad(Message):
            a: int = optional(1, INT64, oneof="b")
            b: int = optional(2, INT64, oneof="a")


def test_message_field_annotation_must_resolve() -> None:
    class Dangling(Message):
        child: NoSuchMessage = optional(1, MESSAGE)  # type: ignore[name-defined]  # noqa: F821

    with pytest.raises(SchemaError, match="cannot resolve"):
        _ = Dangling.__schema__.by_name["child"].message_type


class _NotAMessage:
    pass


class _SchemaOfAnother:
    __schema__ = ours.TensorProto.__schema__  # a schema, but of another class


@pytest.mark.parametrize("annotation", ["_NotAMessage", "_SchemaOfAnother", "int"])
def test_message_field_annotation_must_name_a_message_class(annotation: str) -> None:
    namespace: dict[str, Any] = {}
    exec(
        "from schema_dsl import MESSAGE, Message, optional\n"
        "class Holder(Message):\n"
        f"    child: {annotation} = optional(1, MESSAGE)\n",
        globals(),
        namespace,
    )
    with pytest.raises(SchemaError, match="is not a message class"):
        _ = namespace["Holder"].__schema__.by_name["child"].message_type


def test_largest_legal_field_number() -> None:
    class Edge(Message):
        x: int = optional(2**29 - 1, INT64)

    assert Edge.__schema__.fields[0].tag == ((2**29 - 1) << 3)
