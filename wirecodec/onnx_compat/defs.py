"""``onnx.defs``: :mod:`wirecodec.defs` (operator schemas as data) under onnx's names.

``get_schema`` raises :class:`SchemaError` where onnx does (no such operator at that
version), ``has`` answers as onnx's; the schema objects are :class:`wirecodec.defs.OpSchema`
(their fields as onnx names them where the data has them). Registering schemas at run
time (``register_schema``, ``deregister_schema``) and ``get_function_ops`` raise
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from __future__ import annotations

from typing import Any

from wirecodec import defs as _defs
from wirecodec._helper.versions import DEFAULT_OPSET_VERSION
from wirecodec.defs import (
    AI_ONNX_PREVIEW_TRAINING_DOMAIN,
    ONNX_DOMAIN,
    ONNX_ML_DOMAIN,
    OpSchema,
    get_all_schemas,
    get_all_schemas_with_history,
)
from wirecodec.errors import WireCodecError
from wirecodec.onnx_compat._unsupported import missing_module_getattr

__all__ = [
    "AI_ONNX_PREVIEW_DOMAIN",
    "AI_ONNX_PREVIEW_TRAINING_DOMAIN",
    "ONNX_DOMAIN",
    "ONNX_ML_DOMAIN",
    "OpSchema",
    "SchemaError",
    "get_all_schemas",
    "get_all_schemas_with_history",
    "get_schema",
    "has",
    "onnx_opset_version",
]

AI_ONNX_PREVIEW_DOMAIN = "ai.onnx.preview"


class SchemaError(WireCodecError, RuntimeError):
    """onnx.defs.SchemaError: no schema of that operator at that version in that domain."""


def onnx_opset_version() -> int:
    """The newest version of the default domain (28, onnx 1.23's)."""
    return DEFAULT_OPSET_VERSION


def get_schema(op_type: str, max_inclusive_version: int | None = None, domain: str = ONNX_DOMAIN) -> OpSchema:
    """The schema of ``op_type`` in effect at ``max_inclusive_version`` (default: the newest)."""
    version = max_inclusive_version if max_inclusive_version is not None else 1 << 30
    found = _defs.get_schema(op_type, version, domain)
    if found is None:
        raise SchemaError(f"No schema registered for '{op_type}' (domain {domain!r}, version {version})")
    return found


def has(op_type: str, max_inclusive_version: int | None = None, domain: str = ONNX_DOMAIN) -> bool:
    """Whether ``op_type`` has a schema (at ``max_inclusive_version`` when given)."""
    return _defs.has_schema(op_type, max_inclusive_version, domain)


__getattr__: Any = missing_module_getattr(
    "onnx.defs",
    "registering operator schemas at run time is not provided",
    frozenset({"get_function_ops", "register_schema", "deregister_schema", "onnx_ml_opset_version"}),
)
