"""HasField as protobuf answers it, field by field, for every message class onnx has: on an
empty message and on one with every field set (onnx's own classes are the oracle). A
repeated field has no presence (ValueError), a oneof's name asks for any member, a name
given as bytes works, an unknown name is a ValueError. HasField answers the common case in
one lookup (issue 48, item 7): this pins that the shortcut changes no answer."""

from __future__ import annotations

from typing import Any

import pytest

import schema_dsl.onnx as ours
from tests.support.reference import require_onnx

onnx = require_onnx()

CLASSES = sorted(
    name
    for name in dir(ours)
    if isinstance(getattr(ours, name), type)
    and hasattr(getattr(ours, name), "__schema__")
    and hasattr(onnx, name)
)


def _answer(message: Any, name: Any) -> Any:
    try:
        return bool(message.HasField(name))
    except ValueError:
        return ValueError


def _names(cls_name: str) -> list[Any]:
    descriptor = getattr(onnx, cls_name).DESCRIPTOR
    names: list[Any] = [f.name for f in descriptor.fields]
    names += [o.name for o in descriptor.oneofs]
    names += [f.name.encode() for f in descriptor.fields[:2]]  # as bytes
    return [*names, "no_such_field"]


def _filled(cls_name: str) -> tuple[Any, Any]:
    """An onnx message with every singular scalar and message field set, and ours decoded from it."""
    theirs = getattr(onnx, cls_name)()
    for field in theirs.DESCRIPTOR.fields:
        if field.is_repeated:
            continue
        if field.containing_oneof is not None and theirs.WhichOneof(field.containing_oneof.name):
            continue
        if field.message_type is not None:
            getattr(theirs, field.name).SetInParent()
        elif field.type == field.TYPE_STRING:
            setattr(theirs, field.name, "x")
        elif field.type == field.TYPE_BYTES:
            setattr(theirs, field.name, b"x")
        elif field.type == field.TYPE_ENUM:
            setattr(theirs, field.name, field.enum_type.values[-1].number)
        elif field.type in (field.TYPE_FLOAT, field.TYPE_DOUBLE):
            setattr(theirs, field.name, 1.5)
        else:
            setattr(theirs, field.name, 1)
    mine = getattr(ours, cls_name).FromString(theirs.SerializeToString())
    return theirs, mine


@pytest.mark.parametrize("cls_name", CLASSES)
def test_hasfield_answers_as_protobuf(cls_name: str) -> None:
    names = _names(cls_name)
    theirs, mine = getattr(onnx, cls_name)(), getattr(ours, cls_name)()
    assert [_answer(mine, n) for n in names] == [_answer(theirs, n) for n in names]
    theirs, mine = _filled(cls_name)
    assert [_answer(mine, n) for n in names] == [_answer(theirs, n) for n in names]


def test_the_classes_are_many() -> None:
    assert len(CLASSES) >= 20, CLASSES
