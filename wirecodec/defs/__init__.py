"""ONNX operator schemas as data: every operator of every onnx domain, with its version history.

The facts come from onnx (``python -m wirecodec.defs._generate`` writes
``schemas.json``; a test fails when the file differs from what the installed onnx
gives) and are read on the first lookup, never at ``import wirecodec``. Names follow
``onnx.defs``:

- :func:`get_schema` ``(op_type, max_inclusive_version, domain="")``: the version in
  effect at that opset, as onnx resolves it (the largest ``since_version`` not above
  it), or None;
- :func:`has_schema`, :func:`get_all_schemas` (the latest of each operator),
  :func:`get_all_schemas_with_history`, :func:`onnx_opset_version`,
  :func:`domain_version_range`;
- the records :class:`OpSchema`, :class:`FormalParameter`, :class:`Attribute`,
  :class:`TypeConstraint` (frozen dataclasses; attribute types are
  ``AttributeProto.AttributeType`` numbers, defaults plain values).

>>> from wirecodec import defs
>>> relu = defs.get_schema("Relu", 12)
>>> relu.since_version, [p.name for p in relu.inputs], relu.type_constraints[0].type_param_str
(6, ['X'], 'T')
>>> defs.get_schema("Relu", 5).attributes["consumed_inputs"].type  # INTS
7
>>> defs.get_schema("Gelu", 19) is None  # Gelu came in opset 20
True
>>> [node.op_type for node in defs.get_schema("Mish", 22).function_body().node]
['Softplus', 'Tanh', 'Mul']
>>> defs.get_schema("Gelu", 20).context_dependent_function_opset_versions  # built per node by onnx
(20,)
"""

from __future__ import annotations

from wirecodec.defs._registry import registry
from wirecodec.defs._types import (
    Attribute,
    AttributeValue,
    FormalParameter,
    FormalParameterOption,
    OpSchema,
    TypeConstraint,
)

__all__ = [
    "ONNX_DOMAIN",
    "ONNX_ML_DOMAIN",
    "AI_ONNX_PREVIEW_TRAINING_DOMAIN",
    "Attribute",
    "AttributeValue",
    "FormalParameter",
    "FormalParameterOption",
    "OpSchema",
    "TypeConstraint",
    "domain_version_range",
    "get_all_schemas",
    "get_all_schemas_with_history",
    "get_schema",
    "has_schema",
    "onnx_opset_version",
    "schema_onnx_version",
]

ONNX_DOMAIN = ""
ONNX_ML_DOMAIN = "ai.onnx.ml"
AI_ONNX_PREVIEW_TRAINING_DOMAIN = "ai.onnx.preview.training"


def get_schema(op_type: str, max_inclusive_version: int, domain: str = ONNX_DOMAIN) -> OpSchema | None:
    """The schema of ``op_type`` in effect at opset ``max_inclusive_version`` of ``domain``, or None.

    As onnx's registry: operators of the default domain are registered under ``""``
    only (``"ai.onnx"`` finds nothing).
    """
    return registry().schema(op_type, max_inclusive_version, domain)


def has_schema(op_type: str, max_inclusive_version: int | None = None, domain: str = ONNX_DOMAIN) -> bool:
    """Whether ``op_type`` has a schema in ``domain`` (at ``max_inclusive_version`` when given)."""
    if max_inclusive_version is None:
        return bool(registry().versions(op_type, domain))
    return registry().schema(op_type, max_inclusive_version, domain) is not None


def get_all_schemas() -> list[OpSchema]:
    """The latest version of every operator, ordered by (domain, name)."""
    return [history[-1] for _, history in sorted(registry().by_op.items())]


def get_all_schemas_with_history() -> list[OpSchema]:
    """Every version of every operator, ordered by (domain, name, since_version)."""
    return [schema for _, history in sorted(registry().by_op.items()) for schema in history]


def onnx_opset_version() -> int:
    """The highest ``ai.onnx`` opset version the schemas know (``onnx.defs.onnx_opset_version``)."""
    return registry().domain_versions[ONNX_DOMAIN][1]


def domain_version_range(domain: str) -> tuple[int, int] | None:
    """The (lowest, highest) opset version onnx knows for ``domain``, or None for a custom domain."""
    return registry().domain_versions.get(domain)


def schema_onnx_version() -> str:
    """The onnx release the shipped schemas were generated from."""
    return registry().onnx_version
