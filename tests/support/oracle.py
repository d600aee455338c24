"""A deliberately plain, per-field interpreter of the wire format: the tests' oracle.

It shares nothing with the generated codec but the wire primitives' specification:
it reads the schema at run time, field by field, with no fast paths. Compiled and
interpreted results must agree on every input.
"""

from __future__ import annotations

import struct
from typing import Any

from schema_dsl import FieldSpec, Kind, Message
from schema_dsl.containers import append_valid
from schema_dsl.message import extras
from schema_dsl.presence import store_valid

_FIXED = {
    Kind.FLOAT: "<f",
    Kind.DOUBLE: "<d",
    Kind.FIXED32: "<I",
    Kind.SFIXED32: "<i",
    Kind.FIXED64: "<Q",
    Kind.SFIXED64: "<q",
}


class OracleError(Exception):
    """The first error in the input: what, where (absolute byte offset) and in which field.

    The oracle states wirecodec's error contract (docs/format.md, "Errors") by itself,
    from these rules, so that exact offsets and paths can be checked on any input:

    - ``offset`` is the first byte of the varint (tag, length or value) that is
      truncated or longer than ten bytes, of the tag that is invalid (field number 0
      outside a group, more than 32 bits, a mismatched end-group), of the length that
      runs past the end of its message, of the fixed-width value that is cut short, and
      of the payload of a packed fixed-width run whose length is not a multiple of the
      value size; for an invalid wire type (6, 7, or an end-group outside a group) and a
      group nested too deep it is the byte after the tag; for an unterminated group, the
      end of its message; for a message nested deeper than the limit, its first byte.
    - ``path`` starts with the class name and adds, for every message being read, the
      field of the record being read: ``.name``, ``.name[i]`` for a repeated
      length-delimited field read with its own tag (``i`` counts that field's earlier
      records in the same message), ``.#N`` for an undeclared number; nothing
      while a tag itself is being read.
    - ``limit`` is true for nesting past the limit (wirecodec's LimitError).
    """

    def __init__(self, reason: str, offset: int = -1, path: str = "", limit: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.offset = offset
        self.path = path
        self.limit = limit


def _varint(data: bytes, pos: int, end: int, path: str = "") -> tuple[int, int]:
    start = pos
    value = 0
    for i in range(10):
        if pos >= end:
            raise OracleError("truncated varint", start, path)
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value & ((1 << 64) - 1), pos
    raise OracleError("varint too long", start, path)


def _signed(value: int, bits: int) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _from_varint(kind: Kind, raw: int) -> Any:
    if kind in (Kind.INT32, Kind.ENUM):
        return _signed(raw, 32)
    if kind is Kind.INT64:
        return _signed(raw, 64)
    if kind is Kind.UINT32:
        return raw & 0xFFFFFFFF
    if kind is Kind.UINT64:
        return raw
    if kind is Kind.BOOL:
        return raw != 0
    if kind is Kind.SINT32:
        raw &= 0xFFFFFFFF
        return (raw >> 1) ^ -(raw & 1)
    if kind is Kind.SINT64:
        return (raw >> 1) ^ -(raw & 1)
    raise AssertionError(kind)


def _skip(data: bytes, wire: int, number: int, pos: int, end: int, depth: int, path: str = "") -> int:
    """Skip one value of an unknown field; ``pos`` is just after its tag."""
    if wire == 0:
        return _varint(data, pos, end, path)[1]
    if wire in (1, 5):
        size = 8 if wire == 1 else 4
        if pos + size > end:
            raise OracleError(f"truncated fixed{size * 8}", pos, path)
        return pos + size
    if wire == 2:
        length, after = _varint(data, pos, end, path)
        if after + length > end:
            raise OracleError("length past end", pos, path)
        return after + length
    if wire == 3:
        if depth <= 0:
            raise OracleError("too deep", pos, path, limit=True)
        while True:
            if pos >= end:
                raise OracleError("unterminated group", end, path)
            tag_at = pos
            tag, pos = _varint(data, pos, end, path)
            if tag >> 32:  # field number 0 is tolerated inside a group, as upb does
                raise OracleError("bad tag", tag_at, path)
            if tag & 7 == 4:
                if tag >> 3 != number:
                    raise OracleError("mismatched end group", tag_at, path)
                return pos
            pos = _skip(data, tag & 7, tag >> 3, pos, end, depth - 1, path)
    raise OracleError(f"bad wire type {wire}", pos, path)


def _store(msg: Message, spec: FieldSpec, value: Any, unknown: list[bytes], record: bytes) -> None:
    if spec.kind is Kind.ENUM and value not in spec.enum_values:
        unknown.append(record)
        return
    if spec.kind is Kind.STRING:
        # A decoder's string may hold surrogate escapes (bytes that are not UTF-8), which an
        # assignment refuses as protobuf's does: stored as read, as the real decoders do.
        if spec.repeated:
            append_valid(getattr(msg, spec.name), value)
        else:
            store_valid(msg, spec.name, value)
    elif spec.repeated:
        getattr(msg, spec.name).append(value)
    else:
        setattr(msg, spec.name, value)


def _enc_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def interpret(cls: type[Message], data: bytes, depth: int = 100) -> Message:
    """Decode ``data`` as ``cls`` by walking the schema at run time (``depth``: nesting limit)."""
    return _message(cls, bytes(data), 0, len(data), depth, cls.__qualname__)


def first_error(cls: type[Message], data: bytes, depth: int = 100) -> OracleError | None:
    """The first error decoding ``data`` as ``cls`` meets (offset and path set), or None if it decodes."""
    try:
        interpret(cls, data, depth)
    except OracleError as error:
        return error
    return None


def _step(spec: FieldSpec | None, number: int, tag: int, earlier: int) -> str:
    """What a record adds to the path (see OracleError)."""
    if spec is None:
        return f".#{number}"
    indexed = spec.repeated and spec.kind.wire_type == 2 and tag & 7 == 2
    return f".{spec.name}[{earlier}]" if indexed else f".{spec.name}"


def _message(cls: type[Message], data: bytes, pos: int, end: int, depth: int, path: str) -> Message:
    if depth < 0:
        raise OracleError("too deep", pos, path, limit=True)
    msg = cls()
    unknown: list[bytes] = []
    by_number = cls.__schema__.by_number
    seen: dict[int, int] = {}  # tag -> records read so far (the index in paths)
    while pos < end:
        start = pos
        tag, pos = _varint(data, pos, end, path)
        if tag >> 32 or tag >> 3 == 0:
            raise OracleError("bad tag", start, path)
        number, wire = tag >> 3, tag & 7
        spec = by_number.get(number)
        here = path + _step(spec, number, tag, seen.get(tag, 0))
        seen[tag] = seen.get(tag, 0) + 1
        if spec is not None and wire == int(spec.kind.wire_type):
            pos = _single(msg, spec, data, pos, end, depth, unknown, start, here)
        elif spec is not None and spec.repeated and spec.kind.packable and wire == 2:
            length_at = pos
            length, pos = _varint(data, pos, end, here)
            stop = pos + length
            if stop > end:
                raise OracleError("length past end", length_at, here)
            size = struct.calcsize(_FIXED[spec.kind]) if spec.kind in _FIXED else 0
            if size and length % size:
                raise OracleError("packed run length not a multiple of the value size", pos, here)
            while pos < stop:
                pos = _single(msg, spec, data, pos, stop, depth, unknown, None, here)
        else:
            if wire == 4:
                raise OracleError("end group without start", pos, here)
            pos = _skip(data, wire, number, pos, end, depth, here)
            unknown.append(data[start:pos])
    if unknown:
        extras(msg).unknown = unknown
    return msg


def _single(
    msg: Message,
    spec: FieldSpec,
    data: bytes,
    pos: int,
    end: int,
    depth: int,
    unknown: list[bytes],
    start: int | None,
    path: str,
) -> int:
    """One value; ``start`` is where its own record began (None inside a packed run)."""
    kind = spec.kind
    if kind in _FIXED:
        size = struct.calcsize(_FIXED[kind])
        if pos + size > end:
            raise OracleError("truncated fixed", pos, path)
        (value,) = struct.unpack_from(_FIXED[kind], data, pos)
        _store(msg, spec, value, unknown, b"")
        return pos + size
    if kind.wire_type == 0:
        raw, pos = _varint(data, pos, end, path)
        # An out-of-range enum keeps its record as it came; from a packed run it is rebuilt.
        record = data[start:pos] if start is not None else _enc_varint(spec.number << 3) + _enc_varint(raw)
        _store(msg, spec, _from_varint(kind, raw), unknown, record)
        return pos
    length_at = pos
    length, pos = _varint(data, pos, end, path)
    stop = pos + length
    if stop > end:
        raise OracleError("length past end", length_at, path)
    chunk = data[pos:stop]
    if kind is Kind.STRING:
        _store(msg, spec, chunk.decode("utf-8", "surrogateescape"), unknown, b"")
    elif kind is Kind.BYTES:
        _store(msg, spec, chunk, unknown, b"")
    else:
        child = _message(spec.message_type, data, pos, stop, depth - 1, path)
        if spec.repeated:
            getattr(msg, spec.name).append(child)
        elif msg.HasField(spec.name):
            getattr(msg, spec.name).MergeFrom(child)
        else:
            setattr(msg, spec.name, child)
    return stop
