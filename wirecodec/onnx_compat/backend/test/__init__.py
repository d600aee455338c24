"""``onnx.backend.test``: ``BackendTest`` (:class:`.runner.Runner`, the unittest cases
that run a backend on onnx's backend test data), the loader of that data (:mod:`.loader`)
and the record of one case (:class:`.case.test_case.TestCase`). The runner is imported on
first use."""

from __future__ import annotations

from typing import Any

from wirecodec.onnx_compat.backend.test import case, loader

__all__ = ["BackendTest", "case", "loader", "runner"]


def __getattr__(name: str) -> Any:  # (a module's __getattr__: the runner imports unittest)
    if name in ("BackendTest", "runner"):
        import importlib

        runner = importlib.import_module(f"{__name__}.runner")
        return runner if name == "runner" else runner.Runner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
