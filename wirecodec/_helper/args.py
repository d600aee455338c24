"""Argument checks for the builders of :mod:`wirecodec.helper` and :mod:`wirecodec.numpy_helper`.

Our messages accept any Python value on assignment (the encoder is where a wrong type
would surface, far from its cause), so a builder checks each argument as protobuf's
setters would and says which argument of which function was wrong. Each check returns
the value in the form the message stores: ``str`` for string fields, ``int`` for
integer fields, a float32-rounded ``float`` for float fields, ``bytes`` for bytes fields.
"""

from __future__ import annotations

import math
import numbers
import operator
import struct
from collections.abc import Iterable
from typing import Any, Final, TypeVar

from schema_dsl import Kind, Message
from schema_dsl.assign import FieldNameError
from schema_dsl.containers import new_container
from schema_dsl.layout import blank, store
from schema_dsl.presence import store_valid

__all__ = [
    "INT32_RANGE",
    "INT64_RANGE",
    "adopt",
    "build",
    "as_bytes",
    "as_float32",
    "as_int",
    "as_list",
    "as_message",
    "as_messages",
    "as_text",
    "as_texts",
    "field_value",
]

INT32_RANGE: Final = (-(1 << 31), (1 << 31) - 1)
INT64_RANGE: Final = (-(1 << 63), (1 << 63) - 1)
UINT64_RANGE: Final = (0, (1 << 64) - 1)
_RANGES: Final = {
    Kind.INT32: INT32_RANGE,
    Kind.ENUM: INT32_RANGE,
    Kind.SINT32: INT32_RANGE,
    Kind.SFIXED32: INT32_RANGE,
    Kind.INT64: INT64_RANGE,
    Kind.SINT64: INT64_RANGE,
    Kind.SFIXED64: INT64_RANGE,
    Kind.UINT32: (0, (1 << 32) - 1),
    Kind.FIXED32: (0, (1 << 32) - 1),
    Kind.UINT64: UINT64_RANGE,
    Kind.FIXED64: UINT64_RANGE,
}

M = TypeVar("M", bound=Message)


def adopt(message: Message, name: str, value: Any) -> None:
    """Make ``value`` field ``name`` of ``message`` as it is: no copy, no second check.

    Only for what a builder made itself: values the ``as_*`` checks below returned (in the
    form the message stores), messages it built that nothing else refers to, and a builder's
    own new message as ``message``. An assignment would copy each message (as protobuf's
    does, since the caller may keep it) and check each element of a list again; on the
    per-node loops of onnxslim and onnxruntime's symbolic shapes, or a tensor of millions of
    floats, that was most of a builder's time.
    """
    if type(message).__schema__.by_name[name].repeated:
        value = new_container(type(message).__schema__.by_name[name], value)
    store_valid(message, name, value)


def build(cls: type[M], /, **fields: Any) -> M:
    """A new ``cls`` message holding ``fields`` as they are (what :func:`adopt` stores, for a
    message made here: no stub, no source bytes, no other oneof member to clear).

    >>> from schema_dsl.onnx import TensorShapeProto
    >>> build(TensorShapeProto, dim=[build(TensorShapeProto.Dimension, dim_value=3)])
    dim {
      dim_value: 3
    }
    <BLANKLINE>
    """
    message = blank(cls)
    by_name = cls.__schema__.by_name
    for name, value in fields.items():
        spec = by_name[name]
        store(message, name, new_container(spec, value) if spec.repeated else value)
    return message


def _kind(value: object) -> str:
    return type(value).__name__


def as_text(value: object, where: str) -> str:
    """A string field's value: a ``str``, or UTF-8 ``bytes`` (protobuf accepts both); a
    string with a lone surrogate (no UTF-8 form) is refused, as protobuf's setter refuses it."""
    if isinstance(value, str):
        if type(value) is not str:
            value = str(value)
        if not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                reason = f"{exc.reason} ({where} must be UTF-8 text)"
                raise UnicodeEncodeError(exc.encoding, exc.object, exc.start, exc.end, reason) from None
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{where}: bytes given for a string are not valid UTF-8 ({exc.reason})"
            ) from None
    raise TypeError(f"{where} must be a str, got {_kind(value)}")


