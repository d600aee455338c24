"""Control flow: If (the union of both branches), Loop and Scan (bodies inferred in place)."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import (
    Dim,
    InferenceError,
    OptionalType,
    SequenceType,
    TensorType,
    Type,
    merge,
)
from wirecodec.shape_inference.ops._util import BOOL, INT64, axis_in


def union(a: Type | None, b: Type | None) -> Type | None:
    """What two values of one output have in common: same element type, per-axis agreement."""
    if a is None or b is None:
        return a if b is None else b
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        if a.elem and b.elem and a.elem != b.elem:
            raise InferenceError(f"branches give element types {a.elem} and {b.elem}")
        if a.shape is None or b.shape is None or len(a.shape) != len(b.shape):
            return TensorType(a.elem or b.elem, None, a.sparse)
        dims = tuple(x if x == y and x is not None else None for x, y in zip(a.shape, b.shape, strict=False))
        return TensorType(a.elem or b.elem, dims, a.sparse)
    if isinstance(a, SequenceType) and isinstance(b, SequenceType):
        return SequenceType(union(a.elem, b.elem))
    if isinstance(a, OptionalType) and isinstance(b, OptionalType):
        return OptionalType(union(a.elem, b.elem))
    if type(a) is not type(b):
        raise InferenceError("branches give values of different kinds")
    return a


@rule("If")
def if_(ctx: NodeContext) -> None:
    then_g, else_g = ctx.attrs.get("then_branch"), ctx.attrs.get("else_branch")
    if then_g is None or else_g is None:
        raise InferenceError("If needs then_branch and else_branch")
    then_out = ctx.infer_subgraph(then_g.g, [])
    else_out = ctx.infer_subgraph(else_g.g, [])
    if len(then_out) != len(else_out) or len(then_out) != ctx.n_outputs:
        raise InferenceError(
            f"If branches have {len(then_out)} and {len(else_out)} outputs for {ctx.n_outputs} node outputs"
        )
    for i, (a, b) in enumerate(zip(then_out, else_out, strict=False)):
        ctx.set(i, union(a, b))


def _without_shape(t: Type | None) -> Type | None:
    return TensorType(t.elem, None, t.sparse) if isinstance(t, TensorType) else t


@rule("Loop")
def loop(ctx: NodeContext) -> None:
    body = ctx.attrs.get("body")
    if body is None:
        raise InferenceError("Loop needs a body")
    carried = [ctx.input_type(i) for i in range(2, ctx.n_inputs)]
    inputs: list[Type | None] = [TensorType(INT64, ()), TensorType(BOOL, ())]
    inputs += [_without_shape(t) for t in carried]
    outputs = ctx.infer_subgraph(body.g, inputs)
    n_carried = len(carried)
    for i in range(ctx.n_outputs):
        if i < n_carried:
            # a carried value may change shape between iterations: only its type is known
            inferred = outputs[i + 1] if i + 1 < len(outputs) else None
            ctx.set(i, _without_shape(inferred if inferred is not None else carried[i]))
        elif i + 1 < len(outputs):
            t = outputs[i + 1]
            if isinstance(t, TensorType):
                ctx.set(i, TensorType(t.elem, None if t.shape is None else (None, *t.shape)))
            elif t is not None and ctx.opset >= 13:
                ctx.set(i, SequenceType(t))


@rule("Scan")
def scan(ctx: NodeContext) -> None:
    body = ctx.attrs.get("body")
    if body is None:
        raise InferenceError("Scan needs a body")
    if ctx.opset < 9:
        return
    n_scan = ctx.attr_int("num_scan_inputs", 0)
    n_state = ctx.n_inputs - n_scan
    in_axes = ctx.attr_ints("scan_input_axes") or [0] * n_scan
    out_axes = ctx.attr_ints("scan_output_axes")
    inputs: list[Type | None] = [ctx.input_type(i) for i in range(n_state)]
    length: Dim = None
    for k in range(n_scan):
        t = ctx.tensor(n_state + k)
        if t is None or t.shape is None:
            inputs.append(t)
            continue
        axis = axis_in(in_axes[k], len(t.shape))
        if length is None:
            length = t.shape[axis]
        inputs.append(TensorType(t.elem, t.shape[:axis] + t.shape[axis + 1 :]))
    outputs = ctx.infer_subgraph(body.g, inputs)
    for i in range(ctx.n_outputs):
        out = outputs[i] if i < len(outputs) else None
        if i < n_state:
            # a state output is the state input, refined by what the body says of it
            given = ctx.input_type(i)
            try:
                ctx.set(i, merge(out, given) if out is not None else given)
            except InferenceError:
                ctx.set(i, out)
            continue
        if not isinstance(out, TensorType):
            ctx.set(i, out)
            continue
        t = out
        if i < n_state or not isinstance(t, TensorType):
            ctx.set(i, t)
            continue
        if t.shape is None:
            ctx.set(i, TensorType(t.elem, None))
            continue
        k = i - n_state
        axis = out_axes[k] if out_axes is not None and k < len(out_axes) else 0
        axis = axis_in(axis, len(t.shape) + 1)
        ctx.set(i, TensorType(t.elem, (*t.shape[:axis], length, *t.shape[axis:])))
