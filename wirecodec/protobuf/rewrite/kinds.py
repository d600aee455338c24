"""Semantics-preserving rewrites of one message level: encodings protobuf's own serializers
never write but every conforming parser must read as the same message.

Each kind is a function ``(level, cls, rng, rate) -> changes`` that rewrites one level's
record list in place (the driver in :mod:`wirecodec.protobuf.rewrite` visits every level,
innermost first) and acts on each eligible record with probability ``rate``. Its
docstring cites where protobuf says a parser must accept the result: the encoding guide
(https://protobuf.dev/programming-guides/encoding/) and the conformance suite's test names
(conformance/binary_json_conformance_suite.cc).
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from schema_dsl import Kind, Message, WireType
from wirecodec.protobuf.rewrite.records import (
    Fixed,
    Nested,
    Packed,
    Payload,
    Record,
    Varint,
    emit,
    packed_body,
)
from wirecodec.protobuf.rewrite.values import (
    is_singular_message,
    order_key,
    packable_spec,
    random_scalar,
    random_unknown,
    spec_of,
)
from wirecodec.protobuf.wire import varint_size

__all__ = ["REWRITES", "RewriteKind"]

LevelRewrite = Callable[[list[Record], type[Message], random.Random, float], int]


@dataclass(frozen=True)
class RewriteKind:
    """One kind of rewrite: its name, what it does to a level, and where protobuf allows it."""

    name: str
    apply: LevelRewrite

    @property
    def doc(self) -> str:
        """The kind's description and its citation (the function's docstring)."""
        return (self.apply.__doc__ or "").strip()


def reorder(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """Fields written in another order; the records of one field (and of one oneof, and the
    unknown fields) keep their relative order.

    Encoding guide, "Field Order": parsers must be able to parse fields in any order;
    serializers write them by number only as a convention. Conformance:
    ``ValidDataMap.*.Unordered`` (fields of an entry out of order), ``UnknownOrdering``
    (one number's records keep their order).
    """
    if len(level) < 2 or rng.random() >= rate:
        return 0
    keys = [order_key(record, cls) for record in level]
    queues: dict[object, deque[Record]] = defaultdict(deque)
    for key, record in zip(keys, level, strict=True):
        queues[key].append(record)
    rng.shuffle(keys)
    reordered = [queues[key].popleft() for key in keys]
    changed = any(a is not b for a, b in zip(reordered, level, strict=True))
    level[:] = reordered
    return int(changed)


def unpack(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """A packed run of a repeated scalar field written as one record per value.

    Encoding guide, "Packed Repeated Fields": "Protocol buffer parsers must be able to parse
    repeated fields that were compiled as packed as if they were not packed, and vice
    versa". Conformance: ``ValidDataRepeated.<TYPE>.UnpackedInput``.
    """
    changes = 0
    out: list[Record] = []
    for record in level:
        if isinstance(record, Packed) and rng.random() < rate:
            out.extend(_single(record, i) for i in range(len(record.values)))
            changes += 1
        else:
            out.append(record)
    level[:] = out
    return changes


def _single(record: Packed, index: int) -> Record:
    value = record.values[index]
    if isinstance(value, int):
        width = record.widths[index] if record.widths else 0
        return Varint(record.number, value, width)
    return Fixed(record.number, int(record.kind.wire_type), value)


def _runs(level: list[Record], cls: type[Message]) -> list[tuple[int, int]]:
    """Maximal runs ``[start, stop)`` of unpacked values of one repeated scalar field."""
    runs: list[tuple[int, int]] = []
    i = 0
    while i < len(level):
        record = level[i]
        if isinstance(record, Varint | Fixed) and packable_spec(record, cls) is not None:
            j = i + 1
            while j < len(level) and _same_field(level[j], record, cls):
                j += 1
            runs.append((i, j))
            i = j
        else:
            i += 1
    return runs


def _same_field(record: Record, first: Varint | Fixed, cls: type[Message]) -> bool:
    """Whether ``record`` is another known unpacked value of ``first``'s field (a record of
    the same number in another wire type is an unknown field, not part of the run)."""
    return type(record) is type(first) and record.number == first.number and spec_of(record, cls) is not None


def _as_packed(records: list[Record], cls: type[Message]) -> Packed:
    spec = packable_spec(records[0], cls)
    assert spec is not None
    values: list[int | bytes] = []
    widths: list[int] = []
    for record in records:
        if isinstance(record, Varint):
            values.append(record.value)
            widths.append(record.width)
        elif isinstance(record, Fixed):
            values.append(record.value)
    return Packed(spec.number, spec.kind, values, widths if spec.kind.wire_type == WireType.VARINT else [])


def pack(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """Consecutive unpacked values of a repeated scalar field written as one packed record,
    whether or not the ``.proto`` says ``[packed = true]``.

    Encoding guide, "Packed Repeated Fields" ("... and vice versa"); conformance:
    ``ValidDataRepeated.<TYPE>.PackedInput`` (on unpacked fields too).
    """
    changes = 0
    for start, stop in reversed(_runs(level, cls)):
        if rng.random() < rate:
            level[start:stop] = [_as_packed(level[start:stop], cls)]
            changes += 1
    return changes


def split_packed(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """One field's packed run (or run of unpacked values) written as several packed records,
    some possibly empty; a parser concatenates them.

    Encoding guide, "Packed Repeated Fields": "... parsers must be prepared to accept
    multiple key-value pairs. In this case, the payloads should be concatenated."
    Conformance: no case feeds several packed records; ``ValidDataRepeated.<TYPE>.PackedInput``
    feeds one.
    """
    changes = 0
    spans = [(i, i + 1) for i, r in enumerate(level) if isinstance(r, Packed)] + _runs(level, cls)
    for start, stop in sorted(spans, reverse=True):
        if rng.random() >= rate:
            continue
        whole = level[start] if isinstance(level[start], Packed) else _as_packed(level[start:stop], cls)
        assert isinstance(whole, Packed)
        cuts = sorted(rng.randint(0, len(whole.values)) for _ in range(rng.randint(1, 3)))
        bounds = [0, *cuts, len(whole.values)]
        widths = whole.widths or []
        pieces: list[Record] = [
            Packed(whole.number, whole.kind, whole.values[a:b], widths[a:b] if widths else [])
            for a, b in itertools.pairwise(bounds)
        ]
        level[start:stop] = pieces
        changes += 1
    return changes


def last_wins(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """A singular scalar field given other values before its last one (for a oneof member,
    values of the oneof's other scalar members too); the last one read is kept.

    Encoding guide, "Last One Wins": "Normally, an encoded message would never have more
    than one instance of a non-repeated field. However, parsers are expected to handle the
    case in which they do ... the parser accepts the last value it sees." Conformance:
    ``RepeatedScalarSelectsLast.<TYPE>``, ``ValidDataOneof.<TYPE>.MultipleValuesForDifferentField``.
    """
    last: dict[object, int] = {}
    for i, record in enumerate(level):
        last[order_key(record, cls)] = i
    insertions: list[tuple[int, Record]] = []
    for i, record in enumerate(level):
        spec = spec_of(record, cls)
        if spec is None or spec.repeated or isinstance(record, Nested) or last[order_key(record, cls)] != i:
            continue
        if rng.random() >= rate:
            continue
        choices = [spec]
        if spec.oneof is not None:
            choices = [
                s for s in cls.__schema__.fields if s.oneof == spec.oneof and s.kind is not Kind.MESSAGE
            ]
        for _ in range(rng.randint(1, 3)):
            insertions.append((rng.randint(0, i), random_scalar(rng.choice(choices), rng)))
    for position, record in sorted(insertions, key=lambda item: item[0], reverse=True):
        level.insert(position, record)
    return len(insertions)


def split_message(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """A singular sub-message written as several occurrences (cut between its records) that a
    parser merges back into one.

    Encoding guide, "Last One Wins": "for embedded message fields, the parser merges
    multiple instances of the same field, as if with the ``Message::MergeFrom`` method".
    Conformance: ``RepeatedScalarMessageMerge``, ``ValidDataOneof.MESSAGE.Merge``.
    """
    changes = 0
    out: list[Record] = []
    for record in level:
        if isinstance(record, Nested) and is_singular_message(record, cls) and rng.random() < rate:
            inner = record.records
            cuts = sorted(rng.randint(0, len(inner)) for _ in range(rng.randint(1, 2)))
            bounds = [0, *cuts, len(inner)]
            out.extend(Nested(record.number, record.cls, inner[a:b]) for a, b in itertools.pairwise(bounds))
            changes += 1
        else:
            out.append(record)
    level[:] = out
    return changes


def overlong_varint(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """Varint values (of fields and of packed runs) padded with continuation bytes, up to the
    10 bytes a varint may take.

    Encoding guide, "Base 128 Varints" (a varint is at most 10 bytes; the value is the
    concatenation of the 7-bit groups, so leading zero groups change nothing).
    Conformance: ``ValidDataScalar.<TYPE>[i]`` feeds overlong varints (e.g. an INT32 of
    ten bytes whose value is 0) that must read as their value.
    """
    changes = 0
    for record in level:
        if isinstance(record, Varint) and varint_size(record.value) < 10 and rng.random() < rate:
            record.width = rng.randint(varint_size(record.value) + 1, 10)
            changes += 1
        elif isinstance(record, Packed) and record.kind.wire_type == WireType.VARINT and rng.random() < rate:
            record.widths = [
                rng.randint(varint_size(v), 10) if isinstance(v, int) and rng.random() < 0.5 else 0
                for v in record.values
            ]
            changes += 1
    return changes


def padded_length(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """Length prefixes (sub-messages, strings, bytes, packed runs) padded to up to 5 bytes.

    Encoding guide, "Length-Delimited Records": the length is a varint (an int32: at most
    5 bytes), read like any other varint. Conformance: no case pads a length; the rule
    is the varint one of ``ValidDataScalar.<TYPE>[i]``.
    """
    changes = 0
    for record in level:
        if isinstance(record, Nested | Payload | Packed) and rng.random() < rate:
            size = _payload_size(record)
            if varint_size(size) < 5:
                record.length_width = rng.randint(varint_size(size) + 1, 5)
                changes += 1
    return changes


def _payload_size(record: Nested | Payload | Packed) -> int:
    if isinstance(record, Payload):
        return len(record.value)
    if isinstance(record, Nested):
        return len(emit(record.records))
    return len(packed_body(record))


def unknown_fields(level: list[Record], cls: type[Message], rng: random.Random, rate: float) -> int:
    """Records the schema does not know (undeclared numbers in every wire type, groups
    included, and declared numbers in a wire type the field cannot take) inserted among
    the fields; a parser keeps them as unknown fields and reads the known ones unchanged.

    Encoding guide, "Message Structure" (unknown fields are skipped by wire type) and the
    Language Guide's "Unknown Fields" (preserved on parse). Conformance:
    ``UnknownVarint``, ``UnknownOrdering``.
    """
    if rng.random() >= rate:
        return 0
    count = rng.randint(1, 3)
    for _ in range(count):
        level.insert(rng.randint(0, len(level)), random_unknown(cls, rng))
    return count


# Applied in this order, so packing happens before a run is split or unpacked, and
# paddings come last (they apply to the records the others made).
REWRITES: Final[dict[str, RewriteKind]] = {
    kind.__name__: RewriteKind(kind.__name__, kind)
    for kind in (
        last_wins,
        unknown_fields,
        split_message,
        pack,
        split_packed,
        unpack,
        reorder,
        overlong_varint,
        padded_length,
    )
}
