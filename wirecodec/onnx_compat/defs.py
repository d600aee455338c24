"""``onnx.defs``: :mod:`wirecodec.defs` (operator schemas as data) under onnx's names.

``get_schema`` raises :class:`SchemaError` where onnx does (no such operator at that
version), ``has`` answers as onnx's; the schema objects are this module's
:class:`OpSchema`, a :class:`wirecodec.defs.OpSchema` (their fields as onnx names them
where the data has them) with onnx's nested names (``OpSchema.AttrType``,
``.FormalParameterOption``, ``.SupportType``, ``.FormalParameter``, ``.Attribute``,
``.TypeConstraintParam``, ...) and ``support_level``. Registering schemas at run
time (``register_schema``, ``deregister_schema``) and ``get_function_ops`` raise
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Final

from schema_dsl.onnx import AttributeProto
from wirecodec import defs as _defs
from wirecodec._helper.versions import DEFAULT_OPSET_VERSION
from wirecodec.defs import (
    AI_ONNX_PREVIEW_TRAINING_DOMAIN,
    ONNX_DOMAIN,
    ONNX_ML_DOMAIN,
    Attribute,
    FormalParameter,
    FormalParameterOption,
    TypeConstraint,
)
from wirecodec.defs._registry import registry as _registry
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
    "schema_version_map",
]

AI_ONNX_PREVIEW_DOMAIN = "ai.onnx.preview"

# The schemas onnx registers as EXPERIMENTAL (a fact of onnx 1.23, checked against it by
# tests/differential/test_onnx_compat_names.py).
_EXPERIMENTAL: Final = frozenset({("ai.onnx.preview", "FlexAttention", 1), ("", "Upsample", 1)})


class _SupportType(enum.IntEnum):
    COMMON = 0
    EXPERIMENTAL = 1


class _DifferentiationCategory(enum.IntEnum):
    Unknown = 0
    Differentiable = 1
    NonDifferentiable = 2


class _NodeDeterminism(enum.IntEnum):
    Unknown = 0
    NonDeterministic = 1
    Deterministic = 2


_AttrType = enum.IntEnum(  # type: ignore[misc]  # AttributeProto's types, without UNDEFINED, as onnx's
    "AttrType", [(m.name, int(m)) for m in AttributeProto.AttributeType if m.name != "UNDEFINED"]
)


@dataclasses.dataclass(frozen=True, slots=True, eq=False)
class OpSchema(_defs.OpSchema):
    """An operator schema with onnx's ``OpSchema`` names: the nested enums and record types,
    and ``support_level``.

    >>> OpSchema.AttrType.INTS, get_schema("Relu").support_level == OpSchema.SupportType.COMMON
    (<AttrType.INTS: 7>, True)
    """

    def __hash__(self) -> int:
        return _defs.OpSchema.__hash__(self)

    @property
    def support_level(self) -> _SupportType:
        """EXPERIMENTAL for the schemas onnx marks so, else COMMON."""
        key = (self.domain, self.name, self.since_version)
        return _SupportType.EXPERIMENTAL if key in _EXPERIMENTAL else _SupportType.COMMON


_NESTED: Final = {
    "AttrType": _AttrType,
    "SupportType": _SupportType,
    "DifferentiationCategory": _DifferentiationCategory,
    "NodeDeterminism": _NodeDeterminism,
    "FormalParameterOption": FormalParameterOption,
    "FormalParameter": FormalParameter,
    "Attribute": Attribute,
    "TypeConstraintParam": TypeConstraint,
}
for _name, _value in _NESTED.items():
    setattr(OpSchema, _name, _value)
_CONVERTED: dict[tuple[str, str, int], OpSchema] = {}


def _onnx_schema(schema: _defs.OpSchema) -> OpSchema:
    """``schema`` as this module's OpSchema (one object per schema)."""
    key = (schema.domain, schema.name, schema.since_version)
    found = _CONVERTED.get(key)
    if found is None:
        values = {f.name: getattr(schema, f.name) for f in dataclasses.fields(_defs.OpSchema)}
        found = _CONVERTED.setdefault(key, OpSchema(**values))
    return found


def get_all_schemas() -> list[OpSchema]:
    """The latest schema of each operator of each domain."""
    return [_onnx_schema(s) for s in _defs.get_all_schemas()]


def get_all_schemas_with_history() -> list[OpSchema]:
    """Every version of every operator's schema."""
    return [_onnx_schema(s) for s in _defs.get_all_schemas_with_history()]


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
    return _onnx_schema(found)


def schema_version_map() -> dict[str, tuple[int, int]]:
    """Each domain onnx knows -> its (lowest, highest) opset version, as onnx's C extension gives it."""
    return dict(_registry().domain_versions)


def has(op_type: str, max_inclusive_version: int | None = None, domain: str = ONNX_DOMAIN) -> bool:
    """Whether ``op_type`` has a schema (at ``max_inclusive_version`` when given)."""
    return _defs.has_schema(op_type, max_inclusive_version, domain)


__getattr__: Any = missing_module_getattr(
    "onnx.defs",
    "registering operator schemas at run time is not provided",
    frozenset({"get_function_ops", "register_schema", "deregister_schema", "onnx_ml_opset_version"}),
)
