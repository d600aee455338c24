"""Golden bytes: encodings written out by hand from the protobuf encoding guide, not by us.

Every vector below is a hex literal worked out from the rules of the encoding guide
(https://protobuf.dev/programming-guides/encoding/): base-128 varints, least significant
group first (150 -> ``96 01``); a tag is ``field_number << 3 | wire_type``; negative int32
and int64 values are sign-extended to 64 bits and take ten bytes; sint32/sint64 are
ZigZag-mapped (0, -1, 1, -2 -> 0, 1, 2, 3); fixed32/fixed64/float/double are little-endian;
packed runs and length-delimited fields are a varint length then the payload; known fields
go out in field-number order. Nothing here builds expected bytes with our own encoder.

Each vector is checked three ways: our ``encode`` writes it, our ``decode`` reads the
value back, and protobuf (upb, on the same schema built at run time) serializes the same
message to the same bytes, so a wrong literal would be caught as well as a wrong codec.
The last tests hold ONNX messages built with the onnx package to its own serialization.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from schema_dsl import Message
from schema_dsl.onnx import AttributeProto, NodeProto, TensorProto
from tests.support.pb_twins import pb_twins
from tests.unit.protobuf.test_codec import All, Guide1, Guide2, Guide3, Guide4
from wirecodec import decode, encode

# (message class, field values, the bytes the guide's rules give)
GOLDEN: list[tuple[str, type[Message], dict[str, Any], str]] = [
    # The guide's own examples (Test1..Test4).
    ("guide-150", Guide1, {"a": 150}, "08 96 01"),
    ("guide-string", Guide2, {"b": "testing"}, "12 07 74 65 73 74 69 6e 67"),
    ("guide-nested", Guide3, {"c": Guide1(a=150)}, "1a 03 08 96 01"),
    ("guide-packed", Guide4, {"e": [3, 270, 86942]}, "32 06 03 8e 02 9e a7 05"),
    ("guide-string-then-packed", Guide4, {"e": [1], "d": "hi"}, "0a 02 68 69 32 01 01"),
    # Varints at their byte-length boundaries.
    ("int32-1", Guide1, {"a": 1}, "08 01"),
    ("int32-127", Guide1, {"a": 127}, "08 7f"),
    ("int32-128", Guide1, {"a": 128}, "08 80 01"),
    ("int32-300", Guide1, {"a": 300}, "08 ac 02"),
    ("int32-max", Guide1, {"a": 2**31 - 1}, "08 ff ff ff ff 07"),
    # Negative int32: sign-extended to 64 bits, ten bytes.
    ("int32-minus-1", Guide1, {"a": -1}, "08 ff ff ff ff ff ff ff ff ff 01"),
    ("int32-minus-2", Guide1, {"a": -2}, "08 fe ff ff ff ff ff ff ff ff 01"),
    ("int32-min", Guide1, {"a": -(2**31)}, "08 80 80 80 80 f8 ff ff ff ff 01"),
    # int64 and uint64 at their extremes: the shortest varint, never an over-long one.
    ("int64-2^35", All, {"i64": 2**35}, "10 80 80 80 80 80 01"),
    ("int64-max", All, {"i64": 2**63 - 1}, "10 ff ff ff ff ff ff ff ff 7f"),
    ("int64-min", All, {"i64": -(2**63)}, "10 80 80 80 80 80 80 80 80 80 01"),
    ("int64-minus-1", All, {"i64": -1}, "10 ff ff ff ff ff ff ff ff ff 01"),
    ("uint32-max", All, {"u32": 2**32 - 1}, "18 ff ff ff ff 0f"),
    ("uint64-max", All, {"u64": 2**64 - 1}, "20 ff ff ff ff ff ff ff ff ff 01"),
    ("uint64-2^63", All, {"u64": 2**63}, "20 80 80 80 80 80 80 80 80 80 01"),
    # ZigZag: sint32 (field 5, tag 28) and sint64 (field 6, tag 30).
    ("sint32-0", All, {"s32": 0}, "28 00"),
    ("sint32-minus-1", All, {"s32": -1}, "28 01"),
    ("sint32-1", All, {"s32": 1}, "28 02"),
    ("sint32-minus-2", All, {"s32": -2}, "28 03"),
    ("sint32-max", All, {"s32": 2**31 - 1}, "28 fe ff ff ff 0f"),
    ("sint32-min", All, {"s32": -(2**31)}, "28 ff ff ff ff 0f"),
    ("sint64-max", All, {"s64": 2**63 - 1}, "30 fe ff ff ff ff ff ff ff ff 01"),
    ("sint64-min", All, {"s64": -(2**63)}, "30 ff ff ff ff ff ff ff ff ff 01"),
    # Fixed widths, little-endian: fixed32 (wire type 5) and fixed64 (wire type 1).
    ("fixed32-1", All, {"f32": 1}, "3d 01 00 00 00"),
    ("fixed32-max", All, {"f32": 2**32 - 1}, "3d ff ff ff ff"),
    ("fixed64-1", All, {"f64": 1}, "41 01 00 00 00 00 00 00 00"),
    ("sfixed32-minus-1", All, {"sf32": -1}, "4d ff ff ff ff"),
    ("sfixed64-minus-2", All, {"sf64": -2}, "51 fe ff ff ff ff ff ff ff"),
    ("float-1", All, {"fl": 1.0}, "5d 00 00 80 3f"),
    ("float-minus-0", All, {"fl": -0.0}, "5d 00 00 00 80"),
    ("double-1", All, {"db": 1.0}, "61 00 00 00 00 00 00 f0 3f"),
    ("double-minus-2", All, {"db": -2.0}, "61 00 00 00 00 00 00 00 c0"),
    ("bool-true", All, {"bo": True}, "68 01"),
    ("enum-blue", All, {"color": 2}, "80 01 02"),
    # Length-delimited: string, bytes, an empty sub-message (a present field of length 0).
    ("string-utf8", All, {"st": "é"}, "72 02 c3 a9"),
    ("bytes", All, {"by": b"\x00\xff"}, "7a 02 00 ff"),
    ("empty-child", All, {"child": All()}, "8a 01 00"),
    # Repeated fields: one record per element unpacked, one run packed (field 19, tag 9a 01).
    ("repeated-unpacked", All, {"r_i64": [1, 2]}, "90 01 01 90 01 02"),
    ("repeated-packed", All, {"r_i64p": [1, 2, 300]}, "9a 01 04 01 02 ac 02"),
    ("repeated-packed-negative", All, {"r_i64p": [-1]}, "9a 01 0a ff ff ff ff ff ff ff ff ff 01"),
    ("packed-floats", All, {"r_fl": [1.0, -2.0]}, "a2 01 08 00 00 80 3f 00 00 00 c0"),
    ("packed-bools", All, {"r_bo": [True, False]}, "f2 01 02 01 00"),
    ("repeated-strings", All, {"r_st": ["a", ""]}, "aa 01 01 61 aa 01 00"),
    # A oneof member is written like any other field.
    ("oneof-string", All, {"one_s": "x"}, "d2 01 01 78"),
    # Field-number order, whatever order the fields were given in.
    ("field-order", All, {"st": "a", "i32": 1, "bo": True}, "08 01 68 01 72 01 61"),
]

_CASES = [pytest.param(cls, values, hex_text, id=name) for name, cls, values, hex_text in GOLDEN]


def _expected(hex_text: str) -> bytes:
    return bytes.fromhex(hex_text.replace(" ", ""))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float):
        return math.copysign(1.0, a) == math.copysign(1.0, b) and a == b
    if isinstance(a, Message):
        return encode(a) == encode(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, bytes):
        return a == bytes(b)
    return bool(a == b)


@pytest.mark.parametrize(("cls", "values", "hex_text"), _CASES)
def test_we_write_the_guide_bytes(cls: type[Message], values: dict[str, Any], hex_text: str) -> None:
    assert encode(cls(**values)).hex(" ") == _expected(hex_text).hex(" ")


@pytest.mark.parametrize(("cls", "values", "hex_text"), _CASES)
def test_we_read_the_guide_bytes(cls: type[Message], values: dict[str, Any], hex_text: str) -> None:
    message = decode(cls, _expected(hex_text))
    for field, value in values.items():
        assert isinstance(value, list) or message.HasField(field), field
        assert _same(value, getattr(message, field)), (field, getattr(message, field))


def _upb_message(cls: type[Message], values: dict[str, Any]) -> Any:
    message = pb_twins()[cls]()
    for field, value in values.items():
        if isinstance(value, list):
            getattr(message, field).extend(value)
        elif isinstance(value, Message):
            getattr(message, field).ParseFromString(encode(value))
            getattr(message, field).SetInParent()
        else:
            setattr(message, field, value)
    return message


@pytest.mark.parametrize(("cls", "values", "hex_text"), _CASES)
def test_upb_writes_the_same_bytes(cls: type[Message], values: dict[str, Any], hex_text: str) -> None:
    """protobuf itself agrees with each literal (and so with us)."""
    assert _upb_message(cls, values).SerializeToString().hex(" ") == _expected(hex_text).hex(" ")


def test_upb_reads_over_long_varints_as_we_do_and_neither_writes_them_back() -> None:
    # 1 as a ten-byte varint is valid input; both sides write the shortest form.
    data = _expected("10 81 80 80 80 80 80 80 80 80 00")
    theirs = pb_twins()[All]()
    theirs.ParseFromString(data)
    mine = decode(All, data)
    assert mine.i64 == theirs.i64 == 1
    assert encode(mine) == theirs.SerializeToString() == _expected("10 01")


def test_unknown_fields_go_after_the_known_ones_like_upb() -> None:
    # Field 99 (unknown to All) as a varint record, read before a known field.
    data = _expected("98 06 05 08 07")
    theirs = pb_twins()[All]()
    theirs.ParseFromString(data)
    assert encode(decode(All, data)) == theirs.SerializeToString() == _expected("08 07 98 06 05")


# -- ONNX messages built by the onnx package ---------------------------------------------------


def _onnx() -> Any:
    return pytest.importorskip("onnx", reason="the onnx package is the third reference (test extra)")


def test_a_tensor_built_by_onnx_serializes_like_ours() -> None:
    onnx = _onnx()
    theirs = onnx.TensorProto(
        name="w", dims=[2, 3], data_type=onnx.TensorProto.INT64, int64_data=[-1, 0, 1, 2**40, -(2**63), 7]
    )
    mine = TensorProto(
        name="w", dims=[2, 3], data_type=TensorProto.INT64, int64_data=[-1, 0, 1, 2**40, -(2**63), 7]
    )
    assert encode(mine) == theirs.SerializeToString()
    # The hand-worked start: dims (field 1, not packed in the .proto), then data_type = INT64 (7).
    assert encode(mine).startswith(_expected("08 02 08 03 10 07"))


def test_a_node_built_by_onnx_helper_serializes_like_ours() -> None:
    onnx = _onnx()
    theirs = onnx.helper.make_node("Gemm", ["a", "b"], ["c"], name="n", alpha=0.5, transB=1)
    mine = NodeProto(
        input=["a", "b"],
        output=["c"],
        name="n",
        op_type="Gemm",
        attribute=[
            AttributeProto(name="alpha", f=0.5, type=AttributeProto.FLOAT),
            AttributeProto(name="transB", i=1, type=AttributeProto.INT),
        ],
    )
    assert encode(mine) == theirs.SerializeToString()
