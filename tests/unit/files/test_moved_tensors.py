"""A tensor moved out to a data file keeps what it had besides its bytes: the fields the
writer does not touch, and unknown fields a newer onnx may have written (as onnx's own
external-data writer, which edits the protobuf message in place, keeps them)."""

from __future__ import annotations

import pathlib

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec.protobuf.wire import encode_varint

_UNKNOWN = encode_varint(99 << 3) + encode_varint(7)  # field 99, a varint: unknown to ONNX


def _model() -> ModelProto:
    tensor = TensorProto(
        name="w", data_type=TensorProto.FLOAT, dims=[256], raw_data=bytes(1024), doc_string="the weights"
    )
    with_unknown = wirecodec.decode(TensorProto, wirecodec.encode(tensor) + _UNKNOWN)
    return ModelProto(ir_version=10, graph=GraphProto(name="g", initializer=[with_unknown]))


@pytest.mark.parametrize("external_data", [True, "w.safetensors"])
def test_a_moved_tensor_keeps_its_unknown_fields(tmp_path: pathlib.Path, external_data: bool | str) -> None:
    wirecodec.save(_model(), tmp_path / "m.onnx", external_data=external_data, size_threshold=0)
    moved = wirecodec.load(tmp_path / "m.onnx", load_external_data=False).graph.initializer[0]
    assert moved.data_location == TensorProto.EXTERNAL and not moved.HasField("raw_data")
    assert moved.doc_string == "the weights" and list(moved.dims) == [256]
    assert [bytes(u) for u in moved.UnknownFields()] == [_UNKNOWN]
