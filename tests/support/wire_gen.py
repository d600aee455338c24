"""Hand-built wire records for any schema: small valid elements, their truncations and corruptions.

Test-only and independent of wirecodec: records are written from the encoding rules of
the protobuf encoding guide (varints, tags ``number << 3 | wire type``, little-endian
fixed widths, length prefixes, groups) by the tiny writer below, reading nothing but the
schema declarations (``cls.__schema__.fields``). That makes these bytes a reference the
codec under test did not produce.

- :func:`field_records` gives, for one message class, a few valid records of every
  field: each varint kind at one, two and ten bytes, fixed32/fixed64 values, strings,
  bytes, sub-messages (with one record inside), packed runs of every packable repeated
  field, and the field's number with a wrong wire type (an unknown field, per protobuf).
- :func:`unknown_records` gives records of an undeclared field number in every wire
  type, groups (nested ones too) included.
- :func:`small_elements` puts them together as element payloads;
  :func:`truncations` and :func:`corruptions` derive the malformed inputs.
- :func:`holder` declares a message with one ``repeated <cls> item = 1`` field, so any
  message type can be an element of a repeated message field (what lazy decoding defers);
  :func:`in_holder` frames payloads as that field's records.
- :func:`element_payloads` is the Hypothesis strategy over concatenations of records.
"""

from __future__ import annotations

import struct
import types
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import strategies as st

from schema_dsl import MESSAGE, FieldSpec, Kind, Message, WireType, repeated

__all__ = [
    "UNKNOWN_NUMBER",
    "corruptions",
    "element_payloads",
    "field_records",
    "frame",
    "holder",
    "in_holder",
    "small_elements",
    "tag",
    "truncations",
    "unknown_records",
    "varint",
]

# Declared by no ONNX message; two bytes of tag, so tags of every length are exercised.
UNKNOWN_NUMBER = 1000

# Raw varint values: one byte, two bytes, and ten bytes (-1 as a 64-bit integer).
_VARINTS = (1, 300, (1 << 64) - 1)
_FIXED_SIZE = {
    Kind.FLOAT: 4,
    Kind.FIXED32: 4,
    Kind.SFIXED32: 4,
    Kind.DOUBLE: 8,
    Kind.FIXED64: 8,
    Kind.SFIXED64: 8,
}


def varint(value: int) -> bytes:
    """The canonical (shortest) varint of an unsigned value below 2**64."""
    assert 0 <= value < 1 << 64, value
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def frame(number: int, payload: bytes) -> bytes:
    """A length-delimited record of field ``number``."""
    return tag(number, 2) + varint(len(payload)) + payload


def _fixed(kind: Kind) -> bytes:
    # 1.5 as float or double; for the integer kinds the same bytes are just a number.
    return struct.pack("<f", 1.5) if _FIXED_SIZE[kind] == 4 else struct.pack("<d", 1.5)


def _scalar_values(spec: FieldSpec, depth: int) -> list[bytes]:
    """Encoded values (without tag) of one occurrence of ``spec``."""
    kind = spec.kind
    if kind in _FIXED_SIZE:
        return [_fixed(kind)]
    if kind is Kind.STRING:
        return [varint(2) + b"ab"]
    if kind is Kind.BYTES:
        return [varint(2) + b"\x00\xff"]
    if kind is Kind.MESSAGE:
        inner = field_records(spec.message_type, depth - 1)[:1] if depth > 0 else []
        return [varint(0)] + [varint(len(r)) + r for r in inner]
    if kind is Kind.ENUM:
        # A declared value, and one outside the enum (protobuf keeps it as an unknown field).
        return [varint(min(spec.enum_values)), varint(1000)]
    return [varint(v) for v in _VARINTS]


def _packed_run(kind: Kind) -> bytes:
    body = _fixed(kind) * 2 if kind in _FIXED_SIZE else varint(1) + varint(300)
    return varint(len(body)) + body


