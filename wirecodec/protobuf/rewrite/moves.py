"""Structure-aware mutation over any schema, the five moves of libprotobuf-mutator.

A move changes a record tree (:mod:`~wirecodec.protobuf.rewrite.records`) in place and
says whether it found something to change. Every move keeps the tree well-formed on the
wire: lengths are recomputed when it is written, values are of the field's wire type.

- ``add``: a field the schema declares, with a random value (a message with a few random
  fields of its own);
- ``delete``: a record removed;
- ``mutate``: a scalar's value changed (edge values, bit flips, bytes inserted or cut);
- ``copy``: a sub-message's contents replaced by a copy of another of the same type;
- ``clone``: a record (scalar or sub-message) copied into a message of the same type.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from schema_dsl import FieldSpec, Kind, Message
from wirecodec.protobuf.rewrite.records import (
    Fixed,
    Group,
    Nested,
    Packed,
    Payload,
    Raw,
    Record,
    Varint,
    levels,
)
from wirecodec.protobuf.rewrite.values import random_scalar, random_varint, spec_of

__all__ = ["MOVES", "Move", "clone_record", "random_message"]

Move = Callable[[list[Record], type[Message], random.Random, bool], bool]
"""``(records, cls, rng, valid_enums) -> whether something changed``."""


def clone_record(record: Record) -> Record:
    """A copy of a record deep enough that changing one never changes the other."""
    if isinstance(record, Nested):
        return Nested(
            record.number, record.cls, [clone_record(r) for r in record.records], record.length_width
        )
    if isinstance(record, Packed):
        return Packed(
            record.number, record.kind, list(record.values), list(record.widths), record.length_width
        )
    if isinstance(record, Varint):
        return Varint(record.number, record.value, record.width)
    if isinstance(record, Fixed):
        return Fixed(record.number, record.wire_type, record.value)
    if isinstance(record, Payload):
        return Payload(record.number, record.value, record.length_width)
    if isinstance(record, Group):
        return Group(record.number, record.body)
    return Raw(record.data)


def random_field(spec: FieldSpec, rng: random.Random, valid_enums: bool, depth: int) -> Record:
    """A record of ``spec`` with a random value; a message gets a few random fields."""
    if spec.kind is Kind.MESSAGE:
        return Nested(
            spec.number, spec.message_type, random_message(spec.message_type, rng, valid_enums, depth - 1)
        )
    if spec.repeated and spec.kind.packable and rng.random() < 0.3:
        values = [
            _packed_value(random_scalar(spec, rng, valid_enums=valid_enums)) for _ in range(rng.randint(0, 4))
        ]
        return Packed(spec.number, spec.kind, values)
    return random_scalar(spec, rng, valid_enums=valid_enums)


def _packed_value(record: Record) -> int | bytes:
    if isinstance(record, Varint):
        return record.value
    assert isinstance(record, Fixed)
    return record.value


def random_message(
    cls: type[Message], rng: random.Random, valid_enums: bool = True, depth: int = 3
) -> list[Record]:
    """The records of a small random ``cls`` message (at most ``depth`` levels deep)."""
    specs = cls.__schema__.fields
    if depth <= 0 or not specs:
        return []
    return [random_field(rng.choice(specs), rng, valid_enums, depth) for _ in range(rng.randint(0, 3))]


def add(records: list[Record], cls: type[Message], rng: random.Random, valid_enums: bool) -> bool:
    """A declared field added with a random value, anywhere in the tree."""
    level, level_cls = rng.choice(levels(records, cls))
    specs = level_cls.__schema__.fields
    if not specs:
        return False
    level.insert(rng.randint(0, len(level)), random_field(rng.choice(specs), rng, valid_enums, 2))
    return True


def delete(records: list[Record], cls: type[Message], rng: random.Random, valid_enums: bool) -> bool:
    """A record removed, anywhere in the tree."""
    filled = [level for level, _ in levels(records, cls) if level]
    if not filled:
        return False
    level = rng.choice(filled)
    del level[rng.randrange(len(level))]
    return True


def mutate_value(records: list[Record], cls: type[Message], rng: random.Random, valid_enums: bool) -> bool:
    """A scalar value changed: a varint to an edge value or with a bit flipped, an enum to
    another value (a declared one when ``valid_enums``), fixed-width bits flipped, bytes and
    strings flipped, cut or extended, one value of a packed run changed."""
    sites = [
        (level, i, level_cls)
        for level, level_cls in levels(records, cls)
        for i, record in enumerate(level)
        if isinstance(record, Varint | Fixed | Payload | Packed)
    ]
    if not sites:
        return False
    level, i, level_cls = rng.choice(sites)
    record = level[i]
    spec = spec_of(record, level_cls)
    if isinstance(record, Varint):
        if spec is not None and spec.kind is Kind.ENUM and valid_enums:
            level[i] = random_scalar(spec, rng)
        elif rng.random() < 0.5:
            record.value = random_varint(rng)
        else:
            record.value ^= 1 << rng.randrange(64)
    elif isinstance(record, Fixed):
        flipped = bytearray(record.value)
        flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
        record.value = bytes(flipped)
    elif isinstance(record, Payload):
        record.value = _mutate_bytes(bytes(record.value), rng)
    elif isinstance(record, Packed):
        _mutate_packed(record, rng)
    return True


def _mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    choice = rng.randrange(4) if out else 2
    if choice == 0:
        out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
    elif choice == 1:
        del out[rng.randrange(len(out)) :]
    elif choice == 2:
        at = rng.randint(0, len(out))
        out[at:at] = rng.randbytes(rng.randint(1, 8))
    else:
        out[rng.randrange(len(out))] = rng.choice(b"\x00\xff/.")
    return bytes(out)


def _mutate_packed(record: Packed, rng: random.Random) -> None:
    record.widths = []
    width = 0 if record.kind.wire_type == 0 else (4 if record.kind.wire_type == 5 else 8)
    fresh: int | bytes = random_varint(rng) if width == 0 else rng.randbytes(width)
    if record.values and rng.random() < 0.5:
        record.values[rng.randrange(len(record.values))] = fresh
    elif record.values and rng.random() < 0.5:
        del record.values[rng.randrange(len(record.values))]
    else:
        record.values.insert(rng.randint(0, len(record.values)), fresh)


def _nested_sites(records: list[Record], cls: type[Message]) -> list[Nested]:
    return [r for level, _ in levels(records, cls) for r in level if isinstance(r, Nested)]


def copy(records: list[Record], cls: type[Message], rng: random.Random, valid_enums: bool) -> bool:
    """A sub-message's contents replaced by a copy of another sub-message of the same type."""
    nested = _nested_sites(records, cls)
    by_type: dict[type[Message], list[Nested]] = {}
    for record in nested:
        by_type.setdefault(record.cls, []).append(record)
    pairs = [group for group in by_type.values() if len(group) >= 2]
    if not pairs:
        return False
    group = rng.choice(pairs)
    target, source = rng.sample(group, 2)
    target.records = [clone_record(r) for r in source.records]
    return True


def clone(records: list[Record], cls: type[Message], rng: random.Random, valid_enums: bool) -> bool:
    """A record copied into a message of the same type (the same one, or another anywhere):
    a repeated field gains an element, a singular one a later value (or a merge)."""
    found = levels(records, cls)
    sources = [(r, level_cls) for level, level_cls in found for r in level if not isinstance(r, Raw)]
    if not sources:
        return False
    source, source_cls = rng.choice(sources)
    targets = [level for level, level_cls in found if level_cls is source_cls]
    target = rng.choice(targets)
    target.insert(rng.randint(0, len(target)), clone_record(source))
    return True


MOVES: Final[dict[str, Move]] = {
    "add": add,
    "delete": delete,
    "mutate": mutate_value,
    "copy": copy,
    "clone": clone,
}
