"""Enum values where onnx code reaches for them, judged by the onnx package's own classes."""

from __future__ import annotations

import enum

import pytest

import schema_dsl.onnx as ours
from schema_dsl import Message, SchemaError, optional
from schema_dsl.enums import ProtoEnum
from schema_dsl.fields import ENUM
from tests.support.reference import all_message_classes

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def _reference(cls: type[Message]) -> object:
    target: object = onnx
    for part in cls.__qualname__.split("."):
        target = getattr(target, part)
    return target


@pytest.mark.parametrize("cls", all_message_classes(), ids=lambda c: c.__qualname__)
def test_every_enum_value_is_a_class_attribute_as_in_onnx(cls: type[Message]) -> None:
    reference = _reference(cls)
    for enum_name, nested in vars(cls).items():
        if not (isinstance(nested, type) and issubclass(nested, enum.IntEnum)):
            continue
        wrapper = getattr(reference, enum_name)
        assert nested.keys() == list(wrapper.keys())  # type: ignore[attr-defined]
        assert nested.values() == list(wrapper.values())  # type: ignore[attr-defined]
        assert nested.items() == list(wrapper.items())  # type: ignore[attr-defined]
        for name, number in wrapper.items():
            mine = getattr(cls, name)
            assert type(mine) is int and mine == getattr(reference, name) == number
            assert nested.Name(number) == wrapper.Name(number)  # type: ignore[attr-defined]
            assert nested.Value(name) == wrapper.Value(name)  # type: ignore[attr-defined]


def test_lookups_fail_like_protobuf() -> None:
    data_type = ours.TensorProto.DataType
    with pytest.raises(ValueError, match="no name defined for value 999"):
        data_type.Name(999)
    with pytest.raises(ValueError, match="no value defined for name 'FLAOT'"):
        data_type.Value("FLAOT")
    with pytest.raises(ValueError):
        onnx.TensorProto.DataType.Name(999)


def test_module_level_values_match_onnx() -> None:
    assert ours.IR_VERSION == onnx.IR_VERSION
    assert (ours.EXPERIMENTAL, ours.STABLE) == (onnx.EXPERIMENTAL, onnx.STABLE)
    assert ours.Version.items() == list(onnx.Version.items())


def test_everyday_spellings() -> None:
    assert ours.TensorProto.FLOAT == onnx.TensorProto.FLOAT == 1
    assert ours.TensorProto.BFLOAT16 == 16
    assert ours.AttributeProto.INTS == onnx.AttributeProto.INTS
    assert ours.TensorProto.EXTERNAL == onnx.TensorProto.EXTERNAL
    assert ours.TensorProto.DataType.Name(1) == "FLOAT"
    assert ours.TensorProto.DataType.Value("FLOAT") == 1


def test_an_enum_value_named_like_a_field_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="already a field"):

        class Clash(Message):
            class Kind(ProtoEnum):
                kind = 0

            kind: int = optional(1, ENUM, enum=Kind)
