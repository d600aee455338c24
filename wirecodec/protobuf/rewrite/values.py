"""Random values and records for a schema's fields, and which records a parser counts as known.

Shared by the rewrite kinds (earlier values of a singular field, unknown fields), the
invalid kinds and the mutator; knows only schema_dsl's field kinds.
"""

from __future__ import annotations

import random
import string
from typing import Final

from schema_dsl import FieldSpec, Kind, Message, WireType
from wirecodec.protobuf.rewrite.records import (
    Fixed,
    Group,
    Nested,
    Packed,
    Payload,
    Raw,
    Record,
    Varint,
    declared,
    emit,
)

__all__ = [
    "INTERESTING_VARINTS",
    "is_known",
    "is_singular_message",
    "packable_spec",
    "random_varint",
    "order_key",
    "random_scalar",
    "random_unknown",
    "spec_of",
    "undeclared_number",
]

# Varint values at the edges of every integer kind (as uint64 on the wire).
INTERESTING_VARINTS: Final = (
    0,
    1,
    2,
    127,
    128,
    255,
    16383,
    16384,
    (1 << 31) - 1,
    1 << 31,
    (1 << 32) - 1,
    1 << 32,
    (1 << 63) - 1,
    1 << 63,
    (1 << 64) - 1,  # -1 as int64 / int32
    (1 << 64) - (1 << 31),  # INT32_MIN sign-extended
)
_FIXED_WIDTH: Final = {
    Kind.FIXED32: 4,
    Kind.SFIXED32: 4,
    Kind.FLOAT: 4,
    Kind.FIXED64: 8,
    Kind.SFIXED64: 8,
    Kind.DOUBLE: 8,
}
_RESERVED: Final = range(19000, 20000)
_MAX_NUMBER: Final = (1 << 29) - 1


def spec_of(record: Record, cls: type[Message]) -> FieldSpec | None:
    """The declared field a parser reads ``record`` as, or None when it is unknown to it
    (undeclared number, or a wire type the field cannot take)."""
    if isinstance(record, Raw):
        return None
    spec = declared(cls, record.number)
    return spec if spec is not None and is_known(record, spec) else None


def is_known(record: Record, spec: FieldSpec) -> bool:
    """Whether a parser reads ``record`` as field ``spec`` (its wire type, or packed form; for
    a closed enum, a declared value)."""
    wire = spec.kind.wire_type
    if isinstance(record, Varint):
        # A closed enum's undeclared value goes to the unknown fields, not into the field.
        if spec.kind is Kind.ENUM and spec.enum_type is not None:
            return _as_int32(record.value) in spec.enum_values
        return wire == WireType.VARINT
    if isinstance(record, Fixed):
        return int(wire) == record.wire_type
    if isinstance(record, Nested | Payload):
        return wire == WireType.LEN or (spec.repeated and spec.kind.packable)
    return bool(isinstance(record, Packed))


def _as_int32(value: int) -> int:
    """A varint as an enum (an int32) reads it: the low 32 bits, signed."""
    low = value & 0xFFFFFFFF
    return low - (1 << 32) if low >= 1 << 31 else low


def order_key(record: Record, cls: type[Message]) -> object:
    """Records with the same key keep their order under any reordering: one field's records
    (repeated order, last one wins), one oneof's members (the last set wins), and all
    unknown fields (a parser keeps them in order)."""
    spec = spec_of(record, cls)
    if spec is None:
        return "unknown"
    if spec.oneof is not None:
        return ("oneof", spec.oneof)
    return spec.number


def random_varint(rng: random.Random) -> int:
    """An edge value most of the time, otherwise any uint64."""
    if rng.random() < 0.7:
        return rng.choice(INTERESTING_VARINTS)
    return rng.getrandbits(rng.choice((7, 14, 32, 64)))


