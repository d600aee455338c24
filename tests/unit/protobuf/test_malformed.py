"""Malformed input, family by family (after protobuf's conformance suite), on real ONNX messages.

Each input must give a DecodeError with the right byte offset and a path naming the
field; where protobuf is installed, upb must reject the same input. Every test runs in
every decode mode (``tests/support/decode_modes.py``): ``decode`` below is the mode's.
"""

from __future__ import annotations

import sys
from typing import Any

import pytest

from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
from tests.support.decode_modes import DecodeMode
from wirecodec import DecodeError, decode, encode
from wirecodec.protobuf.wire import encode_varint

NODE = NodeProto(op_type="Relu", input=["x"], output=["y"], attribute=[AttributeProto(name="a", i=5, type=2)])
MODEL = ModelProto(ir_version=9, graph=GraphProto(name="g", node=[NODE]))
TENSOR = TensorProto(name="t", dims=[2, 3], data_type=1, float_data=[1.0, 2.0, 3.0], int64_data=[1, 300])


@pytest.fixture(autouse=True)
def _in_every_mode(decode_mode: DecodeMode, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test here decodes through the mode's decode (and so runs once per mode)."""

    def mode_decode(cls: Any, data: Any, **options: Any) -> Any:
        return decode_mode.decode(cls, data, **options)

    monkeypatch.setattr(sys.modules[__name__], "decode", mode_decode)


def _upb_rejects(cls: type, data: bytes) -> None:
    from tests.support.reference import pb_class

    try:
        pb = pb_class(cls)
    except pytest.skip.Exception:
        return
    from google.protobuf.message import DecodeError as PbDecodeError

    with pytest.raises(PbDecodeError):
        pb().ParseFromString(data)


def _rejected(cls: type, data: bytes, path: str, offset: int | None = None) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode(cls, data)
    assert info.value.path == path, (info.value.path, str(info.value))
    if offset is not None:
        assert info.value.offset == offset, str(info.value)
    assert 0 <= info.value.offset <= len(data)
    _upb_rejects(cls, data)
    return info.value


# -- premature end of input at every position --------------------------------------------


@pytest.mark.parametrize("cls,message", [(ModelProto, MODEL), (TensorProto, TENSOR), (NodeProto, NODE)])
def test_every_truncation_is_rejected_with_a_path(cls: type, message: object) -> None:
    data = encode(message)  # type: ignore[arg-type]
    accepted = 0
    for cut in range(len(data)):
        prefix = data[:cut]
        try:
            decode(cls, prefix)
            accepted += 1  # a cut exactly between two fields is a valid, shorter message
        except DecodeError as exc:
            assert exc.path.startswith(cls.__qualname__)
            assert 0 <= exc.offset <= cut
            _upb_rejects(cls, prefix)
    assert accepted < len(data) // 2


def test_eof_in_tag() -> None:
    _rejected(TensorProto, b"\x80", "TensorProto", 0)


def test_eof_in_varint_value() -> None:
    _rejected(TensorProto, b"\x10\x80\x80", "TensorProto.data_type", 1)


def test_eof_in_length() -> None:
    _rejected(TensorProto, b"\x42\x80", "TensorProto.name", 1)


def test_eof_in_fixed32() -> None:
    _rejected(AttributeProto, b"\x15\x00\x00\x80", "AttributeProto.f", 1)


def test_eof_in_fixed64_double_data_unpacked() -> None:
    _rejected(TensorProto, b"\x51" + b"\x00" * 7, "TensorProto.double_data", 1)


def test_eof_inside_a_packed_run() -> None:
    _rejected(TensorProto, b"\x3a\x03\x01\x80\x80", "TensorProto.int64_data", 3)
    _rejected(TensorProto, b"\x22\x08" + b"\x00" * 7, "TensorProto.float_data", 1)


def test_eof_inside_nested_sub_messages() -> None:
    data = encode(MODEL)
    nested = data[:-2]  # the cut lands inside graph.node[0].attribute[0]
    error = _rejected(ModelProto, nested, "ModelProto.graph")
    assert "runs past the end" in error.reason


def test_error_inside_the_deepest_message_names_the_whole_path() -> None:
    inner = b"\x18\x80"  # AttributeProto.i: truncated varint
    attribute = b"\x2a" + encode_varint(len(inner)) + inner
    graph = b"\x0a" + encode_varint(len(attribute)) + attribute
    model = b"\x3a" + encode_varint(len(graph)) + graph
    _rejected(ModelProto, model, "ModelProto.graph.node[0].attribute[0].i", 7)


# -- over-long varints -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "path"),
    [
        (b"\x80" * 10 + b"\x01", "TensorProto"),  # tag
        (b"\x10" + b"\x80" * 10 + b"\x01", "TensorProto.data_type"),  # value
        (b"\x42" + b"\x80" * 10 + b"\x01", "TensorProto.name"),  # length
    ],
)
def test_varint_longer_than_ten_bytes(data: bytes, path: str) -> None:
    error = _rejected(TensorProto, data, path)
    assert "longer than 10 bytes" in error.reason


# -- groups and invalid wire types ---------------------------------------------------------------


def test_unterminated_group() -> None:
    _rejected(TensorProto, b"\xfb\x01\x08\x01", "TensorProto.#31")


def test_mismatched_end_group() -> None:
    _rejected(TensorProto, b"\xfb\x01\x08\x01\x84\x02", "TensorProto.#31")


def test_end_group_without_start() -> None:
    _rejected(TensorProto, b"\xfc\x01", "TensorProto.#31")


@pytest.mark.parametrize("wire_type", [6, 7])
def test_invalid_wire_types(wire_type: int) -> None:
    _rejected(TensorProto, bytes([0x08 | wire_type]) + b"\x00", "TensorProto.dims", 1)


# -- field numbers ----------------------------------------------------------------------------------


def test_field_number_zero() -> None:
    _rejected(TensorProto, b"\x00\x00", "TensorProto", 0)
    _rejected(TensorProto, b"\x80\x00\x00", "TensorProto", 0)


def test_field_number_above_the_maximum_is_rejected() -> None:
    tag = ((1 << 29) << 3) | 0  # field number 2^29: one past the largest
    with pytest.raises(DecodeError):
        decode(TensorProto, encode_varint(tag) + b"\x00")


def test_largest_field_number_is_kept_as_unknown() -> None:
    data = encode_varint(((1 << 29) - 1) << 3) + b"\x05"
    assert encode(decode(TensorProto, data)) == data


# -- lengths -------------------------------------------------------------------------------------------


def test_length_past_the_end() -> None:
    _rejected(TensorProto, b"\x42\x05abc", "TensorProto.name", 1)


def test_negative_length_as_int64() -> None:
    negative = encode_varint((1 << 64) - 5)  # -5 as a two's-complement varint
    _rejected(TensorProto, b"\x4a" + negative, "TensorProto.raw_data", 1)


def test_length_past_the_end_of_the_enclosing_message() -> None:
    # graph claims 3 bytes, its node claims 10: the node may not read past its parent.
    _rejected(ModelProto, b"\x3a\x03\x0a\x0a\x00" + b"\x00" * 10, "ModelProto.graph.node[0]")
