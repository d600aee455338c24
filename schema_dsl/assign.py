"""What a field accepts on assignment, and how the value is stored, as protobuf's Python API does.

Each field gets one converter, built on first use from its declaration: it returns the
value to store or raises TypeError / ValueError naming the field. Integers must be
``int`` or have ``__index__`` (numpy integers) and fit the kind's range (a ``bool`` is
refused, as protobuf refuses it); ``float`` fields round to float32 on assignment;
closed enums refuse numbers they do not declare and accept value names; ``string``
fields take ``str`` (or UTF-8 ``bytes``), and a lone surrogate or bytes that are not
UTF-8 are protobuf's ``UnicodeEncodeError`` / ``UnicodeDecodeError`` (ValueErrors);
``bytes`` fields take any bytes-like object (protobuf takes only ``bytes``): a view field
(``raw_data``) keeps a read-only ``memoryview`` as it is (zero copy), and every other buffer,
one the caller could change afterwards, is copied. Decoders do not come through here:
what they store is valid by construction.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from schema_dsl.fields import FieldSpec, Kind

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = ["INT_RANGES", "Converter", "FieldNameError", "element_converter"]

Converter = Callable[[Any], Any]

INT_RANGES: Final = {
    Kind.INT32: (-(1 << 31), (1 << 31) - 1),
    Kind.SINT32: (-(1 << 31), (1 << 31) - 1),
    Kind.SFIXED32: (-(1 << 31), (1 << 31) - 1),
    Kind.ENUM: (-(1 << 31), (1 << 31) - 1),
    Kind.INT64: (-(1 << 63), (1 << 63) - 1),
    Kind.SINT64: (-(1 << 63), (1 << 63) - 1),
    Kind.SFIXED64: (-(1 << 63), (1 << 63) - 1),
    Kind.UINT32: (0, (1 << 32) - 1),
    Kind.FIXED32: (0, (1 << 32) - 1),
    Kind.UINT64: (0, (1 << 64) - 1),
    Kind.FIXED64: (0, (1 << 64) - 1),
}
_pack_f32: Final = struct.Struct("<f").pack
_unpack_f32: Final = struct.Struct("<f").unpack


class FieldNameError(AttributeError, TypeError, ValueError):
    """A name that is not a field of the message.

    An AttributeError on assignment (as protobuf raises), and a TypeError/ValueError
    from the keyword constructor (protobuf raises ValueError there).
    """


def _type_name(value: object) -> str:
    return type(value).__qualname__


def _integer(spec: FieldSpec) -> Converter:
    low, high = INT_RANGES[spec.kind]
    name = spec.full_name

    def convert(value: Any) -> int:
        if type(value) is int:
            number = value
        elif isinstance(value, bool):
            raise TypeError(f"{name}: expected an int, got a boolean")
        else:
            try:
                number = operator.index(value)
            except TypeError:
                raise TypeError(f"{name}: expected an int, got {_type_name(value)}") from None
        if not low <= number <= high:
            raise ValueError(f"{name}: value out of range for {spec.kind.value}: {number}")
        return number

    return convert


def _enum(spec: FieldSpec) -> Converter:
    assert spec.enum_type is not None
    as_int = _integer(spec)
    known = frozenset(int(m) for m in spec.enum_type)
    names = {m.name: int(m) for m in spec.enum_type}
    name = spec.full_name

    def convert(value: Any) -> int:
        if isinstance(value, str):
            if value not in names:
                raise ValueError(f"{name}: {spec.enum_type.__name__} has no value named {value!r}")  # type: ignore[union-attr]
            return names[value]
        number = as_int(value)
        if number not in known:
            raise ValueError(f"{name}: invalid enumerator {number}")
        return int(number)

    return convert


def _floating(spec: FieldSpec) -> Converter:
    name = spec.full_name
    single = spec.kind is Kind.FLOAT

    def convert(value: Any) -> float:
        if type(value) is float:
            number = value
        elif isinstance(value, (str, bytes, bytearray)) or (
            not hasattr(value, "__float__") and not hasattr(value, "__index__")
        ):
            raise TypeError(f"{name}: expected a real number, got {_type_name(value)}")
        else:
            number = float(value)
        if number != number:
            # A NaN keeps its object: a float subclass read from the wire carries its exact bits.
            return value if isinstance(value, float) else number
        if not single:
            return number
        try:
            return float(_unpack_f32(_pack_f32(number))[0])
        except OverflowError:  # beyond float32: infinity, as a C cast gives
            return math.copysign(math.inf, number)

    return convert


def _boolean(spec: FieldSpec) -> Converter:
    name = spec.full_name

    def convert(value: Any) -> bool:
        if isinstance(value, bool):
            return value
        try:
            return bool(operator.index(value))
        except TypeError:
            raise TypeError(f"{name}: expected a bool, got {_type_name(value)}") from None

    return convert


def _string(spec: FieldSpec) -> Converter:
    name = spec.full_name

    def convert(value: Any) -> str:
        if type(value) is not str:
            if isinstance(value, str):
                value = str(value)
            elif isinstance(value, bytes):
                return _utf8_decoded(name, value)
            else:
                raise TypeError(f"{name}: expected str, got {_type_name(value)}")
        if not value.isascii():
            _check_encodable(name, value)
        return value  # type: ignore[no-any-return]

    return convert


def _utf8_decoded(name: str, value: bytes) -> str:
    """``value`` decoded, or protobuf's UnicodeDecodeError (a ValueError) naming the field."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError as exc:
        reason = f"{exc.reason} (bytes given for the string field {name} are not UTF-8)"
        raise UnicodeDecodeError(exc.encoding, exc.object, exc.start, exc.end, reason) from None


