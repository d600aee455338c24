"""Malformed encodings every conforming parser must refuse, placed at any depth of a message.

Each kind is a function ``(records, cls, rng) -> bytes``: it picks a level of the tree
(the message itself or any sub-message, however deep), puts a malformed record there,
and writes the whole tree back with every enclosing length recomputed, so the only
fault is the one placed. Its docstring says which protobuf rule the result breaks
(encoding guide: https://protobuf.dev/programming-guides/encoding/; conformance suite
names from conformance/binary_json_conformance_suite.cc).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from schema_dsl import Message, WireType
from wirecodec.protobuf.rewrite.records import (
    Nested,
    Payload,
    Raw,
    Record,
    emit,
    levels,
    tag_bytes,
    varint_bytes,
)
from wirecodec.protobuf.rewrite.values import undeclared_number

__all__ = ["INVALID", "InvalidKind"]

Spoil = Callable[[list[Record], type[Message], random.Random], bytes]


@dataclass(frozen=True)
class InvalidKind:
    """One kind of malformed encoding: its name, how it is made, and the rule it breaks."""

    name: str
    make: Spoil

    @property
    def doc(self) -> str:
        """What the kind writes and why a parser must refuse it (the function's docstring)."""
        return (self.make.__doc__ or "").strip()


def _some_level(
    records: list[Record], cls: type[Message], rng: random.Random
) -> tuple[list[Record], type[Message]]:
    found = levels(records, cls)
    # Half the time the top level, otherwise any level (most of a model's levels are deep).
    return found[0] if rng.random() < 0.3 else rng.choice(found)


def _some_number(cls: type[Message], rng: random.Random) -> int:
    specs = cls.__schema__.fields
    return rng.choice(specs).number if specs and rng.random() < 0.5 else undeclared_number(cls, rng)


def _insert_anywhere(records: list[Record], cls: type[Message], rng: random.Random, data: bytes) -> bytes:
    level, _ = _some_level(records, cls, rng)
    level.insert(rng.randint(0, len(level)), Raw(data))
    return emit(records)


def long_tag(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """A tag padded to 6-10 bytes (its value fits in 32 bits).

    Encoding guide, "Message Structure": a tag is a uint32 varint, so at most 5 bytes;
    upb refuses a longer one (no conformance case covers it).
    """
    level, level_cls = _some_level(records, cls, rng)
    number = _some_number(level_cls, rng)
    tag = varint_bytes(number << 3 | WireType.VARINT, rng.randint(6, 10))
    level.insert(rng.randint(0, len(level)), Raw(tag + b"\x01"))
    return emit(records)


def field_zero(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """A record with field number 0 (any wire type, a well-formed value).

    Language guide, "Assigning Field Numbers": numbers run from 1. Conformance:
    ``IllegalZeroFieldNum_Case_0`` to ``_3``.
    """
    wire = rng.choice((WireType.VARINT, WireType.I64, WireType.LEN, WireType.I32))
    value = {WireType.VARINT: b"\x01", WireType.I64: bytes(8), WireType.LEN: b"\x00", WireType.I32: bytes(4)}[
        wire
    ]
    return _insert_anywhere(records, cls, rng, tag_bytes(0, wire) + value)


def length_past_end(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """The last record of a message claims more bytes than the message has left.

    Encoding guide, "Length-Delimited Records" (the length counts bytes that follow,
    inside the enclosing message). Conformance: ``PrematureEofInSubmessageValue.<TYPE>``,
    ``PrematureEofInDelimitedDataForKnownNonRepeatedValue.<TYPE>``.
    """
    level, level_cls = _some_level(records, cls, rng)
    present = rng.randbytes(rng.randint(0, 4))
    claimed = len(present) + rng.choice((1, 2, 100, 1 << 20))
    level.append(Raw(tag_bytes(_some_number(level_cls, rng), WireType.LEN) + varint_bytes(claimed) + present))
    return emit(records)


def length_2gib(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """A length prefix of 2 GiB or more (up to 2**64 - 1).

    Encoding guide, "Length-Delimited Records": a length is an int32, and no encoded
    message exceeds 2 GiB; upb refuses larger ones (no conformance case covers it).
    """
    level, level_cls = _some_level(records, cls, rng)
    claimed = rng.choice((1 << 31, (1 << 32) - 1, 1 << 32, (1 << 63), (1 << 64) - 1))
    data = tag_bytes(_some_number(level_cls, rng), WireType.LEN) + varint_bytes(claimed) + b"\x00\x00"
    level.insert(rng.randint(0, len(level)), Raw(data))
    return emit(records)


def long_varint(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """A varint value written in 11 or more bytes.

    Encoding guide, "Base 128 Varints": at most 10 bytes; upb refuses more (no
    conformance case covers it).
    """
    level, level_cls = _some_level(records, cls, rng)
    value = b"\x80" * rng.randint(10, 12) + b"\x00"
    level.insert(
        rng.randint(0, len(level)), Raw(tag_bytes(_some_number(level_cls, rng), WireType.VARINT) + value)
    )
    return emit(records)


def unbalanced_group(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """A group left open at the end of its message, an end-group tag with no start, or a
    group closed by another field's end tag.

    Encoding guide, "Groups" (SGROUP and EGROUP of the same number enclose a group).
    Conformance: ``UnmatchedStartGroup*``, ``UnmatchedEndGroup*``, ``MismatchedGroupTags``.
    """
    level, level_cls = _some_level(records, cls, rng)
    number = undeclared_number(level_cls, rng)
    shape = rng.choice(("open", "end_only", "mismatched"))
    if shape == "open":
        level.append(Raw(tag_bytes(number, WireType.SGROUP) + tag_bytes(number, WireType.VARINT) + b"\x01"))
    elif shape == "end_only":
        level.insert(rng.randint(0, len(level)), Raw(tag_bytes(number, WireType.EGROUP)))
    else:
        other = number + 1 if number < (1 << 29) - 1 else number - 1
        data = tag_bytes(number, WireType.SGROUP) + tag_bytes(other, WireType.EGROUP)
        level.insert(rng.randint(0, len(level)), Raw(data))
    return emit(records)


def bad_wire_type(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """A tag with wire type 6 or 7 (no such wire type).

    Encoding guide, "Message Structure" lists wire types 0-5. Conformance:
    ``UnknownWireType6_Field0_Version0`` and the rest of that family.
    """
    level, level_cls = _some_level(records, cls, rng)
    data = tag_bytes(_some_number(level_cls, rng), rng.choice((6, 7))) + b"\x00"
    level.insert(rng.randint(0, len(level)), Raw(data))
    return emit(records)


def truncated(records: list[Record], cls: type[Message], rng: random.Random) -> bytes:
    """The input, or one sub-message at any depth (enclosing lengths fixed), cut inside a record.

    Encoding guide: every record is a complete tag and value. Conformance: the
    ``PrematureEof*`` family (``PrematureEofInPackedFieldValue.<TYPE>``, ...).
    """
    holders = [
        (level, i)
        for level, _ in levels(records, cls)
        for i, record in enumerate(level)
        if isinstance(record, Nested) and record.records
    ]
    if not holders or rng.random() < 0.3:
        return _cut_inside(records, rng)
    level, i = rng.choice(holders)
    child = level[i]
    assert isinstance(child, Nested)
    level[i] = Payload(child.number, _cut_inside(child.records, rng))
    return emit(records)


def _cut_inside(records: list[Record], rng: random.Random) -> bytes:
    """The bytes of ``records`` cut strictly inside one of them."""
    pieces = [emit([record]) for record in records]
    candidates = [i for i, piece in enumerate(pieces) if len(piece) >= 2]
    if not candidates:  # an empty message: a lone byte that starts a record is a cut record
        return b"\x08"
    i = rng.choice(candidates)
    return b"".join(pieces[:i]) + pieces[i][: rng.randint(1, len(pieces[i]) - 1)]


INVALID: Final[dict[str, InvalidKind]] = {
    kind.__name__: InvalidKind(kind.__name__, kind)
    for kind in (
        long_tag,
        field_zero,
        length_past_end,
        length_2gib,
        long_varint,
        unbalanced_group,
        bad_wire_type,
        truncated,
    )
}
