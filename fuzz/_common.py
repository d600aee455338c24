"""Shared setup for the atheris harnesses: imports, and the one error type they may swallow."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import schema_dsl.onnx as onnx_schema  # noqa: E402
from schema_dsl import Message  # noqa: E402
from wirecodec import WireCodecError  # noqa: E402

# The documented error contract: anything else escaping is a finding.
EXPECTED = WireCodecError

TOP_LEVEL: list[type[Message]] = [
    onnx_schema.ModelProto,
    onnx_schema.GraphProto,
    onnx_schema.NodeProto,
    onnx_schema.AttributeProto,
    onnx_schema.TensorProto,
    onnx_schema.SparseTensorProto,
    onnx_schema.TypeProto,
    onnx_schema.SequenceProto,
    onnx_schema.MapProto,
    onnx_schema.OptionalProto,
    onnx_schema.FunctionProto,
    onnx_schema.TrainingInfoProto,
    onnx_schema.OperatorSetProto,
    onnx_schema.ValueInfoProto,
]

__all__ = ["EXPECTED", "ROOT", "TOP_LEVEL"]
