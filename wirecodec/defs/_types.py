"""The shapes of operator schema data: OpSchema and the parameters, attributes and constraints in it."""

from __future__ import annotations

import bisect
import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from schema_dsl.onnx import FunctionProto

__all__ = [
    "Attribute",
    "AttributeValue",
    "FormalParameter",
    "FormalParameterOption",
    "OpSchema",
    "TypeConstraint",
]

# A default as onnx.helper.get_attribute_value gives it (STRING and STRINGS as bytes).
AttributeValue = int | float | bytes | list[int] | list[float] | list[bytes]


class FormalParameterOption(enum.IntEnum):
    """How many values a formal input or output takes (onnx's ``OpSchema.FormalParameterOption``)."""

    Single = 0
    Optional = 1
    Variadic = 2


@dataclass(frozen=True, slots=True)
class FormalParameter:
    """One declared input or output of an operator.

    ``type_str`` is a type-constraint name (``"T"``) or a type (``"tensor(int64)"``);
    ``min_arity`` and ``is_homogeneous`` matter for a Variadic parameter only.
    """

    name: str
    option: FormalParameterOption
    is_homogeneous: bool
    min_arity: int
    type_str: str


@dataclass(frozen=True, slots=True)
class Attribute:
    """One declared attribute: its ``AttributeProto.AttributeType`` number, and default if any."""

    name: str
    type: int
    required: bool
    default_value: AttributeValue | None


@dataclass(frozen=True, slots=True)
class TypeConstraint:
    """A type parameter (``"T"``) and the type strings it may be bound to."""

    type_param_str: str
    allowed_type_strs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OpSchema:
    """One version of one operator, as onnx registers it (names follow ``onnx.defs.OpSchema``).

    ``refused_input_counts``/``refused_output_counts`` list the counts within
    ``[min, max]`` that onnx's checker still refuses; ``allows_unchecked_attributes``
    lets attributes the schema does not declare through. Function bodies are kept as
    serialized ``FunctionProto`` bytes, by the opset version they were written for.
    """

    name: str
    domain: str
    since_version: int
    deprecated: bool
    inputs: tuple[FormalParameter, ...]
    outputs: tuple[FormalParameter, ...]
    min_input: int
    max_input: int
    min_output: int
    max_output: int
    attributes: Mapping[str, Attribute]
    type_constraints: tuple[TypeConstraint, ...]
    refused_input_counts: frozenset[int] = frozenset()
    refused_output_counts: frozenset[int] = frozenset()
    allows_unchecked_attributes: bool = False
    function_bodies: Mapping[int, bytes] = field(default_factory=dict)
    context_dependent_function_opset_versions: tuple[int, ...] = ()

    def __hash__(self) -> int:
        # One schema per (domain, name, since_version); the mappings inside are not hashable.
        return hash((self.domain, self.name, self.since_version))

    @property
    def has_function(self) -> bool:
        """True when onnx defines a function body (not context dependent) for this schema."""
        return bool(self.function_bodies)

    @property
    def has_context_dependent_function(self) -> bool:
        """True when onnx builds the body from the node and its input types (not stored here)."""
        return bool(self.context_dependent_function_opset_versions)

    @property
    def function_opset_versions(self) -> tuple[int, ...]:
        """The opset versions a stored function body was written for, ascending."""
        return tuple(sorted(self.function_bodies))

    def get_function_with_opset_version(self, opset_version: int) -> bytes | None:
        """The serialized body in effect at ``opset_version`` (the latest written at or before it)."""
        versions = self.function_opset_versions
        at = bisect.bisect_right(versions, opset_version)
        return self.function_bodies[versions[at - 1]] if at else None

    def function_body(self, opset_version: int | None = None) -> FunctionProto | None:
        """The body in effect at ``opset_version``, decoded (default: the latest, as onnx gives it)."""
        versions = self.function_opset_versions
        if opset_version is None and versions:
            opset_version = versions[-1]
        data = None if opset_version is None else self.get_function_with_opset_version(opset_version)
        if data is None:
            return None
        from schema_dsl.onnx import FunctionProto
        from wirecodec.protobuf.codec import decode

        return decode(FunctionProto, data)

    def accepts_input_count(self, count: int) -> bool:
        """Whether onnx's checker takes a node with ``count`` inputs."""
        return self.min_input <= count <= self.max_input and count not in self.refused_input_counts

    def accepts_output_count(self, count: int) -> bool:
        """Whether onnx's checker takes a node with ``count`` outputs."""
        return self.min_output <= count <= self.max_output and count not in self.refused_output_counts
