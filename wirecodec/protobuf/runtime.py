"""Helpers called by the generated codecs for the less common paths.

The generated functions inline the hot paths (one-byte varints and lengths, strings,
sub-messages); everything here is either a loop better kept in one place (packed runs)
or a rare case (NaN payloads, closed-enum values out of range, wide varints).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from typing import Any, Final

from wirecodec.errors import DecodeError
from wirecodec.protobuf.wire import (
    Buffer,
    encode_varint,
    pack_f32,
    read_varint,
    zigzag_encode,
)

_U64: Final = 1 << 64
_I64_MIN: Final = -(1 << 63)
_I32_MIN: Final = -(1 << 31)
_I32_MAX: Final = (1 << 31) - 1
_U32: Final = 1 << 32


class NaN32(float):
    """A float32 NaN read from the wire, remembering its exact 4 bytes.

    Widening a float32 signalling NaN to a Python float sets its quiet bit, so
    re-encoding the value would change the bytes; this keeps them.
    """

    bits: bytes


def nan32(buf: Buffer, pos: int) -> float:
    raw = bytes(buf[pos : pos + 4])
    value = NaN32(struct.unpack("<f", raw)[0])
    value.bits = raw
    return value


def f32_bytes(value: float) -> bytes:
    """Encode one float32, keeping a NaN's original payload, saturating to ±inf like C."""
    if type(value) is NaN32:
        return value.bits
    try:
        return pack_f32(value)
    except OverflowError:
        return pack_f32(math.copysign(math.inf, value))


def f32_run(values: Sequence[float]) -> bytes:
    """Encode many float32 values (the packed body), keeping the bytes of NaNs read from the wire.

    The values carry what they need (:class:`NaN32`), so a list that was copied,
    merged or assembled by hand encodes the same as the one the decoder made.
    """
    try:
        body = struct.pack(f"<{len(values)}f", *values)
    except OverflowError:
        return b"".join(f32_bytes(v) for v in values)
    if not any(map(math.isnan, values)):  # a C-speed scan: the common case costs little
        return body
    patched = bytearray(body)
    for i, v in enumerate(values):
        if type(v) is NaN32:
            patched[4 * i : 4 * i + 4] = v.bits
    return bytes(patched)


def unpack_f32_run(buf: Buffer, pos: int, count: int) -> list[float]:
    """Read ``count`` float32 values; NaNs become :class:`NaN32` holding their bytes."""
    values = list(struct.unpack_from(f"<{count}f", buf, pos))
    if any(map(math.isnan, values)):
        for i, v in enumerate(values):
            if v != v:
                values[i] = nan32(buf, pos + 4 * i)
    return values


def unpack_run(fmt: str, buf: Buffer, pos: int, count: int) -> list[Any]:
    """Read ``count`` fixed-width values of struct format ``fmt`` (a packed run)."""
    return list(struct.unpack_from(f"<{count}{fmt}", buf, pos))


# -- varint conversions (the slow branch of the inlined one-byte fast path) ----------------


def to_int64(v: int) -> int:
    return v - _U64 if v >= 1 << 63 else v


def to_int32(v: int) -> int:
    v &= _U32 - 1
    return v - _U32 if v >= 1 << 31 else v


def to_uint32(v: int) -> int:
    return v & (_U32 - 1)


def read_packed_varints(buf: Buffer, pos: int, end: int, convert: Any) -> list[int]:
    out: list[int] = []
    append = out.append
    while pos < end:
        v = buf[pos]
        if v < 0x80:
            pos += 1
            append(v)
        else:
            v, pos = read_varint(buf, pos, end)
            append(convert(v) if convert is not None else v)
    return out


# -- is a varint exactly what the encoder writes? (wirecodec.protobuf.origin) ------------

_SIGNED32_LOW: Final = _U64 + _I32_MIN  # raw values from here up are negative int32s


