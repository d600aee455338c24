"""A deliberately plain, per-field interpreter of the wire format: the tests' oracle.

It shares nothing with the generated codec but the wire primitives' specification:
it reads the schema at run time, field by field, with no fast paths. Compiled and
interpreted results must agree on every input.
"""

from __future__ import annotations

import struct
from typing import Any

from schema_dsl import FieldSpec, Kind, Message

_FIXED = {
    Kind.FLOAT: "<f",
    Kind.DOUBLE: "<d",
    Kind.FIXED32: "<I",
    Kind.SFIXED32: "<i",
    Kind.FIXED64: "<Q",
    Kind.SFIXED64: "<q",
}


class OracleError(Exception):
    pass


def _varint(data: bytes, pos: int, end: int) -> tuple[int, int]:
    value = 0
    for i in range(10):
        if pos >= end:
            raise OracleError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << (7 * i)
        if not byte & 0x80:
            return value & ((1 << 64) - 1), pos
    raise OracleError("varint too long")


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


def _skip(data: bytes, wire: int, number: int, pos: int, end: int, depth: int) -> int:
    if wire == 0:
        return _varint(data, pos, end)[1]
    if wire == 1:
        if pos + 8 > end:
            raise OracleError("truncated fixed64")
        return pos + 8
    if wire == 5:
        if pos + 4 > end:
            raise OracleError("truncated fixed32")
        return pos + 4
    if wire == 2:
        length, pos = _varint(data, pos, end)
        if pos + length > end:
            raise OracleError("length past end")
        return pos + length
    if wire == 3:
        if depth <= 0:
            raise OracleError("too deep")
        while True:
            if pos >= end:
                raise OracleError("unterminated group")
            tag, pos = _varint(data, pos, end)
            if tag >> 32:  # field number 0 is tolerated inside a group, as upb does
                raise OracleError("bad tag")
            if tag & 7 == 4:
                if tag >> 3 != number:
                    raise OracleError("mismatched end group")
                return pos
            pos = _skip(data, tag & 7, tag >> 3, pos, end, depth - 1)
    raise OracleError(f"bad wire type {wire}")


def _store(msg: Message, spec: FieldSpec, value: Any, unknown: list[bytes], record: bytes) -> None:
    if spec.kind is Kind.ENUM and value not in spec.enum_values:
        unknown.append(record)
        return
    if spec.repeated:
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
    """Decode ``data`` as ``cls`` by walking the schema at run time."""
    return _message(cls, bytes(data), 0, len(data), depth)


def _message(cls: type[Message], data: bytes, pos: int, end: int, depth: int) -> Message:
    if depth < 0:
        raise OracleError("too deep")
    msg = cls()
    unknown: list[bytes] = []
    by_number = cls.__schema__.by_number
    while pos < end:
        start = pos
        tag, pos = _varint(data, pos, end)
        if tag >> 32 or tag >> 3 == 0:
            raise OracleError("bad tag")
        number, wire = tag >> 3, tag & 7
        spec = by_number.get(number)
        if spec is not None and wire == int(spec.kind.wire_type):
            pos = _single(msg, spec, data, pos, end, depth, unknown, start)
        elif spec is not None and spec.repeated and spec.kind.packable and wire == 2:
            length, pos = _varint(data, pos, end)
            stop = pos + length
            if stop > end:
                raise OracleError("length past end")
            while pos < stop:
                pos = _single(msg, spec, data, pos, stop, depth, unknown, None)
        else:
            pos = _skip(data, wire, number, pos, end, depth)
            unknown.append(data[start:pos])
    if unknown:
        msg.__dict__["_unknown"] = unknown
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
) -> int:
    """One value; ``start`` is where its own record began (None inside a packed run)."""
    kind = spec.kind
    if kind in _FIXED:
        size = struct.calcsize(_FIXED[kind])
        if pos + size > end:
            raise OracleError("truncated fixed")
        (value,) = struct.unpack_from(_FIXED[kind], data, pos)
        _store(msg, spec, value, unknown, b"")
        return pos + size
    if kind.wire_type == 0:
        raw, pos = _varint(data, pos, end)
        # An out-of-range enum keeps its record as it came; from a packed run it is rebuilt.
        record = data[start:pos] if start is not None else _enc_varint(spec.number << 3) + _enc_varint(raw)
        _store(msg, spec, _from_varint(kind, raw), unknown, record)
        return pos
    length, pos = _varint(data, pos, end)
    stop = pos + length
    if stop > end:
        raise OracleError("length past end")
    chunk = data[pos:stop]
    if kind is Kind.STRING:
        _store(msg, spec, chunk.decode("utf-8", "surrogateescape"), unknown, b"")
    elif kind is Kind.BYTES:
        _store(msg, spec, chunk, unknown, b"")
    else:
        child = _message(spec.message_type, data, pos, stop, depth - 1)
        if spec.repeated:
            getattr(msg, spec.name).append(child)
        elif msg.HasField(spec.name):
            getattr(msg, spec.name).MergeFrom(child)
        else:
            setattr(msg, spec.name, child)
    return stop
