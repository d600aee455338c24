"""``onnx.printer``: :func:`wirecodec.printer.to_text`, raising what onnx raises for a bad tensor.

onnx's printer raises ``onnx.shape_inference.InferenceError`` ("Data size mismatch")
for a tensor whose data does not fit its dims; wirecodec's raises
:class:`~wirecodec.TensorError`. Here it is a ``DataSizeError``: an ``InferenceError`` and a ``TensorError``.
"""

from __future__ import annotations

from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto
from wirecodec import printer as _printer
from wirecodec.errors import TensorError
from wirecodec.onnx_compat.shape_inference import DataSizeError

__all__ = ["to_text"]


def to_text(proto: ModelProto | GraphProto | FunctionProto | NodeProto) -> str:
    """The textual form of a model, graph, function or node, as onnx prints it."""
    try:
        return _printer.to_text(proto)
    except TensorError as error:
        raise DataSizeError(f"Data size mismatch: {error}") from error
