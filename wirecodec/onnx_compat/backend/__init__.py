"""``onnx.backend``: :mod:`.base`, the classes a backend (onnxruntime's, onnx-tf's) derives from.

onnx's backend test runner and its test data (``onnx.backend.test``) are not provided.
"""

from __future__ import annotations

from wirecodec.onnx_compat.backend import base

__all__ = ["base"]
