"""Initializers from a stream: the header decoded, the ``raw_data`` payload located.

A tensor up to :data:`SMALL_TENSOR` bytes (or any tensor of an input read in place) is
read whole and decoded as is. A bigger one is read record by record: every record but
``raw_data``'s payload is kept, the payload is skipped (or, from a pipe, read once),
and the records are decoded back to back with the payload as an empty field. That is
exact for a well-formed tensor (nothing then depends on where the tensor ends); a
malformed one is decoded laid out at its true offsets, padded to its true end, so the
decoder reports it as a whole-model decode does.
"""

from __future__ import annotations

import bisect
from typing import Any, Final

from schema_dsl.onnx import TensorProto
from wirecodec.errors import DecodeError
from wirecodec.files.stream.events import LazyTensor
from wirecodec.files.stream.input import BufferInput, Input
from wirecodec.files.stream.records import (
    InputEndedError,
    copy_record,
    decode_piece,
    padded,
    rebase,
    varint_window,
)
from wirecodec.protobuf.codec import decode
from wirecodec.protobuf.wire import read_tag, read_varint, skip_field

__all__ = ["RAW_DATA_TAG", "SMALL_TENSOR", "read_initializer"]

RAW_DATA_TAG: Final = (9 << 3) | 2
# Up to this size an initializer is read whole; above it, only its headers are.
SMALL_TENSOR: Final = 1 << 20


def read_initializer(
    inp: Input, begin: int, length: int, depth: int, prefix: str, *, skip_payloads: bool, keep_small: int = 0
) -> LazyTensor:
    """The TensorProto of ``length`` bytes at the input's position (``begin``), decoded at
    ``depth``; errors name ``prefix`` (the tensor's path). From a non-seekable input a
    payload is kept unless ``skip_payloads`` and it is over ``keep_small`` bytes."""
    if isinstance(inp, BufferInput) or length <= SMALL_TENSOR:
        return _small_tensor(inp, begin, length, depth, prefix, skip_payloads, keep_small)
    return _large_tensor(inp, begin, length, depth, prefix, skip_payloads, keep_small)


def _reader(inp: Input) -> Input | None:
    return inp if inp.seekable else None


def _small_tensor(
    inp: Input, begin: int, length: int, depth: int, prefix: str, skip_payloads: bool, keep_small: int
) -> LazyTensor:
    data = inp.take(length)
    if len(data) < length:
        raise InputEndedError
    header: TensorProto = decode_piece(TensorProto, data, depth, begin, prefix)
    raw = _raw_data_at(data, depth)
    if raw is None:
        return LazyTensor(header, None, 0, None, _reader(inp))
    skipped = skip_payloads and raw[1] > keep_small
    kept = header.raw_data if isinstance(inp, BufferInput) or not (inp.seekable or skipped) else None
    header.ClearField("raw_data")
    return LazyTensor(header, begin + raw[0], raw[1], kept, _reader(inp))


def _raw_data_at(data: Any, depth: int) -> tuple[int, int] | None:
    """Where the (last) ``raw_data`` payload of a valid encoded TensorProto lies."""
    pos, end = 0, len(data)
    found = None
    while pos < end:
        tag, pos = read_tag(data, pos, end)
        if tag == RAW_DATA_TAG:
            length, pos = read_varint(data, pos, end)
            found = (pos, length)
            pos += length
        else:
            pos = skip_field(data, tag, pos, end, depth)
    return found


def _large_tensor(
    inp: Input, begin: int, length: int, depth: int, prefix: str, skip_payloads: bool, keep_small: int
) -> LazyTensor:
    """Read the tensor's records except its raw_data payloads (located, or read once
    from a pipe) and decode them as the tensor, each payload replaced by nothing."""
    end = begin + length
    parts: list[tuple[int, bytes]] = []  # (offset in the tensor, record bytes) in order
    raw_records: dict[int, int] = {}  # part index -> tag size, for raw_data tag + length parts
    raw: tuple[int, int] | None = None
    kept: Any = None
    keep_any = not inp.seekable
    while inp.pos < end:
        at = inp.pos - begin
        look = varint_window(inp, end)
        if not look:
            raise InputEndedError
        try:
            tag, n = read_tag(look, 0, len(look))
        except DecodeError:
            parts.append((at, look))
            break
        if tag != RAW_DATA_TAG:
            out = bytearray()
            ok = copy_record(inp, end, depth, out)
            parts.append((at, bytes(out)))
            if not ok:
                break
            continue
        inp.skip(n)
        size_look = varint_window(inp, end)
        try:
            payload_length, m = read_varint(size_look, 0, len(size_look))
        except DecodeError:
            parts.append((at, look[:n] + size_look))
            break
        inp.skip(m)
        parts.append((at, look[:n] + size_look[:m]))
        if payload_length > end - inp.pos:
            break
        raw_records[len(parts) - 1] = n
        raw = (inp.pos, payload_length)
        if keep_any and not (skip_payloads and payload_length > keep_small):
            kept = inp.take(payload_length)
            if len(kept) < payload_length:
                raise InputEndedError
        elif inp.skip(payload_length) < payload_length:
            raise InputEndedError
    if inp.pos < end:
        if inp.size is not None and inp.pos >= inp.size and not inp.seekable:
            raise InputEndedError
        # Malformed: the decoder, given every byte looked at in place and the tensor's
        # true end, reports it as decoding the whole model does.
        failure = _malformed_tensor(parts, length, depth, begin, prefix)
        raise failure
    header = _compact_tensor(parts, raw_records, depth, begin, prefix)
    header.ClearField("raw_data")
    if raw is None:
        return LazyTensor(header, None, 0, None, _reader(inp))
    return LazyTensor(header, raw[0], raw[1], kept, _reader(inp))


def _compact_tensor(
    parts: list[tuple[int, bytes]], raw_records: dict[int, int], depth: int, begin: int, prefix: str
) -> TensorProto:
    """Decode the records back to back, each raw_data as an empty one: well formed,
    so nothing the decoder can object to depends on where the tensor ends; an error's
    offset is mapped back through the records."""
    compact = bytearray()
    starts: list[int] = []
    for i, (_, record) in enumerate(parts):
        starts.append(len(compact))
        if i in raw_records:
            compact += record[: raw_records[i]] + b"\x00"  # the tag, and length 0
        else:
            compact += record
    try:
        header: TensorProto = decode(TensorProto, bytes(compact), max_depth=depth)
        return header
    except DecodeError as exc:
        failure = exc
    i = max(0, bisect.bisect_right(starts, failure.offset) - 1)
    original = parts[i][0] + failure.offset - starts[i] if parts else failure.offset
    raise rebase(failure, TensorProto, begin + original - failure.offset, prefix, None)


def _malformed_tensor(
    parts: list[tuple[int, bytes]], length: int, depth: int, begin: int, prefix: str
) -> DecodeError:
    try:
        layout = padded(b"", length)
        for at, record in parts:
            layout[at : at + len(record)] = record
    except (MemoryError, OSError, ValueError):
        # A tensor too big to lay out even lazily (a strict overcommit policy): say where.
        return DecodeError("malformed tensor record", begin + (parts[-1][0] if parts else 0), prefix)
    try:
        decode(TensorProto, layout, max_depth=depth)
    except DecodeError as exc:
        return rebase(exc, TensorProto, begin, prefix, None)
    return DecodeError("malformed tensor record", begin, prefix)  # pragma: no cover