def canonical_varint(buf: Buffer, begin: int, end: int, raw: int, kind_range: int) -> bool:
    """Whether the varint at ``buf[begin:end]`` (value ``raw``, truncated to 64 bits) is
    what the encoder writes for its field's value.

    ``kind_range`` (source.VARINT_RANGE): 0 any 64-bit value, 1 a sign-extended int32,
    2 below 2**32, 3 only 0 or 1. Bits past the 64th can only sit in a tenth byte, which
    must then be exactly 1.
    """
    if end - begin != (1 if raw < 0x80 else (raw.bit_length() + 6) // 7):
        return False
    if end - begin == 10 and buf[end - 1] != 1:
        return False
    if kind_range == 1:
        return raw <= _I32_MAX or raw >= _SIGNED32_LOW
    if kind_range == 2:
        return raw < _U32
    return kind_range != 3 or raw <= 1


def canonical_packed_varints(buf: Buffer, pos: int, end: int, kind_range: int) -> bool:
    """Whether every varint of a packed run is what the encoder writes (see above).

    Reads the whole run either way, so a malformed varint raises as decoding it would.
    """
    canonical = True
    while pos < end:
        v = buf[pos]
        if v < 0x80:
            if kind_range == 3 and v > 1:
                canonical = False
            pos += 1
        else:
            begin = pos
            v, pos = read_varint(buf, pos, end)
            if not canonical_varint(buf, begin, pos, v, kind_range):
                canonical = False
    return canonical


# -- varint encoders by kind; each raises OverflowError for out-of-range values -----------


def int64_varint(v: int) -> bytes:
    if not _I64_MIN <= v < 1 << 63:
        raise OverflowError(f"{v} does not fit in int64")
    return encode_varint(v + _U64 if v < 0 else v)


def int32_varint(v: int) -> bytes:
    # Negative int32 values are sign-extended to ten bytes, as protobuf writes them.
    if not _I32_MIN <= v <= _I32_MAX:
        raise OverflowError(f"{v} does not fit in int32")
    return encode_varint(v + _U64 if v < 0 else v)


def uint64_varint(v: int) -> bytes:
    if not 0 <= v < _U64:
        raise OverflowError(f"{v} does not fit in uint64")
    return encode_varint(v)


def uint32_varint(v: int) -> bytes:
    if not 0 <= v < _U32:
        raise OverflowError(f"{v} does not fit in uint32")
    return encode_varint(v)


def sint64_varint(v: int) -> bytes:
    if not _I64_MIN <= v < 1 << 63:
        raise OverflowError(f"{v} does not fit in sint64")
    return encode_varint(zigzag_encode(v, 64))


def sint32_varint(v: int) -> bytes:
    if not _I32_MIN <= v <= _I32_MAX:
        raise OverflowError(f"{v} does not fit in sint32")
    return encode_varint(zigzag_encode(v, 32))


def bool_varint(v: bool) -> bytes:
    return b"\x01" if v else b"\x00"


def varint_run(values: Sequence[Any], below: int, each: Callable[[Any], bytes]) -> bytes:
    """The packed encoding of a run of int32/int64/uint32/uint64/enum ``values``: one call
    per run. Ints in ``0 <= v < below`` (those whose varint is the plain base-128 number)
    are written here; any other value goes through ``each`` (the kind's one-value encoder:
    negatives sign-extended, range and type checks), after the run's types are checked as
    the per-value path checked them (a wrong type is a TypeError before any range error)."""
    out = bytearray()
    append = out.append
    checked = False
    for v in values:
        if type(v) is int and 0 <= v < below:
            while v >= 128:
                append(v & 127 | 128)
                v >>= 7
            append(v)
        else:
            if not checked:
                for x in values:
                    check_int(x)
                checked = True
            out += each(v)
    return bytes(out)


def check_int(v: Any) -> None:
    # bool is an int subclass and protobuf accepts it; floats and strings are errors.
    if not isinstance(v, int):
        raise TypeError(f"expected an int, got {type(v).__name__}")


def enum_unknown(number: int, raw: int) -> bytes:
    """The unknown record protobuf makes for an out-of-range value from a packed enum run.

    (An unpacked out-of-range value keeps its own record verbatim.) ``raw`` is the
    varint's 64-bit value before int32 truncation, re-encoded in canonical form.
    """
    return encode_varint(number << 3) + encode_varint(raw)


def bytes_view(value: Any) -> Any:
    """A bytes-like object with ``len`` in bytes (memoryviews of wider items are cast)."""
    if isinstance(value, memoryview):
        if value.itemsize == 1 and value.ndim == 1:
            return value
        if not value.c_contiguous:
            raise TypeError("a bytes field needs a C-contiguous buffer")
        return value.cast("B")
    if isinstance(value, (bytes, bytearray)):
        return value
    if isinstance(value, str):
        raise TypeError("expected bytes, got str (encode it first)")
    return bytes_view(memoryview(value))


def length_error(buf: Buffer, start: int, length: int, end: int) -> DecodeError:
    """A length prefix larger than what remains; the offset is where the prefix starts."""
    at = read_varint(buf, start, end)[1]  # skip the tag (error path only)
    after = read_varint(buf, at, end)[1]
    return DecodeError(f"length {length} runs past the end: only {end - after} bytes remain", at)


def truncated(what: str, need: int, pos: int, end: int) -> DecodeError:
    return DecodeError(f"truncated {what}: needs {need} bytes, {max(end - pos, 0)} remain", pos)
