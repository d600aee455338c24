"""Hypothesis, with protobuf as the judge: both directions, for the ONNX top-level messages,
in every decode mode (``tests/support/decode_modes.py``; the examples are shared out over the modes)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schema_dsl import Message
from tests.support.decode_modes import DecodeMode, examples
from tests.support.reference import TOP_LEVEL, assert_same, pb_class, require_onnx
from tests.support.strategies import messages
from wirecodec import encode

require_onnx()

_SETTINGS = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("cls", TOP_LEVEL, ids=lambda c: c.__qualname__)
def test_our_encoding_is_what_protobuf_writes(cls: type[Message], decode_mode: DecodeMode) -> None:
    @_SETTINGS
    @given(messages(cls))
    def check(msg: Message) -> None:
        data = encode(msg)
        theirs = pb_class(cls)()
        theirs.ParseFromString(data)
        assert_same(msg, theirs)
        # protobuf re-serializes our bytes to themselves: same order, same packing.
        assert theirs.SerializeToString() == data
        assert decode_mode.decode(cls, data) == msg

    check()


@pytest.mark.parametrize("cls", TOP_LEVEL, ids=lambda c: c.__qualname__)
def test_protobuf_bytes_decode_to_equal_messages(cls: type[Message], decode_mode: DecodeMode) -> None:
    @_SETTINGS
    @given(messages(cls), st.data())
    def check(msg: Message, data: st.DataObject) -> None:
        theirs = pb_class(cls)()
        theirs.ParseFromString(encode(msg))
        wire = theirs.SerializeToString()
        # Append a second copy of a random slice of fields: exercises merge and last-one-wins.
        extra = data.draw(messages(cls, depth=1))
        tail = encode(extra)
        theirs.MergeFromString(tail)
        wire_merged = wire + tail
        mine = decode_mode.decode(cls, wire_merged)
        assert_same(mine, theirs)
        assert decode_mode.encode(mine) == theirs.SerializeToString()

    check()