def field_records(cls: type[Message], depth: int = 1) -> list[bytes]:
    """Valid records of every field of ``cls`` (see the module docstring); sub-messages to ``depth``."""
    out: list[bytes] = []
    for spec in cls.__schema__.fields:
        wire = int(spec.kind.wire_type)
        out += [tag(spec.number, wire) + value for value in _scalar_values(spec, depth)]
        if spec.repeated and spec.kind.packable:
            out.append(tag(spec.number, int(WireType.LEN)) + _packed_run(spec.kind))
    first = cls.__schema__.fields[0] if cls.__schema__.fields else None
    if first is not None:
        # The field's number with another wire type: kept as an unknown field.
        if first.kind.wire_type == WireType.I32:
            out.append(tag(first.number, 0) + varint(1))
        else:
            out.append(tag(first.number, 5) + bytes(4))
    return out


def unknown_records(number: int = UNKNOWN_NUMBER) -> list[bytes]:
    """One record of an undeclared field in every wire type, groups (and a nested group) included."""
    inner_group = tag(number + 1, 3) + tag(1, 0) + b"\x05" + tag(number + 1, 4)
    return [
        tag(number, 0) + varint(150),
        tag(number, 1) + bytes(range(8)),
        frame(number, b"xyz"),
        tag(number, 5) + bytes(range(4)),
        tag(number, 3) + tag(1, 0) + b"\x07" + tag(2, 5) + bytes(4) + tag(number, 4),
        tag(number, 3) + inner_group + tag(number, 4),
    ]


def small_elements(cls: type[Message]) -> list[bytes]:
    """Element payloads of ``cls``: empty, every record alone, every unknown record, and all at once."""
    records = field_records(cls)
    unknown = unknown_records()
    every_field = b"".join(records[i] for i in _one_per_field(records))
    return [b"", *records, *unknown, every_field + unknown[4]]


def _one_per_field(records: Sequence[bytes]) -> list[int]:
    """Indexes of the first record of each field number in ``records``."""
    seen: set[int] = set()
    picked: list[int] = []
    for i, record in enumerate(records):
        number = _tag_number(record)
        if number not in seen:
            seen.add(number)
            picked.append(i)
    return picked


def _tag_number(record: bytes) -> int:
    value, shift = 0, 0
    for byte in record:
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            break
    return value >> 3


def truncations(payload: bytes) -> Iterator[bytes]:
    """Every proper prefix of ``payload``."""
    for cut in range(len(payload)):
        yield payload[:cut]


# Each changes one byte's structure: a varint's continuation bit, a wire type's low bits
# (0<->1, 2<->3, 4<->5: fixed64 vs varint, LEN vs group), a length by one, and 0xFF.
_FLIPS = (0x80, 0x01, 0x04)


def corruptions(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(position, data with that byte corrupted)`` for every position and a few corruptions."""
    for pos, byte in enumerate(data):
        for new in {byte ^ flip for flip in _FLIPS} | {0xFF}:
            if new != byte:
                yield pos, data[:pos] + bytes([new]) + data[pos + 1 :]


def holder(cls: type[Message]) -> type[Message]:
    """A message declaring only ``repeated <cls> item = 1`` (the same class for the same ``cls``)."""
    made = _holders.get(cls)
    if made is None:
        _element_types.append(cls)
        name = f"Holder_{cls.__qualname__.replace('.', '_')}"
        # The annotation is resolved in this module's namespace, where the list lives.
        annotation = f"list[_element_types[{len(_element_types) - 1}]]"

        def body(namespace: dict[str, Any]) -> None:
            namespace.update(__module__=__name__, __qualname__=name, __annotations__={"item": annotation})
            namespace["item"] = repeated(1, MESSAGE)

        made = _holders[cls] = types.new_class(name, (Message,), {}, body)
    return made


_holders: dict[type[Message], type[Message]] = {}
_element_types: list[type[Message]] = []


def in_holder(payloads: Sequence[bytes]) -> bytes:
    """``payloads`` as consecutive records of a holder's ``item`` field."""
    return b"".join(frame(1, p) for p in payloads)


def element_payloads(cls: type[Message], max_records: int = 4) -> st.SearchStrategy[bytes]:
    """Concatenations of up to ``max_records`` of ``cls``'s field and unknown records."""
    pool = field_records(cls) + unknown_records()
    return st.lists(st.sampled_from(pool), max_size=max_records).map(b"".join)
