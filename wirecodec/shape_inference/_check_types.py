"""``check_type``: values that one type variable of the operator names must agree, and each
value's type must be one its operator's schema allows.

:func:`check_shared_types`, from the generated table (``_shared_types.py``): inputs that
share a type variable ("T") must have one element type, and an output sharing one with an
input must have that input's. :func:`check_allowed_types`, from the operator schemas as
data (:mod:`wirecodec.defs`): each input, and each output as inferred, has a type its
parameter allows (``tensor(int64)`` for Reshape's shape, a float type for Sqrt's input,
``tensor(bool)`` for If's cond), and the values of one type variable have one type.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from schema_dsl.onnx import TensorProto
from wirecodec.defs._types import FormalParameter, FormalParameterOption
from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._shared_types import SHARED
from wirecodec.shape_inference._types import (
    InferenceError,
    MapType,
    OptionalType,
    SequenceType,
    TensorType,
    Type,
)


class TypeCheckError(InferenceError):
    """A value's type is not one its operator's schema allows, or not the one its type variable
    is bound to. As onnx's, it ends the inference whether or not ``strict_mode`` was asked for
    (a node whose types are wrong is not a node whose outputs could not be inferred)."""


def _elem(t: Type | None) -> int:
    return t.elem if isinstance(t, TensorType) else 0


def check_shared_types(key: tuple[str, str], ctx: NodeContext) -> None:
    """Raise :class:`TypeCheckError` where ``ctx``'s node breaks a shared type variable."""
    entry = SHARED.get(key)
    if entry is None:
        return
    pairs, groups, variadic_in, variadic_out = entry

    def actual_inputs(formal: int) -> range:
        return range(formal, ctx.n_inputs) if formal == variadic_in else range(formal, formal + 1)

    def actual_outputs(formal: int) -> range:
        return range(formal, ctx.n_outputs) if formal == variadic_out else range(formal, formal + 1)

    for group in groups:
        seen: dict[int, int] = {}
        for formal in group:
            for j in actual_inputs(formal):
                elem = _elem(ctx.input_type(j))
                if elem:
                    seen.setdefault(elem, j)
        if len(seen) > 1:
            (a, first), (b, second) = list(seen.items())[:2]
            raise TypeCheckError(
                f"inputs {first} and {second} share a type variable but have element types {a} and {b}"
            )
    for out, formal_in in pairs:
        source = _elem(ctx.input_type(formal_in))
        for i in actual_outputs(out):
            elem = _elem(ctx.outputs[i] if i < ctx.n_outputs else None)
            if source and elem and elem != source:
                raise TypeCheckError(
                    f"output {i} shares a type variable with input {formal_in} but has element type "
                    f"{elem}, not {source}"
                )


def type_str(t: Type | None) -> str | None:
    """``t`` as the schemas spell types (``tensor(float)``, ``seq(tensor(int64))``,
    ``map(string,tensor(float))``, ``sparse_tensor(float)``), or None where an element type is
    unknown (nothing to check)."""
    if isinstance(t, TensorType):
        name = _elem_name(t.elem)
        if name is None:
            return None
        return f"sparse_tensor({name})" if t.sparse else f"tensor({name})"
    if isinstance(t, (SequenceType, OptionalType)):
        inner = type_str(t.elem)
        if inner is None:
            return None
        return f"seq({inner})" if isinstance(t, SequenceType) else f"optional({inner})"
    if isinstance(t, MapType):
        key, value = _elem_name(t.key), type_str(t.value)
        return None if key is None or value is None else f"map({key},{value})"
    return None


@functools.cache
def canonical_type_str(text: str) -> str:
    """A schema's type string as :func:`type_str` spells types (as onnx reads it): spaces
    dropped, and a bare element type inside ``seq``, ``optional`` or a map's value is a
    tensor — ZipMap's ``seq(map(int64, float))`` allows ``seq(map(int64,tensor(float)))``."""

    def value(inner: str) -> str:
        inner = outer(inner)
        return inner if "(" in inner else f"tensor({inner})"

    def outer(text: str) -> str:
        for head in ("seq(", "optional("):
            if text.startswith(head) and text.endswith(")"):
                return f"{head}{value(text[len(head) : -1])})"
        if text.startswith("map(") and text.endswith(")"):
            key, _, rest = text[4:-1].partition(",")
            return f"map({key},{value(rest)})"
        return text

    return outer(text.replace(" ", ""))


def _bare(type_str: str) -> str:
    """A parameter's type string that names no type variable, as a type: a bare element type
    (``float``, as a schema registered at run time may say) is a tensor of it."""
    text = canonical_type_str(type_str)
    return text if "(" in text else f"tensor({text})"


def _elem_name(elem: int) -> str | None:
    if not elem:
        return None
    try:
        return TensorProto.DataType(elem).name.lower()
    except ValueError:  # a number the schema does not know: nothing a schema could allow
        return f"unknown{elem}"


