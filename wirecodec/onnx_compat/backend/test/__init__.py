"""``onnx.backend.test``: the loader of onnx's backend test cases (:mod:`.loader`) and their
record (:class:`.case.test_case.TestCase`). onnx's test runner (``BackendTest``) and its test
data are not provided."""

from __future__ import annotations

from typing import Any

from wirecodec.onnx_compat._unsupported import missing_module_getattr
from wirecodec.onnx_compat.backend.test import case, loader

__all__ = ["case", "loader"]

__getattr__: Any = missing_module_getattr(
    "onnx.backend.test", "onnx's backend test runner is not provided", frozenset({"BackendTest", "runner"})
)
