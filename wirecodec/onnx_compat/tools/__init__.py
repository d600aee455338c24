"""``onnx.tools``: :mod:`.update_model_dims` (the other tool, ``net_drawer``, is not provided)."""

from __future__ import annotations

from wirecodec.onnx_compat.tools import update_model_dims

__all__ = ["update_model_dims"]
