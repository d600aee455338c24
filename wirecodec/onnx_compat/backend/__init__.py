"""``onnx.backend``: :mod:`.base`, the classes a backend (onnxruntime's, onnx-tf's) derives from.

``onnx.backend.test`` (imported on first use) has the loader of a folder of backend test
data and its ``TestCase``; onnx's test runner and its test data are not provided.
"""

from __future__ import annotations

from wirecodec.onnx_compat.backend import base

__all__ = ["base"]
