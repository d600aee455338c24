"""``onnx.tools``: :mod:`.update_model_dims`, and :mod:`.net_drawer` (it draws with pydot) and
:mod:`.replace_constants` (it makes arrays with numpy), imported on first use."""

from __future__ import annotations

import importlib
from typing import Any

from wirecodec.onnx_compat.tools import update_model_dims

__all__ = ["net_drawer", "replace_constants", "update_model_dims"]


def __getattr__(name: str) -> Any:
    if name in ("net_drawer", "replace_constants"):
        return importlib.import_module(f"wirecodec.onnx_compat.tools.{name}")
    raise AttributeError(f"module 'onnx.tools' has no attribute {name!r}")
