"""``onnx.onnx_operators_ml_pb2`` (and ``onnx.onnx_operators_pb``, ``onnx.onnx_operators_pb2``):
the messages of ``onnx-operators-ml.proto``.

Its file ``DESCRIPTOR`` raises :class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from __future__ import annotations

from typing import Any

from schema_dsl.onnx import OperatorProto, OperatorSetProto
from wirecodec.onnx_compat._unsupported import missing_module_getattr
from wirecodec.onnx_compat.protos import ml as onnx_dot_onnx__ml__pb2

__all__ = ["OperatorProto", "OperatorSetProto", "onnx_dot_onnx__ml__pb2"]

__getattr__: Any = missing_module_getattr(
    "onnx.onnx_operators_ml_pb2",
    "a google.protobuf FileDescriptor cannot be made without protobuf (each class's DESCRIPTOR is provided)",
    frozenset({"DESCRIPTOR"}),
)
