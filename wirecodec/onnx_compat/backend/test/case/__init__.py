"""``onnx.backend.test.case``: the record of one backend test case (:mod:`.test_case`)."""

from __future__ import annotations

from wirecodec.onnx_compat.backend.test.case import test_case

__all__ = ["test_case"]
