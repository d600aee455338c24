"""onnx's generated modules (``onnx_ml_pb2``, ``onnx_data_pb2``, ``onnx_operators_ml_pb2``) and
their aliases (``onnx_pb``, ``onnx_data_pb``, ``onnx_operators_pb``), one module per ``.proto``
file: :mod:`.ml`, :mod:`.data`, :mod:`.operators`.

``wirecodec.onnx_compat`` gives each of onnx's names as the module of its file
(:data:`ALIASES`): ``onnx_compat.onnx_pb is onnx_compat.onnx_ml_pb2``, importable by both names.
"""

from __future__ import annotations

from typing import Final

__all__ = ["ALIASES"]

ALIASES: Final = {
    "onnx_ml_pb2": "ml",
    "onnx_pb": "ml",
    "onnx_data_pb2": "data",
    "onnx_data_pb": "data",
    "onnx_operators_ml_pb2": "operators",
    "onnx_operators_pb": "operators",
    "onnx_operators_pb2": "operators",
}
"""onnx's module name -> the module here holding its names."""
