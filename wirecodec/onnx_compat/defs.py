"""``onnx.defs``: :mod:`wirecodec.defs` (operator schemas as data) under onnx's names.

``get_schema`` raises :class:`SchemaError` where onnx does (no such operator at that
version), ``has`` answers as onnx's; the schema objects are this module's
:class:`OpSchema`, a :class:`wirecodec.defs.OpSchema` (their fields as onnx names them
where the data has them) with onnx's nested names (``OpSchema.AttrType``,
``.FormalParameterOption``, ``.SupportType``, ``.FormalParameter``, ``.Attribute``,
``.TypeConstraintParam``, ...: onnx's shapes, with ``description`` and an
``AttributeProto`` ``default_value``) and ``support_level``. A schema made with onnx's
``OpSchema(name, domain, since_version, doc, inputs=..., ...)`` constructor and given to
``register_schema`` is seen by ``get_schema``, the checker and shape inference until
``deregister_schema``. ``get_function_ops`` raises
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Sequence
from typing import Any, Final

from schema_dsl.onnx import AttributeProto
from wirecodec import defs as _defs
from wirecodec._helper.versions import DEFAULT_OPSET_VERSION
from wirecodec.defs import (
    AI_ONNX_PREVIEW_TRAINING_DOMAIN,
    ONNX_DOMAIN,
    ONNX_ML_DOMAIN,
    Attribute,
    AttributeValue,
    FormalParameter,
    FormalParameterOption,
    TypeConstraint,
)
from wirecodec.defs._registry import registry as _registry
from wirecodec.errors import WireCodecError

__all__ = [
    "AI_ONNX_PREVIEW_DOMAIN",
    "AI_ONNX_PREVIEW_TRAINING_DOMAIN",
    "ONNX_DOMAIN",
    "ONNX_ML_DOMAIN",
    "OpSchema",
    "SchemaError",
    "deregister_schema",
    "get_all_schemas",
    "get_all_schemas_with_history",
    "get_function_ops",
    "get_schema",
    "has",
    "onnx_ml_opset_version",
    "onnx_opset_version",
    "register_schema",
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


_INFINITE: Final = 2147483647  # onnx's max_input/max_output after a Variadic parameter


class _TypeConstraintParam:
    """``OpSchema.TypeConstraintParam``: a type parameter, the types it may be bound to, its text."""

    __slots__ = ("allowed_type_strs", "description", "type_param_str")

    def __init__(self, type_param_str: str, allowed_type_strs: Sequence[str], description: str = "") -> None:
        self.type_param_str = type_param_str
        self.allowed_type_strs = list(allowed_type_strs)
        self.description = description

    def __repr__(self) -> str:
        return (
            f"OpSchema.TypeConstraintParam(type_param_str={self.type_param_str!r}, "
            f"allowed_type_strs={self.allowed_type_strs!r}, description={self.description!r})"
        )


class _FormalParameter:
    """``OpSchema.FormalParameter``: one declared input or output, with onnx's constructor
    (``FormalParameter(name, type_str, description="", *, param_option=Single, ...)``)."""

    __slots__ = (
        "_types",
        "description",
        "differentiation_category",
        "is_homogeneous",
        "min_arity",
        "name",
        "option",
        "type_str",
    )

    def __init__(
        self,
        name: str,
        type_str: str,
        description: str = "",
        *,
        param_option: FormalParameterOption = FormalParameterOption.Single,
        is_homogeneous: bool = True,
        min_arity: int = 1,
        differentiation_category: _DifferentiationCategory = _DifferentiationCategory.Unknown,
    ) -> None:
        self.name = name
        self.type_str = type_str
        self.description = description
        self.option = FormalParameterOption(param_option)
        self.is_homogeneous = is_homogeneous
        self.min_arity = min_arity
        self.differentiation_category = _DifferentiationCategory(differentiation_category)
        self._types: set[str] = set()

    @property
    def types(self) -> set[str]:
        """The types this parameter takes (its constraint's, or its own type string), spelled
        as onnx spells them here (``map(int64,tensor(float))``)."""
        from wirecodec.shape_inference._check_types import canonical_type_str

        return {canonical_type_str(t) for t in self._types}

    def __repr__(self) -> str:
        return f"OpSchema.FormalParameter(name={self.name!r}, type_str={self.type_str!r})"


class _Attribute:
    """``OpSchema.Attribute``: ``Attribute(name, type, description="", *, required=True)`` or
    ``Attribute(name, default_value, description="")`` with an ``AttributeProto`` default
    (``default_value`` is an empty ``AttributeProto`` when there is none, as onnx's)."""

    __slots__ = ("_default", "_proto", "description", "name", "required", "type")

    def __init__(
        self, name: str, type_or_default: Any, description: str = "", *, required: bool = True
    ) -> None:
        self.name = name
        self.description = description
        self._proto: AttributeProto | None = None
        self._default: AttributeValue | None = None
        if isinstance(type_or_default, AttributeProto):
            self._proto = type_or_default
            self.type = _AttrType(int(type_or_default.type))
            self.required = False
            from wirecodec.helper import get_attribute_value

            value = get_attribute_value(type_or_default)
            self._default = value if isinstance(value, (int, float, bytes, list)) else None
        else:
            self.type = _AttrType(int(type_or_default))
            self.required = required

    @classmethod
    def _of(cls, attribute: _defs.Attribute, description: str = "") -> _Attribute:
        made = cls(attribute.name, attribute.type, description, required=attribute.required)
        made._default = attribute.default_value
        return made

    @property
    def default_value(self) -> AttributeProto:
        """The default as an ``AttributeProto`` named as the attribute (empty when none)."""
        if self._proto is None:
            self._proto = AttributeProto()
            if self._default is not None:
                from wirecodec.helper import make_attribute

                value: Any = self._default
                if self.type == AttributeProto.FLOAT:
                    value = float(value)
                elif self.type == AttributeProto.FLOATS:
                    value = [float(v) for v in value]
                self._proto = make_attribute(self.name, value, attr_type=int(self.type))
        return self._proto

    def __repr__(self) -> str:
        return f"OpSchema.Attribute(name={self.name!r}, type={self.type!r}, required={self.required})"


@dataclasses.dataclass(frozen=True, slots=True, eq=False, init=False)
class OpSchema(_defs.OpSchema):
    """An operator schema with onnx's ``OpSchema`` names: the nested enums and record types,
    ``support_level``, and onnx's constructor, for a schema given to :func:`register_schema`.

    >>> OpSchema.AttrType.INTS, get_schema("Relu").support_level == OpSchema.SupportType.COMMON
    (<AttrType.INTS: 7>, True)
    >>> mine = OpSchema("Twice", "my.domain", 1, inputs=[OpSchema.FormalParameter("X", "T")],
    ...     outputs=[OpSchema.FormalParameter("Y", "T")], type_constraints=[("T", ["tensor(float)"], "")])
    >>> mine.min_input, mine.max_output, sorted(mine.inputs[0].types)
    (1, 1, ['tensor(float)'])
    """

    doc: str = ""
    node_determinism: _NodeDeterminism = _NodeDeterminism.Unknown
    _inference: Callable[[Any], None] | None = None

    def __init__(
        self,
        name: str,
        domain: str,
        since_version: int,
        doc: str = "",
        *,
        inputs: Sequence[_FormalParameter] = (),
        outputs: Sequence[_FormalParameter] = (),
        type_constraints: Sequence[tuple[str, Sequence[str], str]] = (),
        attributes: Sequence[_Attribute] = (),
        node_determinism: _NodeDeterminism = _NodeDeterminism.Unknown,
    ) -> None:
        constraints = tuple(
            _TypeConstraintParam(c[0], c[1], c[2] if len(c) > 2 else "") for c in type_constraints
        )
        allowed = {c.type_param_str: set(c.allowed_type_strs) for c in constraints}
        counts: list[int] = []
        for params in (inputs, outputs):
            low = high = 0
            for p in params:
                p._types = allowed.get(p.type_str, {p.type_str})
                if p.option == FormalParameterOption.Single:
                    high += 1
                    low = high
                elif p.option == FormalParameterOption.Optional:
                    high += 1
                else:
                    low, high = high + p.min_arity, _INFINITE
            counts += [low, high]
        values: dict[str, Any] = {
            "name": name,
            "domain": domain,
            "since_version": int(since_version),
            "deprecated": False,
            "inputs": tuple(inputs),
            "outputs": tuple(outputs),
            "min_input": counts[0],
            "max_input": counts[1],
            "min_output": counts[2],
            "max_output": counts[3],
            "attributes": {a.name: a for a in attributes},
            "type_constraints": constraints,
            "refused_input_counts": frozenset(),
            "refused_output_counts": frozenset(),
            "allows_unchecked_attributes": False,
            "function_bodies": {},
            "context_dependent_function_opset_versions": (),
            "doc": doc,
            "node_determinism": _NodeDeterminism(node_determinism),
            "_inference": None,
        }
        for key, value in values.items():
            object.__setattr__(self, key, value)

    def __hash__(self) -> int:
        return _defs.OpSchema.__hash__(self)

    def set_type_and_shape_inference_function(self, func: Callable[[Any], None]) -> OpSchema:
        """Give this schema an inference function: once registered (:func:`register_schema`),
        shape inference calls ``func(ctx)`` for each node of the operator, ``ctx`` an
        ``onnx.shape_inference.InferenceContext``. Returns the schema, as onnx's."""
        if not callable(func):
            raise TypeError(
                f"set_type_and_shape_inference_function takes a function, not {type(func).__name__}"
            )
        object.__setattr__(self, "_inference", func)
        return self

    def get_type_and_shape_inference_function(self) -> Callable[[Any], None] | None:
        """The function :meth:`set_type_and_shape_inference_function` gave (None if none)."""
        return self._inference

    @property
    def has_type_and_shape_inference_function(self) -> bool:
        """Whether inference has a rule for this operator: a function given to this schema,
        or one of wirecodec's built-in rules."""
        if self._inference is not None:
            return True
        import wirecodec.shape_inference.ops  # noqa: F401  (registers the built-in rules)
        from wirecodec.shape_inference._registry import RULES, domain_key

        return (domain_key(self.domain), self.name) in RULES

    @property
    def support_level(self) -> _SupportType:
        """EXPERIMENTAL for the schemas onnx marks so, else COMMON."""
        key = (self.domain, self.name, self.since_version)
        return _SupportType.EXPERIMENTAL if key in _EXPERIMENTAL else _SupportType.COMMON

    def _plain(self) -> _defs.OpSchema:
        """This schema as :mod:`wirecodec.defs` holds it (what the checker and inference read)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(_defs.OpSchema)}

        def parameter(p: _FormalParameter) -> FormalParameter:
            return FormalParameter(p.name, p.option, p.is_homogeneous, p.min_arity, p.type_str)

        values["inputs"] = tuple(parameter(p) for p in self.inputs)  # type: ignore[arg-type]
        values["outputs"] = tuple(parameter(p) for p in self.outputs)  # type: ignore[arg-type]
        values["attributes"] = {
            name: Attribute(name, int(a.type), a.required, a._default)  # type: ignore[attr-defined]
            for name, a in self.attributes.items()
        }
        values["type_constraints"] = tuple(
            TypeConstraint(c.type_param_str, tuple(c.allowed_type_strs)) for c in self.type_constraints
        )
        return _defs.OpSchema(**values)


_NESTED: Final = {
    "AttrType": _AttrType,
    "SupportType": _SupportType,
    "DifferentiationCategory": _DifferentiationCategory,
    "NodeDeterminism": _NodeDeterminism,
    "FormalParameterOption": FormalParameterOption,
    "FormalParameter": _FormalParameter,
    "Attribute": _Attribute,
    "TypeConstraintParam": _TypeConstraintParam,
}
for _name, _value in _NESTED.items():
    setattr(OpSchema, _name, _value)
_CONVERTED: dict[tuple[str, str, int], OpSchema] = {}
_HISTORY: list[OpSchema] = []  # get_all_schemas_with_history's, emptied by a registration


def _onnx_schema(schema: _defs.OpSchema) -> OpSchema:
    """``schema`` as this module's OpSchema (one object per schema)."""
    key = (schema.domain, schema.name, schema.since_version)
    found = _CONVERTED.get(key)
    if found is None:
        allowed = {c.type_param_str: set(c.allowed_type_strs) for c in schema.type_constraints}

        def parameter(p: FormalParameter) -> _FormalParameter:
            made = _FormalParameter(
                p.name,
                p.type_str,
                param_option=p.option,
                is_homogeneous=p.is_homogeneous,
                min_arity=p.min_arity,
            )
            made._types = allowed.get(p.type_str, {p.type_str})
            return made

        values: dict[str, Any] = {f.name: getattr(schema, f.name) for f in dataclasses.fields(_defs.OpSchema)}
        values["inputs"] = tuple(parameter(p) for p in schema.inputs)
        values["outputs"] = tuple(parameter(p) for p in schema.outputs)
        values["attributes"] = {name: _Attribute._of(a) for name, a in schema.attributes.items()}
        values["type_constraints"] = tuple(
            _TypeConstraintParam(c.type_param_str, c.allowed_type_strs) for c in schema.type_constraints
        )
        values["doc"] = ""
        values["node_determinism"] = _NodeDeterminism.Unknown
        values["_inference"] = None
        made = object.__new__(OpSchema)
        for name, value in values.items():
            object.__setattr__(made, name, value)
        found = _CONVERTED.setdefault(key, made)
    return found


def register_schema(schema: OpSchema) -> None:
    """Make ``schema`` (made with :class:`OpSchema`'s constructor) known to :func:`get_schema`,
    the checker and shape inference, until :func:`deregister_schema`. A schema of the same
    (domain, name, since_version) already there is a :class:`SchemaError`, as onnx's."""
    if not isinstance(schema, OpSchema):
        raise TypeError(f"register_schema takes an onnx.defs.OpSchema, not a {type(schema).__name__}")
    from wirecodec.defs._registry import register

    try:
        register(schema._plain())
    except KeyError:
        raise SchemaError(
            f"Trying to register schema with name {schema.name} (domain: {schema.domain} version: "
            f"{schema.since_version}) from file unknown line 0, but it is already registered from file "
            "unknown line 0"
        ) from None
    _CONVERTED[(schema.domain, schema.name, schema.since_version)] = schema
    _HISTORY.clear()
    if schema._inference is not None:
        from wirecodec.onnx_compat._inference_context import schema_rule
        from wirecodec.shape_inference._registry import SCHEMA_RULES

        SCHEMA_RULES[(schema.domain, schema.name, schema.since_version)] = schema_rule(schema._inference)


def deregister_schema(op_type: str, max_inclusive_version: int, domain: str) -> None:
    """Remove the schema of exactly that (op_type, version, domain) (:class:`SchemaError` if none)."""
    from wirecodec.defs._registry import deregister

    try:
        deregister(op_type, int(max_inclusive_version), domain)
    except KeyError:
        raise SchemaError(
            f"Attempting to deregister an unregistered schema with name: {op_type} domain: {domain} "
            f"version: {max_inclusive_version}"
        ) from None
    _CONVERTED.pop((domain, op_type, int(max_inclusive_version)), None)
    _HISTORY.clear()
    from wirecodec.shape_inference._registry import SCHEMA_RULES

    SCHEMA_RULES.pop((domain, op_type, int(max_inclusive_version)), None)


def get_all_schemas() -> list[OpSchema]:
    """The latest schema of each operator of each domain."""
    return [_onnx_schema(s) for s in _defs.get_all_schemas()]


def get_all_schemas_with_history() -> list[OpSchema]:
    """Every version of every operator's schema (a new list each call, as onnx's; the
    schemas are made once, until a registration changes them)."""
    if not _HISTORY:
        _HISTORY.extend(_onnx_schema(s) for s in _defs.get_all_schemas_with_history())
    return list(_HISTORY)


class SchemaError(WireCodecError, RuntimeError):
    """onnx.defs.SchemaError: no schema of that operator at that version in that domain."""


def onnx_opset_version() -> int:
    """The newest version of the default domain: 28 (onnx 1.23's), or higher once a schema of
    a higher version is registered in it (and so it stays after deregistering, as onnx's)."""
    return max(DEFAULT_OPSET_VERSION, _registry().domain_versions.get(ONNX_DOMAIN, (0, 0))[1])


def onnx_ml_opset_version() -> int:
    """The newest version of the ai.onnx.ml domain (5, onnx 1.23's; more after a registration)."""
    return _registry().domain_versions.get(ONNX_ML_DOMAIN, (0, 0))[1]


def get_function_ops() -> list[OpSchema]:
    """The newest schema of each operator that is defined by a function (a function body,
    or one built for the node at hand), as onnx's ``get_function_ops``."""
    return [s for s in get_all_schemas() if s.has_function or s.has_context_dependent_function]


def _version_and_domain(max_inclusive_version: int | str | None, domain: str) -> tuple[int | None, str]:
    """onnx's two call forms: ``(op_type, max_inclusive_version, domain)`` and ``(op_type, domain)``."""
    if isinstance(max_inclusive_version, str):
        return None, max_inclusive_version
    return max_inclusive_version, domain


def get_schema(
    op_type: str, max_inclusive_version: int | str | None = None, domain: str = ONNX_DOMAIN
) -> OpSchema:
    """The schema of ``op_type`` in effect at ``max_inclusive_version`` (default: the newest);
    ``get_schema(op_type, domain)`` is the newest in ``domain``, as in onnx."""
    max_inclusive_version, domain = _version_and_domain(max_inclusive_version, domain)
    version = max_inclusive_version if max_inclusive_version is not None else 1 << 30
    found = _defs.get_schema(op_type, version, domain)
    if found is None:
        raise SchemaError(f"No schema registered for '{op_type}' (domain {domain!r}, version {version})")
    return _onnx_schema(found)


def schema_version_map() -> dict[str, tuple[int, int]]:
    """Each domain onnx knows -> its (lowest, highest) opset version, as onnx's C extension gives it."""
    return dict(_registry().domain_versions)


def has(op_type: str, max_inclusive_version: int | str | None = None, domain: str = ONNX_DOMAIN) -> bool:
    """Whether ``op_type`` has a schema (at ``max_inclusive_version`` when given);
    ``has(op_type, domain)`` asks in ``domain``, as in onnx."""
    max_inclusive_version, domain = _version_and_domain(max_inclusive_version, domain)
    return _defs.has_schema(op_type, max_inclusive_version, domain)
