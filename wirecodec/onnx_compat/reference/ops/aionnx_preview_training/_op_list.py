"""``onnx.reference.ops.aionnx_preview_training._op_list``: ``Adam``, ``Adagrad``, ``Momentum``."""

from __future__ import annotations

from typing import Any

from wirecodec.onnx_compat.reference.ops._names.operators import operator_class

_DOMAIN = "ai.onnx.preview.training"


def __getattr__(name: str) -> Any:
    found = operator_class(name, _DOMAIN) if not name.startswith("__") else None
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = found
    return found