def _check_encodable(name: str, value: str) -> None:
    """A lone surrogate has no UTF-8 form: refused at assignment, as protobuf does
    (not written later as the byte a decoder's surrogate escape stands for)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        reason = f"{exc.reason} (the string field {name} holds UTF-8 text)"
        raise UnicodeEncodeError(exc.encoding, exc.object, exc.start, exc.end, reason) from None


def _bytes(spec: FieldSpec) -> Converter:
    name = spec.full_name
    view = spec.view

    def convert(value: Any) -> Any:
        if type(value) is bytes:
            return value
        if isinstance(value, str):
            raise TypeError(f"{name}: expected bytes, got str (encode it first)")
        if view and isinstance(value, memoryview) and value.readonly:
            return value  # zero copy: a read-only view (of a mapped file, a from_array(copy=False))
        try:
            memoryview(value)
        except TypeError:
            raise TypeError(f"{name}: expected bytes, got {_type_name(value)}") from None
        # A buffer the caller can still change (bytearray, array, writable view) is copied:
        # the value assigned is the message's own, never the caller's buffer.
        return bytes(value)

    return convert


def _message(spec: FieldSpec) -> Converter:
    name = spec.full_name

    def convert(value: Any) -> Message:
        expected = spec.message_type
        if getattr(value, "__schema__", None) is not expected.__schema__:
            hint = ""
            if hasattr(value, "SerializeToString") and not hasattr(value, "__schema__"):
                hint = (
                    f" (a protobuf message: convert it with "
                    f"{expected.__qualname__}.FromString(message.SerializeToString()))"
                )
            raise TypeError(
                f"{name}: expected {expected.__module__}.{expected.__qualname__}, "
                f"got {type(value).__module__}.{_type_name(value)}{hint}"
            )
        return value  # type: ignore[no-any-return]

    return convert


def element_converter(spec: FieldSpec) -> Converter:
    """The converter of one value of ``spec`` (one element, for a repeated field)."""
    if spec.kind is Kind.MESSAGE:
        return _message(spec)
    if spec.kind is Kind.ENUM:
        return _enum(spec)
    if spec.kind in INT_RANGES:
        return _integer(spec)
    if spec.kind in (Kind.FLOAT, Kind.DOUBLE):
        return _floating(spec)
    if spec.kind is Kind.BOOL:
        return _boolean(spec)
    if spec.kind is Kind.STRING:
        return _string(spec)
    return _bytes(spec)
