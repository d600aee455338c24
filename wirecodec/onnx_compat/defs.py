"""``onnx.defs``: operator schemas, which wirecodec does not provide yet.

``onnx_opset_version()`` is the newest default-domain opset of the onnx release whose IR
version wirecodec writes. Any other onnx name is taken from ``wirecodec.defs`` once that
package exists and has it; until then it raises
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

import importlib
from typing import Any

from wirecodec._helper.versions import DEFAULT_OPSET_VERSION
from wirecodec.onnx_compat._unsupported import missing_module_getattr

__all__ = [
    "AI_ONNX_PREVIEW_DOMAIN",
    "AI_ONNX_PREVIEW_TRAINING_DOMAIN",
    "ONNX_DOMAIN",
    "ONNX_ML_DOMAIN",
    "onnx_opset_version",
]

ONNX_DOMAIN = ""
ONNX_ML_DOMAIN = "ai.onnx.ml"
AI_ONNX_PREVIEW_DOMAIN = "ai.onnx.preview"
AI_ONNX_PREVIEW_TRAINING_DOMAIN = "ai.onnx.preview.training"


def onnx_opset_version() -> int:
    """The newest version of the default domain (28, onnx 1.23's)."""
    return DEFAULT_OPSET_VERSION


_missing = missing_module_getattr(
    "onnx.defs",
    "operator schemas are not part of wirecodec yet",
    frozenset(
        {
            "get_schema",
            "get_all_schemas",
            "get_all_schemas_with_history",
            "has",
            "get_function_ops",
            "OpSchema",
            "SchemaError",
            "onnx_ml_opset_version",
            "register_schema",
            "deregister_schema",
        }
    ),
)


def __getattr__(name: str) -> Any:
    """``wirecodec.defs.<name>`` when that exists, else :class:`NotProvidedError` for onnx's names."""
    try:
        schemas = importlib.import_module("wirecodec.defs")
    except ModuleNotFoundError:
        schemas = None
    if schemas is not None and not name.startswith("__") and hasattr(schemas, name):
        return getattr(schemas, name)
    return _missing(name)
