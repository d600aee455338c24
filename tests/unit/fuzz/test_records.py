"""The record tree under the rewrites: parse then emit gives the bytes back; lengths follow edits."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec.errors import DecodeError, LimitError
from wirecodec.examples.build_mlp import build
from wirecodec.protobuf.rewrite.records import (
    Fixed,
    Nested,
    Packed,
    Payload,
    Raw,
    Varint,
    emit,
    levels,
    parse,
    varint_bytes,
)
from wirecodec.protobuf.wire import read_varint


def test_parse_then_emit_gives_the_same_bytes() -> None:
    data = build().SerializeToString()
    assert emit(parse(data, ModelProto)) == data


def test_records_follow_the_schema() -> None:
    tensor = TensorProto(dims=[2, 3], data_type=1, float_data=[1.0, 2.0], name="w")
    records = parse(tensor.SerializeToString(), TensorProto)
    by_number = {r.number: r for r in records if not isinstance(r, Nested | Raw)}
    assert isinstance(by_number[1], Varint) and by_number[1].value == 3  # dims, unpacked: last record
    assert isinstance(by_number[4], Packed) and len(by_number[4].values) == 2  # float_data [packed = true]
    assert isinstance(by_number[8], Payload) and bytes(by_number[8].value) == b"w"


def test_an_edit_deep_inside_recomputes_every_enclosing_length() -> None:
    model = ModelProto(graph=GraphProto(node=[NodeProto(op_type="Relu", input=["x"], output=["y"])]))
    records = parse(model.SerializeToString(), ModelProto)
    node_level = next(level for level, cls in levels(records, ModelProto) if cls is NodeProto)
    node_level.append(Payload(1, b"a much longer input name than before"))
    out = ModelProto.FromString(emit(records))
    assert list(out.graph.node[0].input) == ["x", "a much longer input name than before"]


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, (1 << 63), (1 << 64) - 1])
@pytest.mark.parametrize("width", [0, 1, 2, 5, 10])
def test_padded_varints_read_back_as_the_value(value: int, width: int) -> None:
    encoded = varint_bytes(value, width)
    assert len(encoded) == max(width, len(varint_bytes(value)))
    assert read_varint(encoded, 0, len(encoded)) == (value, len(encoded))


def test_fixed_width_records_keep_their_bytes() -> None:
    data = TensorProto(double_data=[1.5]).SerializeToString()
    (record,) = parse(data, TensorProto)
    assert isinstance(record, Packed) and record.values == [b"\x00\x00\x00\x00\x00\x00\xf8?"]
    value = record.values[0]
    assert isinstance(value, bytes)
    unpacked = bytes([10 << 3 | 1]) + value  # the same value as one I64 record
    assert isinstance(parse(unpacked, TensorProto)[0], Fixed)


@pytest.mark.parametrize(
    "data",
    [b"\x08", b"\x0a\x05ab", b"\x00\x01", b"\x0f", b"\x1b\x08\x01", b"\x09\x00\x00"],
    ids=["cut varint", "length past end", "field 0", "wire type 7", "open group", "cut fixed64"],
)
def test_malformed_input_is_a_decode_error(data: bytes) -> None:
    with pytest.raises(DecodeError):
        parse(data, ModelProto)


def test_nesting_past_the_limit_is_a_limit_error() -> None:
    graph = GraphProto(name="leaf")
    for _ in range(3):
        graph = GraphProto(node=[NodeProto(attribute=[AttributeProto(name="g", type=5, g=graph)])])
    data = graph.SerializeToString()
    assert emit(parse(data, GraphProto, max_depth=20)) == data
    with pytest.raises(LimitError):
        parse(data, GraphProto, max_depth=5)