def check_allowed_types(domain: str, opset: int, ctx: NodeContext) -> None:
    """Raise :class:`TypeCheckError` where an input or an inferred output of ``ctx``'s node has a
    type its schema does not allow, or one other than the type its type variable is bound to by
    an earlier input. Nodes without a schema (custom domains, local functions) are left alone."""
    from wirecodec.defs import get_schema  # the schema data loads on the first full check

    schema = get_schema(ctx.node.op_type, opset, domain)
    if schema is None:
        return
    constraints = schema.type_constraints
    allowed = {c.type_param_str: frozenset(map(canonical_type_str, c.allowed_type_strs)) for c in constraints}
    for p in (*schema.inputs, *schema.outputs):  # a bare element type names a tensor of it
        if p.type_str not in allowed and "(" not in p.type_str:
            allowed[p.type_str] = frozenset({_bare(p.type_str)})
    bound: dict[str, str] = {}

    def judge(params: tuple[FormalParameter, ...], types: list[Type | None], outputs: bool) -> None:
        for i, t in enumerate(types):
            if i < len(params):
                param = params[i]
            elif params and params[-1].option == FormalParameterOption.Variadic:
                param = params[-1]
            else:
                return
            actual = type_str(t)
            if actual is None:
                continue
            if actual not in allowed.get(param.type_str, frozenset({canonical_type_str(param.type_str)})):
                raise TypeCheckError(
                    f"{param.name} typestr: {param.type_str}, has unsupported type: {actual}"
                )
            if not param.is_homogeneous:
                continue
            first = bound.setdefault(param.type_str, actual) if not outputs else bound.get(param.type_str)
            if first is not None and first != actual:
                raise TypeCheckError(f"{param.name} has inconsistent type {actual}")

    judge(
        schema.inputs, [ctx.input_type(i) if ctx.has_input(i) else None for i in range(ctx.n_inputs)], False
    )
    judge(schema.outputs, list(ctx.outputs), True)


def fill_single_types(domain: str, opset: int, ctx: NodeContext) -> None:
    """Give each output left without an element type the one type its schema allows, where it
    allows exactly one tensor type (as onnx's check_type does before it infers: Z of
    TreeEnsembleClassifier is ``tensor(float)`` even in a version without inference), else
    the tensor type an input bound its type variable to (Attention's present key, not
    inferred without a past one, is K's type: onnx sets it so)."""
    from wirecodec.defs import get_schema

    schema = get_schema(ctx.node.op_type, opset, domain)
    if schema is None or not schema.outputs:
        return
    allowed = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    bound = _bound_tensor_elems(schema.inputs, ctx)
    params = schema.outputs
    for i in range(ctx.n_outputs):
        if not ctx.has_output(i):
            continue
        if i < len(params):
            param = params[i]
        elif params[-1].option == FormalParameterOption.Variadic:
            param = params[-1]
        else:
            return
        choices = allowed.get(param.type_str, (_bare(param.type_str),))
        elem = _single_tensor_elem(choices)
        if elem is None and param.type_str in allowed:
            elem = bound.get(param.type_str)
        current = ctx.outputs[i]
        if elem is None or _elem(current):
            continue
        shape = current.shape if isinstance(current, TensorType) else None
        if current is None or isinstance(current, TensorType):
            ctx.outputs[i] = TensorType(elem, shape)


def _bound_tensor_elems(params: Sequence[FormalParameter], ctx: NodeContext) -> dict[str, int]:
    """Type variable -> the element type of the first dense tensor input bound to it."""
    bound: dict[str, int] = {}
    for j in range(ctx.n_inputs):
        if j < len(params):
            param = params[j]
        elif params and params[-1].option == FormalParameterOption.Variadic:
            param = params[-1]
        else:
            break
        t = ctx.input_type(j)
        if isinstance(t, TensorType) and t.elem and not t.sparse:
            bound.setdefault(param.type_str, t.elem)
    return bound


def _single_tensor_elem(choices: tuple[str, ...] | list[str]) -> int | None:
    """The element type of ``tensor(<type>)`` when it is the only choice, else None."""
    if len(choices) != 1:
        return None
    text = canonical_type_str(choices[0])
    if not (text.startswith("tensor(") and text.endswith(")")):
        return None
    try:
        return int(TensorProto.DataType[text[7:-1].upper()])
    except KeyError:
        return None


def check_arity(domain: str, opset: int, ctx: NodeContext) -> None:
    """Raise :class:`TypeCheckError` when ``ctx``'s node has more or fewer inputs or outputs
    than its schema's range (what onnx's inference refuses, under ``check_type``, before it
    infers). Nodes without a schema are left alone."""
    from wirecodec.defs import get_schema

    schema = get_schema(ctx.node.op_type, opset, domain)
    if schema is None:
        return
    for kind, count, low, high in (
        ("input", len(ctx.node.input), schema.min_input, schema.max_input),
        ("output", len(ctx.node.output), schema.min_output, schema.max_output),
    ):
        if not low <= count <= high:
            raise TypeCheckError(
                f"Node with schema({domain}::{schema.name}:{schema.since_version}) has {kind} size "
                f"{count} not in range [min={low}, max={high}]"
            )
