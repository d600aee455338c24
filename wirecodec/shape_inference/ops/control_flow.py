"""Control flow: If (the union of both branches), Loop and Scan (bodies inferred in place)."""

from __future__ import annotations

from schema_dsl.onnx import GraphProto
from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import (
    Dim,
    InferenceError,
    MapType,
    OptionalType,
    SequenceType,
    TensorType,
    Type,
    merge,
)
from wirecodec.shape_inference.ops._util import INT64, axis_in


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


def _kind_of(t: Type) -> str:
    return type(t).__name__


def carry_elem_type(source: Type, target: Type | None) -> Type:
    """``target`` given ``source``'s element types, checked where both say one (onnx's
    "propagate with validation"): a tensor gives only its element type, a sequence or an
    optional makes the target one and recurses into the element."""
    if isinstance(source, TensorType):
        if target is None:
            return TensorType(source.elem, None, source.sparse)
        if not isinstance(target, TensorType):
            raise InferenceError(f"expected a tensor, got a {_kind_of(target)}")
        if target.elem and target.elem != source.elem:
            raise InferenceError(f"element type {source.elem} does not match the existing {target.elem}")
        return TensorType(source.elem, target.shape, target.sparse)
    if isinstance(source, (SequenceType, OptionalType)):
        if source.elem is None:
            raise InferenceError("element type unknown")
        inner = target.elem if isinstance(target, type(source)) else None
        return type(source)(carry_elem_type(source.elem, inner))
    if isinstance(source, MapType):
        if source.value is None:
            raise InferenceError("map value type unknown")
        inner_value = target.value if isinstance(target, MapType) else None
        return MapType(source.key, carry_elem_type(source.value, inner_value))
    return source


@rule("Loop")
def loop(ctx: NodeContext) -> None:
    """Carried values: the element types of the initial values and of the body's results
    (their shapes may change between iterations); scan outputs: the body's, one axis more."""
    body = ctx.attrs.get("body")
    if body is None:
        raise InferenceError("Loop needs a body")
    carried = [ctx.input_type(i) for i in range(2, ctx.n_inputs)]
    outputs_so_far: list[Type | None] = []
    for i, given in enumerate(carried):
        if given is None:
            raise InferenceError(f"Loop input {i + 2} has no type")
        outputs_so_far.append(_without_shape(given))
    body_inputs: list[Type | None] = [TensorType(INT64, None), ctx.input_type(1)]
    body_inputs += [_clear_shapes(t) for t in carried]
    results = ctx.infer_subgraph(body.g, body_inputs)
    if len(results) != ctx.n_outputs + 1:
        raise InferenceError(
            f"Loop body has {len(results)} outputs for {ctx.n_outputs} node outputs and cond"
        )
    for i in range(ctx.n_outputs):
        result = results[i + 1]
        if result is None:
            raise InferenceError(f"Loop body output {i + 1} has no type")
        if i < len(carried):
            ctx.set(i, carry_elem_type(result, outputs_so_far[i]))
            continue
        if not isinstance(result, TensorType):
            raise InferenceError("Loop scan outputs must be tensors")
        shape = None if result.shape is None else (None, *result.shape)
        ctx.set(i, TensorType(result.elem, shape))


def _clear_shapes(t: Type | None) -> Type | None:
    """``t`` with the shapes of every tensor in it removed."""
    if isinstance(t, TensorType):
        return TensorType(t.elem, None, t.sparse)
    if isinstance(t, (SequenceType, OptionalType)):
        return type(t)(_clear_shapes(t.elem))
    return t


def _merge_dim(source: Dim, target: Dim) -> Dim:
    """One axis seen twice: a size wins, else the first symbol."""
    if isinstance(source, int):
        if isinstance(target, int) and target != source:
            raise InferenceError(f"dimensions {source} and {target} differ")
        return source
    return target if target is not None else source


def _state_output(given: TensorType, result: Type | None, batch: tuple[Dim, ...] = ()) -> Type:
    """A state's final value: the initial value's type, refined by the body's result."""
    if not isinstance(result, TensorType):
        raise InferenceError("Scan body outputs must be tensors")
    if result.shape is None:
        return given
    inferred = TensorType(given.elem, (*batch, *result.shape))
    return merge(inferred, given)