def random_scalar(spec: FieldSpec, rng: random.Random, *, valid_enums: bool = True) -> Record:
    """A record of scalar field ``spec`` (not a message) with a random value of its kind.

    Enum values stay among the declared ones when ``valid_enums`` (a closed enum sends
    any other value to the unknown fields).
    """
    kind = spec.kind
    if kind is Kind.ENUM and valid_enums and spec.enum_type is not None:
        return Varint(spec.number, rng.choice(sorted(spec.enum_values)) % (1 << 64))
    if kind is Kind.BOOL:
        return Varint(spec.number, rng.choice((0, 1)))
    if kind.wire_type == WireType.VARINT:
        return Varint(spec.number, random_varint(rng))
    if kind in _FIXED_WIDTH:
        width = _FIXED_WIDTH[kind]
        return Fixed(spec.number, int(kind.wire_type), rng.randbytes(width))
    if kind is Kind.STRING:
        text = "".join(
            rng.choice(string.ascii_letters + string.digits + "_./") for _ in range(rng.randint(0, 12))
        )
        return Payload(spec.number, text.encode())
    return Payload(spec.number, rng.randbytes(rng.randint(0, 16)))


def undeclared_number(cls: type[Message], rng: random.Random) -> int:
    """A field number ``cls`` does not declare: just past its own, or anywhere up to 2**29 - 1."""
    taken = cls.__schema__.by_number
    while True:
        if rng.random() < 0.5:
            number = max(taken, default=0) + rng.randint(1, 20)
        else:
            number = rng.randint(1, _MAX_NUMBER)
        if number not in taken and number not in _RESERVED:
            return number


def _wrong_wire_types(spec: FieldSpec) -> list[int]:
    usable = {int(WireType.VARINT), int(WireType.I64), int(WireType.I32), int(WireType.LEN)}
    usable.discard(int(spec.kind.wire_type))
    if spec.repeated and spec.kind.packable:
        usable.discard(int(WireType.LEN))  # that is the packed form, read as the field
    return sorted(usable)


def random_unknown(cls: type[Message], rng: random.Random) -> Record:
    """A record a parser of ``cls`` keeps as an unknown field: an undeclared number in any
    wire type (groups, nested ones too), or a declared number in a wire type it cannot take."""
    specs = cls.__schema__.fields
    if specs and rng.random() < 0.25:
        spec = rng.choice(specs)
        wire_types = _wrong_wire_types(spec)
        return _value_of(spec.number, rng.choice(wire_types), rng, 2)
    number = undeclared_number(cls, rng)
    wire = rng.choice((WireType.VARINT, WireType.I64, WireType.LEN, WireType.SGROUP, WireType.I32))
    return _value_of(number, int(wire), rng, 2)


def _value_of(number: int, wire_type: int, rng: random.Random, depth: int) -> Record:
    if wire_type == WireType.VARINT:
        return Varint(number, random_varint(rng))
    if wire_type == WireType.I64:
        return Fixed(number, wire_type, rng.randbytes(8))
    if wire_type == WireType.I32:
        return Fixed(number, wire_type, rng.randbytes(4))
    if wire_type == WireType.LEN:
        return Payload(number, rng.randbytes(rng.randint(0, 12)))
    inner: list[Record] = []
    for _ in range(rng.randint(0, 3)):
        wire = rng.choice((WireType.VARINT, WireType.I64, WireType.LEN, WireType.I32, WireType.SGROUP))
        if wire == WireType.SGROUP and depth <= 0:
            wire = WireType.VARINT
        inner.append(_value_of(rng.randint(1, 3000), int(wire), rng, depth - 1))
    return Group(number, emit(inner))


def is_singular_message(record: Record, cls: type[Message]) -> bool:
    """A record of a singular message field (occurrences of it merge)."""
    spec = spec_of(record, cls)
    return isinstance(record, Nested) and spec is not None and not spec.repeated


def packable_spec(record: Record, cls: type[Message]) -> FieldSpec | None:
    """The repeated scalar field an unpacked Varint/Fixed record or a Packed record belongs to."""
    spec = spec_of(record, cls)
    if spec is None or not (spec.repeated and spec.kind.packable):
        return None
    return spec if isinstance(record, Varint | Fixed | Packed) else None
