"""``DESCRIPTOR`` of every message and enum of the schema against protobuf's, part by part."""

from __future__ import annotations

import enum
import inspect
from typing import Any

import pytest

import schema_dsl.onnx as schema
from schema_dsl.descriptors import DescriptorNotProvidedError
from schema_dsl.message import Message

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def _declared(outer: Any, prefix: str = "") -> list[tuple[str, type]]:
    found = []
    for name, value in vars(outer).items():
        if (
            isinstance(value, type)
            and value.__qualname__ == f"{prefix}{name}"
            and value.__module__ == schema.__name__
            and issubclass(value, (Message, enum.IntEnum))
        ):
            found.append((value.__qualname__, value))
            found.extend(_declared(value, f"{value.__qualname__}."))
    return found


DECLARED = _declared(schema)
MESSAGES = [(n, c) for n, c in DECLARED if issubclass(c, Message)]
ENUMS = [(n, c) for n, c in DECLARED if issubclass(c, enum.IntEnum)]


def theirs(qualname: str) -> Any:
    found: Any = onnx
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def test_every_class_of_the_schema_is_covered() -> None:
    assert len(MESSAGES) >= 30 and len(ENUMS) >= 7


def label(real: Any) -> int:
    """protobuf's ``label`` (gone from protobuf 7's descriptors: read from what replaced it)."""
    if hasattr(real, "label"):
        return int(real.label)
    return 3 if real.is_repeated else 2 if real.is_required else 1


def _name(descriptor: Any) -> str | None:
    return None if descriptor is None else descriptor.full_name


@pytest.mark.parametrize("qualname", [n for n, _ in MESSAGES])
def test_message_descriptor_is_protobufs(qualname: str) -> None:
    ours, other = dict(MESSAGES)[qualname].DESCRIPTOR, theirs(qualname).DESCRIPTOR
    assert (ours.name, ours.full_name) == (other.name, other.full_name)
    assert _name(ours.containing_type) == _name(other.containing_type)
    assert [f.name for f in ours.fields] == [f.name for f in other.fields]
    assert sorted(ours.fields_by_number) == sorted(other.fields_by_number)
    assert sorted(ours.fields_by_camelcase_name) == sorted(other.fields_by_camelcase_name)
    for mine, real in zip(ours.fields, other.fields, strict=True):
        assert ours.fields_by_name[mine.name] is mine
        got = (
            mine.full_name,
            mine.number,
            mine.index,
            mine.label,
            mine.type,
            mine.cpp_type,
            _name(mine.message_type),
            _name(mine.enum_type),
            _name(mine.containing_type),
            _name(mine.containing_oneof),
            mine.has_presence,
            mine.default_value,
            mine.json_name,
            mine.camelcase_name,
            mine.is_repeated,
            mine.is_required,
            mine.is_packed,
            mine.has_default_value,
            mine.is_extension,
            mine.extension_scope,
        )
        expected = (
            real.full_name,
            real.number,
            real.index,
            label(real),
            real.type,
            real.cpp_type,
            _name(real.message_type),
            _name(real.enum_type),
            _name(real.containing_type),
            _name(real.containing_oneof),
            real.has_presence,
            real.default_value,
            real.json_name,
            real.camelcase_name,
            real.is_repeated,
            real.is_required,
            real.is_packed,
            real.has_default_value,
            real.is_extension,
            real.extension_scope,
        )
        assert got == expected, mine.full_name
    assert [(o.name, o.full_name, o.index, [f.name for f in o.fields]) for o in ours.oneofs] == [
        (o.name, o.full_name, o.index, [f.name for f in o.fields]) for o in other.oneofs
    ]
    assert sorted(ours.oneofs_by_name) == sorted(other.oneofs_by_name)
    assert [d.full_name for d in ours.nested_types] == [d.full_name for d in other.nested_types]
    assert sorted(ours.nested_types_by_name) == sorted(other.nested_types_by_name)
    assert [e.full_name for e in ours.enum_types] == [e.full_name for e in other.enum_types]
    assert sorted(ours.enum_types_by_name) == sorted(other.enum_types_by_name)
    assert {k: v.number for k, v in ours.enum_values_by_name.items()} == {
        k: v.number for k, v in other.enum_values_by_name.items()
    }
    assert ours._concrete_class is dict(MESSAGES)[qualname]
    assert ours.is_extendable is other.is_extendable
    assert (ours.extensions, ours.extensions_by_name, ours.extension_ranges) == (
        list(other.extensions),
        dict(other.extensions_by_name),
        list(other.extension_ranges),
    )
    for enum_type in other.enum_types:
        for value in enum_type.values:
            assert ours.EnumValueName(enum_type.name, value.number) == other.EnumValueName(
                enum_type.name, value.number
            )


@pytest.mark.parametrize("qualname", [n for n, _ in ENUMS])
def test_enum_descriptor_is_protobufs(qualname: str) -> None:
    ours, other = dict(ENUMS)[qualname].DESCRIPTOR, theirs(qualname).DESCRIPTOR
    assert (ours.name, ours.full_name, _name(ours.containing_type)) == (
        other.name,
        other.full_name,
        _name(other.containing_type),
    )
    assert [(v.name, v.number, v.index, v.type.full_name) for v in ours.values] == [
        (v.name, v.number, v.index, v.type.full_name) for v in other.values
    ]
    assert {k: v.number for k, v in ours.values_by_name.items()} == {
        k: v.number for k, v in other.values_by_name.items()
    }
    assert {k: v.name for k, v in ours.values_by_number.items()} == {
        k: v.name for k, v in other.values_by_number.items()
    }
    assert ours.is_closed is other.is_closed


@pytest.mark.quick
def test_type_and_label_constants_are_protobufs() -> None:
    ours = type(schema.ModelProto.DESCRIPTOR.fields[0])
    real = type(onnx.ModelProto.DESCRIPTOR.fields[0])
    names = [n for n in dir(real) if n.startswith(("TYPE_", "CPPTYPE_", "LABEL_", "MAX_"))]
    assert names and {n: getattr(ours, n) for n in names} == {n: getattr(real, n) for n in names}


@pytest.mark.quick
def test_one_descriptor_per_class_from_the_class_and_its_instances() -> None:
    assert schema.TensorProto.DESCRIPTOR is schema.TensorProto().DESCRIPTOR
    assert (
        schema.TensorProto.DESCRIPTOR.enum_types_by_name["DataType"] is schema.TensorProto.DataType.DESCRIPTOR
    )
    graph_type = type(schema.ModelProto().graph)  # a detached child's class
    assert graph_type.DESCRIPTOR is schema.GraphProto.DESCRIPTOR


@pytest.mark.quick
def test_a_part_not_built_is_one_error_naming_it() -> None:
    with pytest.raises(DescriptorNotProvidedError, match=r"Descriptor\.file \(of onnx\.ModelProto\)"):
        schema.ModelProto.DESCRIPTOR.file  # noqa: B018
    with pytest.raises(
        NotImplementedError, match=r"FieldDescriptor\.GetOptions \(of onnx\.ModelProto\.graph\)"
    ):
        schema.ModelProto.DESCRIPTOR.fields_by_name["graph"].GetOptions()
    assert not hasattr(schema.TensorProto.DataType.DESCRIPTOR, "serialized_options")
    assert getattr(schema.TensorProto.DataType.DESCRIPTOR.values[0], "options", None) is None
    assert inspect.isclass(DescriptorNotProvidedError)
