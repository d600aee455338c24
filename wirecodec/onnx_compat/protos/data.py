"""``onnx.onnx_data_pb2`` (and ``onnx.onnx_data_pb``): the messages of ``onnx-data.proto``.

Its file ``DESCRIPTOR`` raises :class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from __future__ import annotations

from typing import Any

from schema_dsl.onnx import MapProto, OptionalProto, SequenceProto
from wirecodec.onnx_compat._unsupported import missing_module_getattr
from wirecodec.onnx_compat.protos import ml as onnx_dot_onnx__ml__pb2

__all__ = ["MapProto", "OptionalProto", "SequenceProto", "onnx_dot_onnx__ml__pb2"]

__getattr__: Any = missing_module_getattr(
    "onnx.onnx_data_pb2",
    "a google.protobuf FileDescriptor cannot be made without protobuf (each class's DESCRIPTOR is provided)",
    frozenset({"DESCRIPTOR"}),
)
