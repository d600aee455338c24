"""``onnx.onnx_data_pb``: onnx's name for :mod:`~wirecodec.onnx_compat.onnx_data_pb2` (the same objects)."""

from __future__ import annotations

from typing import Any

from wirecodec.onnx_compat import onnx_data_pb2 as _target
from wirecodec.onnx_compat.onnx_data_pb2 import *  # noqa: F403  (the alias is the module's names)

__all__ = list(_target.__all__)

__getattr__: Any = _target.__getattr__