def _body_outputs(ctx: NodeContext, body: GraphProto, inputs: list[Type | None]) -> list[Type | None]:
    """The types of a Scan body's outputs: one for each of the node's (states, then scan outputs)."""
    outputs = ctx.infer_subgraph(body, inputs)
    if len(outputs) != ctx.n_outputs:
        raise InferenceError(f"Scan body has {len(outputs)} outputs for {ctx.n_outputs} node outputs")
    return outputs


@rule("Scan")
def scan(ctx: NodeContext) -> None:
    """States keep their type; each scan output gets the sequence length at its axis."""
    body = ctx.attrs.get("body")
    if body is None:
        raise InferenceError("Scan needs a body")
    if ctx.opset < 9:
        _scan8(ctx, body.g)
        return
    n_scan = ctx.attr_int("num_scan_inputs", 0)
    if n_scan > ctx.n_inputs:
        raise InferenceError(
            f"num_scan_inputs ({n_scan}) cannot exceed the number of Scan inputs ({ctx.n_inputs})"
        )
    n_state = ctx.n_inputs - n_scan
    _check_state_outputs(ctx, n_state)
    in_axes = ctx.attr_ints("scan_input_axes") or [0] * n_scan
    out_axes = ctx.attr_ints("scan_output_axes") or [0] * (ctx.n_outputs - n_state)
    inputs: list[Type | None] = []
    length: Dim = None
    for i in range(ctx.n_inputs):
        t = ctx.tensor(i)
        if t is None:
            raise InferenceError(f"Scan input {i} is not a tensor")
        if i < n_state or t.shape is None:
            inputs.append(t)
            continue
        axis = axis_in(in_axes[i - n_state], len(t.shape))
        length = _merge_dim(t.shape[axis], length)
        inputs.append(TensorType(t.elem, t.shape[:axis] + t.shape[axis + 1 :]))
    outputs = _body_outputs(ctx, body.g, inputs)
    for i, out in enumerate(outputs):
        if i < n_state:
            given = ctx.tensor(i)
            assert given is not None
            ctx.set(i, _state_output(given, out))
            continue
        if not isinstance(out, TensorType):
            raise InferenceError("Scan body outputs must be tensors")
        if out.shape is None:
            ctx.set(i, TensorType(out.elem, None))
            continue
        axis = axis_in(out_axes[i - n_state], len(out.shape) + 1)
        ctx.set(i, TensorType(out.elem, (*out.shape[:axis], length, *out.shape[axis:])))


def _check_state_outputs(ctx: NodeContext, n_state: int) -> None:
    """Each loop state variable has its output, before the scan outputs (as onnx refuses)."""
    if n_state > ctx.n_outputs:
        raise InferenceError(
            f"Scan has {ctx.n_outputs} outputs, fewer than its {n_state} loop state variables "
            "(the outputs are the loop state variables, then the scan outputs)"
        )


def _scan8(ctx: NodeContext, body: GraphProto) -> None:
    """Scan 8: input 0 holds the sequence lengths; every value has a leading batch axis."""
    n_scan = ctx.attr_int("num_scan_inputs", 0)
    if n_scan + 1 > ctx.n_inputs:
        raise InferenceError(
            f"num_scan_inputs ({n_scan}) and the sequence_lens input are more than the "
            f"{ctx.n_inputs} Scan inputs"
        )
    n_state = ctx.n_inputs - 1 - n_scan
    _check_state_outputs(ctx, n_state)
    batch: Dim = None
    length: Dim = None
    inputs: list[Type | None] = []
    for i in range(1, ctx.n_inputs):
        t = ctx.tensor(i)
        if t is None:
            raise InferenceError(f"Scan input {i} is not a tensor")
        if t.shape is None:
            inputs.append(t)
        elif i - 1 < n_state:
            inputs.append(TensorType(t.elem, t.shape[1:]))
        else:
            inputs.append(TensorType(t.elem, t.shape[2:]))
            if len(t.shape) > 2:
                batch = _merge_dim(t.shape[0], batch)
                length = _merge_dim(t.shape[1], length)
    outputs = _body_outputs(ctx, body, inputs)
    for i, out in enumerate(outputs):
        if i < n_state:
            given = ctx.tensor(i + 1)
            assert given is not None
            ctx.set(i, _state_output(given, out, (batch,)))
        elif not isinstance(out, TensorType):
            raise InferenceError("Scan body outputs must be tensors")
        else:
            ctx.set(i, TensorType(out.elem, None if out.shape is None else (batch, length, *out.shape)))
