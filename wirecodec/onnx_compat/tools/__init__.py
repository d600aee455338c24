"""``onnx.tools``: :mod:`.update_model_dims`, and :mod:`.net_drawer` (imported on first use:
it draws with pydot)."""

from __future__ import annotations

import importlib
from typing import Any

from wirecodec.onnx_compat.tools import update_model_dims

__all__ = ["net_drawer", "update_model_dims"]


def __getattr__(name: str) -> Any:
    if name == "net_drawer":
        return importlib.import_module("wirecodec.onnx_compat.tools.net_drawer")
    raise AttributeError(f"module 'onnx.tools' has no attribute {name!r}")
