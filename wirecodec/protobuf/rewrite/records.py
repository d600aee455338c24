"""A message's wire records as a tree that can be rearranged and written back, any schema.

:func:`parse` reads bytes as a list of records, descending into every field the schema
declares as a message (so subgraphs, functions and tensors inside attributes are levels
too) and splitting every packed run of a repeated scalar field into its values; anything
else (strings, bytes, unknown fields, groups) stays as the bytes it was. :func:`emit`
writes a tree back, computing every length from what is written, so a rewrite that
moves, adds or removes records deep inside still gives well-formed enclosing lengths.

Each record remembers only what the wire says, plus the encoding choices a rewrite may
change (the width of a varint or of a length prefix); nothing is interpreted beyond the
schema's field kinds, so parse then emit gives back the original bytes of any canonical
input.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, TypeAlias

from schema_dsl import FieldSpec, Kind, Message, WireType
from wirecodec.errors import DecodeError, LimitError
from wirecodec.protobuf.wire import encode_varint, read_varint, varint_size

__all__ = [
    "MAX_DEPTH",
    "Fixed",
    "Group",
    "Nested",
    "Packed",
    "Payload",
    "Raw",
    "Record",
    "Varint",
    "declared",
    "emit",
    "levels",
    "packed_body",
    "parse",
    "tag_bytes",
    "varint_bytes",
]

# Past protobuf's default recursion limit (100), so models made deep on purpose can be
# rewritten and mutated again; bounded so a hostile input cannot exhaust Python's stack.
MAX_DEPTH: Final = 250


@dataclass
class Varint:
    """A VARINT record; ``width`` > 0 writes the value in that many bytes (padded)."""

    number: int
    value: int
    width: int = 0


@dataclass
class Fixed:
    """An I64 or I32 record: ``value`` holds its 8 or 4 little-endian bytes."""

    number: int
    wire_type: int
    value: bytes


@dataclass
class Payload:
    """A LEN record kept as bytes: a string, bytes, an unknown field, a packed run of unknown form."""

    number: int
    value: bytes | memoryview
    length_width: int = 0


@dataclass
class Nested:
    """A LEN record of a declared message field: its own records, of class ``cls``."""

    number: int
    cls: type[Message]
    records: list[Record]
    length_width: int = 0


@dataclass
class Packed:
    """A packed run of a repeated scalar field: ints (varint kinds) or fixed-width bytes."""

    number: int
    kind: Kind
    values: list[int | bytes]
    widths: list[int] = field(default_factory=list)  # per value, as Varint.width; empty = minimal
    length_width: int = 0


@dataclass
class Group:
    """An SGROUP ... EGROUP record (only unknown fields use groups in proto2 ONNX): ``body``
    is everything between the two tags."""

    number: int
    body: bytes | memoryview


@dataclass
class Raw:
    """Bytes written as they are: how a malformed record is placed in a tree."""

    data: bytes


Record: TypeAlias = Varint | Fixed | Payload | Nested | Packed | Group | Raw

_FIXED_WIDTH: Final = {int(WireType.I64): 8, int(WireType.I32): 4}


def declared(cls: type[Message], number: int) -> FieldSpec | None:
    """The field ``cls`` declares with ``number``, or None."""
    spec: FieldSpec | None = cls.__schema__.by_number.get(number)
    return spec


def parse(
    data: bytes | bytearray | memoryview, cls: type[Message], *, max_depth: int = MAX_DEPTH
) -> list[Record]:
    """The records of ``data`` read as a ``cls`` message, message fields parsed as levels.

    Raises :class:`~wirecodec.errors.DecodeError` for input that is not well-formed on
    the wire, and :class:`~wirecodec.errors.LimitError` past ``max_depth`` levels.
    """
    view = memoryview(data).cast("B") if not isinstance(data, memoryview) else data.cast("B")
    return _parse(view, 0, len(view), cls, max_depth)


def _parse(buf: memoryview, pos: int, end: int, cls: type[Message], depth_left: int) -> list[Record]:
    if depth_left <= 0:
        raise LimitError(f"more than {MAX_DEPTH} nested messages", pos)
    records: list[Record] = []
    while pos < end:
        start = pos
        tag, pos = read_varint(buf, pos, end)
        number, wire_type = tag >> 3, tag & 7
        if number == 0 or tag >= 1 << 32 or pos - start > 5:
            raise DecodeError("invalid tag", start)
        spec = declared(cls, number)
        if wire_type == WireType.VARINT:
            value, pos = read_varint(buf, pos, end)
            records.append(Varint(number, value))
        elif wire_type in _FIXED_WIDTH:
            width = _FIXED_WIDTH[wire_type]
            if end - pos < width:
                raise DecodeError("truncated fixed-width value", pos)
            records.append(Fixed(number, wire_type, bytes(buf[pos : pos + width])))
            pos += width
        elif wire_type == WireType.LEN:
            length, pos = read_varint(buf, pos, end)
            if length > end - pos:
                raise DecodeError(f"length {length} runs past the end", start)
            stop = pos + length
            if spec is not None and spec.kind is Kind.MESSAGE:
                records.append(
                    Nested(
                        number, spec.message_type, _parse(buf, pos, stop, spec.message_type, depth_left - 1)
                    )
                )
            elif spec is not None and spec.repeated and spec.kind.packable:
                records.append(Packed(number, spec.kind, _packed_values(buf, pos, stop, spec.kind)))
            else:
                records.append(Payload(number, buf[pos:stop]))
            pos = stop
        elif wire_type == WireType.SGROUP:
            body_end, pos = _group_end(buf, number, pos, end, depth_left - 1)
            records.append(Group(number, buf[body_end[0] : body_end[1]]))
        else:
            raise DecodeError(f"unexpected wire type {wire_type}", start)
    return records


def _group_end(
    buf: memoryview, number: int, pos: int, end: int, depth_left: int
) -> tuple[tuple[int, int], int]:
    """The body span of a group whose start tag was read, and the position after its end tag."""
    if depth_left <= 0:
        raise LimitError("groups nested too deep", pos)
    body_start = pos
    while pos < end:
        tag_at = pos
        tag, pos = read_varint(buf, pos, end)
        wire_type = tag & 7
        if wire_type == WireType.EGROUP:
            if tag >> 3 != number:
                raise DecodeError("end-group tag of another group", tag_at)
            return (body_start, tag_at), pos
        if wire_type == WireType.VARINT:
            pos = read_varint(buf, pos, end)[1]
        elif wire_type in _FIXED_WIDTH:
            pos += _FIXED_WIDTH[wire_type]
        elif wire_type == WireType.LEN:
            length, pos = read_varint(buf, pos, end)
            pos += length
        elif wire_type == WireType.SGROUP:
            pos = _group_end(buf, tag >> 3, pos, end, depth_left - 1)[1]
        else:
            raise DecodeError(f"unexpected wire type {wire_type}", tag_at)
        if pos > end:
            raise DecodeError("group runs past the end", tag_at)
    raise DecodeError("group not terminated", pos)


def _packed_values(buf: memoryview, pos: int, end: int, kind: Kind) -> list[int | bytes]:
    values: list[int | bytes] = []
    if kind.wire_type == WireType.VARINT:
        while pos < end:
            value, pos = read_varint(buf, pos, end)
            values.append(value)
        return values
    width = _FIXED_WIDTH[int(kind.wire_type)]
    if (end - pos) % width:
        raise DecodeError(f"packed run of {end - pos} bytes is not a multiple of {width}", pos)
    return [bytes(buf[i : i + width]) for i in range(pos, end, width)]


def levels(records: list[Record], cls: type[Message]) -> list[tuple[list[Record], type[Message]]]:
    """Every level of a tree (this one first, then each nested one, depth first), with its class."""
    found: list[tuple[list[Record], type[Message]]] = []
    stack = [(records, cls)]
    while stack:
        level, level_cls = stack.pop()
        found.append((level, level_cls))
        stack.extend((r.records, r.cls) for r in reversed(level) if isinstance(r, Nested))
    return found


# -- writing -------------------------------------------------------------------------


def varint_bytes(value: int, width: int = 0) -> bytes:
    """``value`` as a varint, padded to ``width`` bytes when that is more than it needs."""
    if width <= varint_size(value):
        return encode_varint(value)
    out = bytearray()
    for _ in range(width - 1):
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def tag_bytes(number: int, wire_type: int) -> bytes:
    """A tag in its shortest form."""
    return encode_varint(number << 3 | wire_type)


def emit(records: Sequence[Record]) -> bytes:
    """The bytes of a tree: each record in order, every length computed from what is written."""
    chunks: list[bytes | memoryview] = []
    _emit(records, chunks)
    return b"".join(chunks)


def _emit(records: Sequence[Record], out: list[bytes | memoryview]) -> int:
    size = 0
    for record in records:
        if isinstance(record, Varint):
            piece = tag_bytes(record.number, WireType.VARINT) + varint_bytes(record.value, record.width)
            out.append(piece)
            size += len(piece)
        elif isinstance(record, Fixed):
            piece = tag_bytes(record.number, record.wire_type) + record.value
            out.append(piece)
            size += len(piece)
        elif isinstance(record, Payload):
            size += _emit_len(record.number, [record.value], len(record.value), record.length_width, out)
        elif isinstance(record, Nested):
            inner: list[bytes | memoryview] = []
            inner_size = _emit(record.records, inner)
            size += _emit_len(record.number, inner, inner_size, record.length_width, out)
        elif isinstance(record, Packed):
            body = packed_body(record)
            size += _emit_len(record.number, [body], len(body), record.length_width, out)
        elif isinstance(record, Group):
            piece = tag_bytes(record.number, WireType.SGROUP)
            end = tag_bytes(record.number, WireType.EGROUP)
            out.extend((piece, record.body, end))
            size += len(piece) + len(record.body) + len(end)
        else:
            out.append(record.data)
            size += len(record.data)
    return size


def _emit_len(
    number: int, chunks: list[bytes | memoryview], size: int, width: int, out: list[bytes | memoryview]
) -> int:
    head = tag_bytes(number, WireType.LEN) + varint_bytes(size, width)
    out.append(head)
    out.extend(chunks)
    return len(head) + size


def packed_body(record: Packed) -> bytes:
    """The payload of a packed run as it is written (each value at its width)."""
    if record.kind.wire_type != WireType.VARINT:
        return b"".join(v for v in record.values if isinstance(v, bytes))
    widths = record.widths or [0] * len(record.values)
    return b"".join(
        varint_bytes(v, w) for v, w in zip(record.values, widths, strict=True) if isinstance(v, int)
    )
