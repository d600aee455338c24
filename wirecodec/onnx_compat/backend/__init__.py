"""``onnx.backend``: :mod:`.base`, the classes a backend (onnxruntime's, onnx-tf's) derives from.

``onnx.backend.test`` (imported on first use) has onnx's test runner (``BackendTest``), the
loader of a folder of backend test data and its ``TestCase``; onnx's test data is not
shipped (the runner reads the installed onnx's folder, or one it is given).
"""

from __future__ import annotations

from wirecodec.onnx_compat.backend import base

__all__ = ["base"]
