"""``onnx.onnx_operators_pb2``: onnx's name for :mod:`~wirecodec.onnx_compat.onnx_operators_ml_pb2`."""

from __future__ import annotations

from typing import Any

from wirecodec.onnx_compat import onnx_operators_ml_pb2 as _target
from wirecodec.onnx_compat.onnx_operators_ml_pb2 import *  # noqa: F403  (the alias is the module's names)

__all__ = list(_target.__all__)

__getattr__: Any = _target.__getattr__
