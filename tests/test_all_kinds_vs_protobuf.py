"""Every scalar kind against upb: our small test schema, turned into a protobuf descriptor at run time.

ONNX uses only some kinds (no sint, fixed, bool, packed enums); this gives protobuf the
last word on all of them, for random messages and for random or mutated bytes.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from schema_dsl import Kind, Message
from tests.reference import assert_same
from tests.strategies import messages
from tests.test_codec import All, Color, Guide1
from wirecodec import DecodeError, decode, encode

pytest.importorskip("google.protobuf", reason="protobuf is the reference (test extra)")
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError as PbDecodeError

_F = descriptor_pb2.FieldDescriptorProto
_TYPES = {
    Kind.INT32: _F.TYPE_INT32,
    Kind.INT64: _F.TYPE_INT64,
    Kind.UINT32: _F.TYPE_UINT32,
    Kind.UINT64: _F.TYPE_UINT64,
    Kind.SINT32: _F.TYPE_SINT32,
    Kind.SINT64: _F.TYPE_SINT64,
    Kind.FIXED32: _F.TYPE_FIXED32,
    Kind.FIXED64: _F.TYPE_FIXED64,
    Kind.SFIXED32: _F.TYPE_SFIXED32,
    Kind.SFIXED64: _F.TYPE_SFIXED64,
    Kind.FLOAT: _F.TYPE_FLOAT,
    Kind.DOUBLE: _F.TYPE_DOUBLE,
    Kind.BOOL: _F.TYPE_BOOL,
    Kind.STRING: _F.TYPE_STRING,
    Kind.BYTES: _F.TYPE_BYTES,
    Kind.ENUM: _F.TYPE_ENUM,
    Kind.MESSAGE: _F.TYPE_MESSAGE,
}


def _descriptor_classes() -> dict[type[Message], Any]:
    """protobuf classes equivalent to All, Guide1 and Color, built from our declarations."""
    file = descriptor_pb2.FileDescriptorProto(name="wirecodec_test.proto", package="wt", syntax="proto2")
    color = file.enum_type.add(name="Color")
    for member in Color:
        color.value.add(name=member.name, number=int(member))
    for cls in (All, Guide1):
        proto = file.message_type.add(name=cls.__qualname__)
        oneofs: dict[str, int] = {}
        for spec in cls.__schema__.fields:
            field = proto.field.add(name=spec.name, number=spec.number, type=_TYPES[spec.kind])
            field.label = _F.LABEL_REPEATED if spec.repeated else _F.LABEL_OPTIONAL
            if spec.packed:
                field.options.packed = True
            if spec.kind is Kind.MESSAGE:
                field.type_name = f".wt.{spec.message_type.__qualname__}"
            if spec.kind is Kind.ENUM:
                field.type_name = ".wt.Color"
            if spec.oneof is not None:
                if spec.oneof not in oneofs:
                    oneofs[spec.oneof] = len(proto.oneof_decl)
                    proto.oneof_decl.add(name=spec.oneof)
                field.oneof_index = oneofs[spec.oneof]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {cls: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"wt.{cls.__qualname__}"))
            for cls in (All, Guide1)}


PB = _descriptor_classes()
_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _pb_parse(data: bytes) -> Any | None:
    msg = PB[All]()
    try:
        msg.ParseFromString(data)
    except PbDecodeError:
        return None
    return msg


def _agree(data: bytes) -> None:
    theirs = _pb_parse(data)
    if theirs is None:
        with pytest.raises(DecodeError):
            decode(All, data)
        return
    mine = decode(All, data)
    assert encode(mine) == theirs.SerializeToString()


@_SETTINGS
@given(messages(All, depth=2))
def test_random_messages_serialize_like_protobuf(msg: Message) -> None:
    data = encode(msg)
    theirs = PB[All]()
    theirs.ParseFromString(data)
    assert theirs.SerializeToString() == data
    assert_same(msg, theirs)


@_SETTINGS
@given(st.binary(max_size=80))
def test_random_bytes_accept_reject_and_reencode_agree(data: bytes) -> None:
    _agree(data)


@_SETTINGS
@given(messages(All, depth=2), st.data())
def test_mutated_messages_agree(msg: Message, data: st.DataObject) -> None:
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
    _agree(bytes(raw))


def test_packed_enum_out_of_range_matches_protobuf() -> None:
    for data in (
        b"\xba\x01\x03\x01\x07\x02",
        b"\xba\x01\x0b\x01" + b"\xff" * 9 + b"\x01",
        b"\xba\x01\x06\x01\xff\xff\xff\xff\x0f",
        b"\xba\x01\x03\x01\x87\x00",
        b"\xb8\x01\x87\x00",
        b"\xb8\x81\x00\x07",
    ):
        _agree(data)
