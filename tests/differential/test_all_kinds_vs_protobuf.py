"""Every scalar kind against upb: our small test schema, turned into a protobuf descriptor at run time.

ONNX uses only some kinds (no sint, fixed, bool, packed enums); this gives protobuf the
last word on all of them, for random messages and for random or mutated bytes, in every
decode mode (``tests/support/decode_modes.py``; the examples are shared out over the modes).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from schema_dsl import Message
from tests.support.decode_modes import DecodeMode, examples
from tests.support.pb_twins import pb_twins
from tests.support.reference import assert_same
from tests.support.strategies import messages
from tests.unit.protobuf.test_codec import All
from wirecodec import DecodeError, encode

pytest.importorskip("google.protobuf", reason="protobuf is the reference (test extra)")
from google.protobuf.message import DecodeError as PbDecodeError

PB = pb_twins()  # upb twins of All, Guide1, ... built from our declarations
# The decode_mode fixture holds no state between examples (it only keeps its switches on).
_SETTINGS = settings(
    max_examples=examples(400),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def _pb_parse(data: bytes) -> Any | None:
    msg = PB[All]()
    try:
        msg.ParseFromString(data)
    except PbDecodeError:
        return None
    return msg


def _agree(data: bytes, mode: DecodeMode) -> None:
    theirs = _pb_parse(data)
    if theirs is None:
        with pytest.raises(DecodeError):
            mode.decode(All, data)
        return
    mine = mode.decode(All, data)
    assert mode.encode(mine) == theirs.SerializeToString()


@_SETTINGS
@given(messages(All, depth=2))
def test_random_messages_serialize_like_protobuf(decode_mode: DecodeMode, msg: Message) -> None:
    data = decode_mode.encode(msg)
    theirs = PB[All]()
    theirs.ParseFromString(data)
    assert theirs.SerializeToString() == data
    assert_same(msg, theirs)
    assert decode_mode.encode(decode_mode.decode(All, data)) == data


@_SETTINGS
@given(st.binary(max_size=80))
def test_random_bytes_accept_reject_and_reencode_agree(decode_mode: DecodeMode, data: bytes) -> None:
    _agree(data, decode_mode)


@_SETTINGS
@given(messages(All, depth=2), st.data())
def test_mutated_messages_agree(decode_mode: DecodeMode, msg: Message, data: st.DataObject) -> None:
    raw = bytearray(encode(msg))
    assume(raw)
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(raw) - 1))
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "dup"]))
        if action == "flip":
            raw[i] ^= 1 << data.draw(st.integers(0, 7))
        elif action == "cut":
            del raw[i:]
        elif action == "insert":
            raw.insert(i, data.draw(st.integers(0, 255)))
        else:
            raw[i:i] = raw[i : i + data.draw(st.integers(1, 8))]
        if not raw:
            break
    _agree(bytes(raw), decode_mode)


def test_packed_enum_out_of_range_matches_protobuf(decode_mode: DecodeMode) -> None:
    for data in (
        b"\xba\x01\x03\x01\x07\x02",
        b"\xba\x01\x0b\x01" + b"\xff" * 9 + b"\x01",
        b"\xba\x01\x06\x01\xff\xff\xff\xff\x0f",
        b"\xba\x01\x03\x01\x87\x00",
        b"\xb8\x01\x87\x00",
        b"\xb8\x81\x00\x07",
    ):
        _agree(data, decode_mode)
