"""Wire primitives: varints, tags, fixed widths and skipping unknown fields.

Every read is bounds-checked against an explicit ``end`` (the end of the enclosing
message), never by catching IndexError. Offsets are Python ints, so 64-bit
(and larger) positions need no special care.
"""

from __future__ import annotations

import mmap
import struct
from typing import Final, TypeAlias

from wirecodec.errors import DecodeError, LimitError

__all__ = [
    "MAX_VARINT_BYTES",
    "Buffer",
    "encode_varint",
    "read_varint",
    "skip_field",
    "varint_size",
    "zigzag_decode",
    "zigzag_encode",
]

MAX_VARINT_BYTES: Final = 10
_U64: Final = 1 << 64
_MAX_TAG: Final = (1 << 32) - 1  # a tag is a uint32: field number (29 bits) and wire type
_MAX_TAG_BYTES: Final = 5  # a uint32 varint; upb refuses a longer (padded) tag whatever its value


# What the decoder reads: indexing gives ints, slicing gives a buffer.
Buffer: TypeAlias = bytes | bytearray | memoryview | mmap.mmap


def read_varint(buf: Buffer, pos: int, end: int) -> tuple[int, int]:
    """Read an unsigned varint at ``pos``; return ``(value, position after it)``.

    Values are truncated to 64 bits as protobuf does; more than ten bytes, or running
    into ``end``, is a DecodeError.
    """
    result = 0
    shift = 0
    start = pos
    while True:
        if pos >= end:
            raise DecodeError(f"truncated varint: input ends after {pos - start} of its bytes", start)
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result & (_U64 - 1), pos
        shift += 7
        if shift >= 7 * MAX_VARINT_BYTES:
            raise DecodeError("varint longer than 10 bytes", start)


def encode_varint(value: int) -> bytes:
    """Encode an unsigned value below 2**64 as a varint."""
    if value < 0x80:
        if value < 0:
            raise OverflowError(f"varint value {value} is negative")
        return _SMALL[value]
    if value >= _U64:
        raise OverflowError(f"varint value {value} does not fit in 64 bits")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_SMALL: Final = tuple(bytes((i,)) for i in range(0x80))


def varint_size(value: int) -> int:
    """How many bytes :func:`encode_varint` writes for ``value``."""
    return 1 if value < 0x80 else (value.bit_length() + 6) // 7


def zigzag_encode(value: int, bits: int) -> int:
    return (value << 1) ^ (value >> (bits - 1))


def zigzag_decode(value: int) -> int:
    return (value >> 1) ^ -(value & 1)


def read_tag(buf: Buffer, pos: int, end: int) -> tuple[int, int]:
    """Read a tag and reject the values protobuf rejects (field number 0, > 32 bits, > 5 bytes)."""
    start = pos
    tag, pos = read_varint(buf, pos, end)
    if tag > _MAX_TAG:
        raise DecodeError(f"tag {tag} is larger than 32 bits", start)
    if pos - start > _MAX_TAG_BYTES:
        raise DecodeError(f"tag written in {pos - start} bytes: at most {_MAX_TAG_BYTES} allowed", start)
    if tag >> 3 == 0:
        raise DecodeError("field number 0 is not allowed", start)
    return tag, pos


def skip_field(buf: Buffer, tag: int, pos: int, end: int, depth_left: int) -> int:
    """Skip the value of a field whose tag was read; return the position after it.

    ``depth_left`` bounds group nesting, which counts against the same limit as
    sub-messages (as in protobuf).
    """
    wire_type = tag & 7
    if wire_type == 0:
        return read_varint(buf, pos, end)[1]
    if wire_type == 1:
        if end - pos < 8:
            raise DecodeError(f"truncated fixed64: needs 8 bytes, {end - pos} remain", pos)
        return pos + 8
    if wire_type == 5:
        if end - pos < 4:
            raise DecodeError(f"truncated fixed32: needs 4 bytes, {end - pos} remain", pos)
        return pos + 4
    if wire_type == 2:
        start = pos
        length, pos = read_varint(buf, pos, end)
        if length > end - pos:
            raise DecodeError(f"length {length} runs past the end: only {end - pos} bytes remain", start)
        return pos + length
    if wire_type == 3:
        return _skip_group(buf, tag >> 3, pos, end, depth_left)
    if wire_type == 4:
        raise DecodeError(f"end-group tag for field {tag >> 3} without a matching start", pos)
    raise DecodeError(f"invalid wire type {wire_type} (field {tag >> 3})", pos)


def _skip_group(buf: Buffer, number: int, pos: int, end: int, depth_left: int) -> int:
    if depth_left <= 0:
        raise LimitError("nesting too deep (groups count against the depth limit)", pos)
    while pos < end:
        tag_at = pos
        # Inside a group protobuf (upb) tolerates field number 0; only the 32-bit bound holds.
        tag, pos = read_varint(buf, pos, end)
        if tag > _MAX_TAG:
            raise DecodeError(f"tag {tag} is larger than 32 bits", tag_at)
        if pos - tag_at > _MAX_TAG_BYTES:
            raise DecodeError(
                f"tag written in {pos - tag_at} bytes: at most {_MAX_TAG_BYTES} allowed", tag_at
            )
        if tag & 7 == 4:
            if tag >> 3 != number:
                raise DecodeError(
                    f"end-group tag for field {tag >> 3} closes a group of field {number}", tag_at
                )
            return pos
        pos = skip_field(buf, tag, pos, end, depth_left - 1)
    raise DecodeError(f"group of field {number} is not terminated", pos)


# Pre-bound fixed-width codecs, little-endian as the wire format requires.
unpack_f32: Final = struct.Struct("<f").unpack_from
unpack_f64: Final = struct.Struct("<d").unpack_from
unpack_i32: Final = struct.Struct("<i").unpack_from
unpack_u32: Final = struct.Struct("<I").unpack_from
unpack_i64: Final = struct.Struct("<q").unpack_from
unpack_u64: Final = struct.Struct("<Q").unpack_from
pack_f32: Final = struct.Struct("<f").pack
pack_f64: Final = struct.Struct("<d").pack
pack_i32: Final = struct.Struct("<i").pack
pack_u32: Final = struct.Struct("<I").pack
pack_i64: Final = struct.Struct("<q").pack
pack_u64: Final = struct.Struct("<Q").pack