def as_bytes(value: object, where: str) -> bytes:
    """A bytes field's value (``str`` is refused, as protobuf refuses it)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{where} must be bytes, got {_kind(value)}")


def _is_bool(value: object) -> bool:
    # numpy's bool (numpy.bool, once numpy.bool_) is no Integral; told by name, so that
    # this module needs no numpy (docs/platforms.md).
    kind = type(value)
    return isinstance(value, bool) or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def as_int(value: object, where: str, bounds: tuple[int, int] = INT64_RANGE) -> int:
    """An integer field's value: any integral number but ``bool``, within ``bounds``."""
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{where} must be an int, got {_kind(value)}")
    number = operator.index(value)
    low, high = bounds
    if not low <= number <= high:
        raise ValueError(f"{where}: {number} is out of range [{low}, {high}]")
    return number


def as_float32(value: object, where: str) -> float:
    """A float field's value as protobuf keeps it: rounded to float32 (overflow gives inf)."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} must be a real number, got {_kind(value)}")
    number = float(value)
    try:
        (rounded,) = struct.unpack("<f", struct.pack("<f", number))
    except OverflowError:  # beyond float32's range: inf, as a C cast (and numpy) give
        return math.copysign(math.inf, number)
    return float(rounded)


def as_double(value: object, where: str) -> float:
    """A double field's value."""
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise TypeError(f"{where} must be a real number, got {_kind(value)}")
    return float(value)


def as_list(values: object, where: str) -> list[Any]:
    """The items of an iterable argument; a bare ``str``/``bytes`` is refused (it is one value)."""
    if isinstance(values, (str, bytes, bytearray, memoryview)):
        raise TypeError(f"{where} must be a list, not a single {_kind(values)}")
    if not isinstance(values, Iterable):
        raise TypeError(f"{where} must be a list, got {_kind(values)}")
    return list(values)


def as_texts(values: object, where: str) -> list[str]:
    """A list of strings (for repeated string fields)."""
    return [as_text(v, f"{where}[{i}]") for i, v in enumerate(as_list(values, where))]


def as_message(value: object, cls: type[M], where: str) -> M:
    """A message argument of class ``cls``."""
    if not isinstance(value, cls):
        raise TypeError(f"{where} must be a {cls.__qualname__}, got {_kind(value)}")
    return value


def as_messages(values: object, cls: type[M], where: str) -> list[M]:
    """A list of messages of class ``cls``."""
    return [as_message(v, cls, f"{where}[{i}]") for i, v in enumerate(as_list(values, where))]


def _scalar(kind: Kind, value: object, where: str) -> Any:
    if kind is Kind.STRING:
        return as_text(value, where)
    if kind is Kind.BYTES:
        return as_bytes(value, where)
    if kind is Kind.FLOAT:
        return as_float32(value, where)
    if kind is Kind.DOUBLE:
        return as_double(value, where)
    if kind is Kind.BOOL:
        if not _is_bool(value):
            raise TypeError(f"{where} must be a bool, got {_kind(value)}")
        return bool(value)
    return as_int(value, where, _RANGES[kind])


def field_value(message_cls: type[Message], name: str, value: object, where: str) -> Any:
    """``value`` checked for field ``name`` of ``message_cls`` (a list for a repeated field)."""
    spec = message_cls.__schema__.by_name.get(name)
    if spec is None:
        # AttributeError as onnx (which sets it on the message), TypeError as a bad keyword.
        raise FieldNameError(f"{where}: {message_cls.__qualname__} has no field {name!r}")
    here = f"{where}: {name}"
    if spec.kind is Kind.MESSAGE:
        if spec.repeated:
            return as_messages(value, spec.message_type, here)
        return as_message(value, spec.message_type, here)
    if spec.repeated:
        return [_scalar(spec.kind, v, f"{here}[{i}]") for i, v in enumerate(as_list(value, here))]
    return _scalar(spec.kind, value, here)
