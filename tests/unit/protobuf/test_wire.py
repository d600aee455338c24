"""The wire layer: varints, tags, skipping, with golden bytes from the protobuf encoding guide."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wirecodec import DecodeError, LimitError
from wirecodec.protobuf.wire import (
    encode_varint,
    read_tag,
    read_varint,
    skip_field,
    varint_size,
    zigzag_decode,
    zigzag_encode,
)


@pytest.mark.parametrize(
    ("value", "encoded"),
    [
        (0, b"\x00"),
        (1, b"\x01"),
        (127, b"\x7f"),
        (128, b"\x80\x01"),
        (150, b"\x96\x01"),  # the encoding guide's first example
        (300, b"\xac\x02"),
        (2**63 - 1, b"\xff\xff\xff\xff\xff\xff\xff\xff\x7f"),
        (2**64 - 1, b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"),
    ],
)
def test_varint_golden(value: int, encoded: bytes) -> None:
    assert encode_varint(value) == encoded
    assert varint_size(value) == len(encoded)
    assert read_varint(encoded, 0, len(encoded)) == (value, len(encoded))


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_varint_round_trip(value: int) -> None:
    data = encode_varint(value)
    assert len(data) == varint_size(value)
    assert read_varint(data + b"\xff", 0, len(data)) == (value, len(data))


@pytest.mark.parametrize("value", [-1, 2**64])
def test_varint_out_of_range_is_refused(value: int) -> None:
    with pytest.raises(OverflowError):
        encode_varint(value)


def test_varint_truncated_names_offset() -> None:
    with pytest.raises(DecodeError) as info:
        read_varint(b"\x00\x80\x80", 1, 3)
    assert info.value.offset == 1
    assert "truncated varint" in info.value.reason


def test_varint_end_is_respected_even_if_buffer_continues() -> None:
    # The enclosing message ends at 2; the byte after it must not be read.
    with pytest.raises(DecodeError):
        read_varint(b"\x80\x80\x01", 0, 2)


def test_varint_longer_than_ten_bytes() -> None:
    data = b"\x80" * 10 + b"\x01"
    with pytest.raises(DecodeError, match="longer than 10 bytes"):
        read_varint(data, 0, len(data))


def test_ten_byte_varint_truncates_to_64_bits_like_protobuf() -> None:
    data = b"\xff" * 9 + b"\x7f"  # bits above 64 set in the last byte
    assert read_varint(data, 0, len(data)) == (2**64 - 1, 10)


@pytest.mark.parametrize(("value", "zz"), [(0, 0), (-1, 1), (1, 2), (-2, 3), (2**31 - 1, 2**32 - 2)])
def test_zigzag(value: int, zz: int) -> None:
    assert zigzag_encode(value, 64) == zz
    assert zigzag_decode(zz) == value


def test_tag_field_number_zero_rejected() -> None:
    with pytest.raises(DecodeError, match="field number 0"):
        read_tag(b"\x80\x00", 0, 2)


def test_tag_wider_than_32_bits_rejected() -> None:
    data = encode_varint(1 << 35)
    with pytest.raises(DecodeError, match="larger than 32 bits"):
        read_tag(data, 0, len(data))


@pytest.mark.parametrize(
    ("tag", "payload", "after"),
    [
        (0x08, b"\x96\x01", 2),
        (0x09, b"12345678", 8),
        (0x0D, b"1234", 4),
        (0x0A, b"\x03abc", 4),
        (0x0B, b"\x08\x01\x0c", 3),  # group of field 1: one varint, then its end tag
    ],
)
def test_skip_each_wire_type(tag: int, payload: bytes, after: int) -> None:
    assert skip_field(payload, tag, 0, len(payload), 100) == after


@pytest.mark.parametrize(
    ("tag", "payload", "message"),
    [
        (0x09, b"1234567", "truncated fixed64"),
        (0x0D, b"123", "truncated fixed32"),
        (0x0A, b"\x05abc", "runs past the end"),
        (0x0B, b"\x08\x01", "not terminated"),
        (0x0B, b"\x08\x01\x14", "closes a group of field 1"),
        (0x0C, b"", "without a matching start"),
        (0x0E, b"", "invalid wire type 6"),
        (0x0F, b"", "invalid wire type 7"),
    ],
)
def test_skip_errors(tag: int, payload: bytes, message: str) -> None:
    with pytest.raises(DecodeError, match=message):
        skip_field(payload, tag, 0, len(payload), 100)


def test_field_number_zero_is_tolerated_inside_a_group_like_upb() -> None:
    group = b"\x00\x01" + b"\x01" + b"\x00" * 8 + b"\x0c"  # field-0 varint and fixed64, then end
    assert skip_field(group, 0x0B, 0, len(group), 100) == len(group)


def test_group_nesting_counts_against_depth() -> None:
    nested = b"\x0b" * 5 + b"\x0c" * 5
    assert skip_field(nested, 0x0B, 1, len(nested), 5) == len(nested)
    with pytest.raises(LimitError):
        skip_field(nested, 0x0B, 1, len(nested), 4)
