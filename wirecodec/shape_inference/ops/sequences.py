"""Sequences and optionals: construction, access, split and concatenation, SequenceMap."""

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
    from_proto,
)
from wirecodec.shape_inference.ops._util import BOOL, FLOAT, INT64, axis_in
from wirecodec.shape_inference.ops.control_flow import union


@rule("SequenceEmpty")
def sequence_empty(ctx: NodeContext) -> None:
    ctx.set(0, SequenceType(TensorType(ctx.attr_int("dtype", FLOAT), None)))


@rule("SequenceConstruct")
def sequence_construct(ctx: NodeContext) -> None:
    elem: Type | None = None
    for i in range(ctx.n_inputs):
        elem = union(elem, ctx.input_type(i))
    ctx.set(0, SequenceType(elem))


@rule("SequenceInsert")
def sequence_insert(ctx: NodeContext) -> None:
    seq = ctx.input_type(0)
    elem = seq.elem if isinstance(seq, SequenceType) else None
    ctx.set(0, SequenceType(union(elem, ctx.input_type(1))))


@rule("SequenceAt")
def sequence_at(ctx: NodeContext) -> None:
    seq = ctx.input_type(0)
    if isinstance(seq, SequenceType):
        ctx.set(0, seq.elem)


@rule("SequenceErase")
def sequence_erase(ctx: NodeContext) -> None:
    ctx.set(0, ctx.input_type(0))


@rule("SequenceLength")
def sequence_length(ctx: NodeContext) -> None:
    ctx.set_tensor(0, INT64, ())


@rule("SplitToSequence")
def split_to_sequence(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set(0, SequenceType(TensorType(t.elem, None)))
        return
    axis = axis_in(ctx.attr_int("axis", 0), len(t.shape))
    split = ctx.ints(1) if ctx.has_input(1) else None
    if not ctx.has_input(1):
        shape = t.shape[:axis] + ((1,) if ctx.attr_int("keepdims", 1) else ()) + t.shape[axis + 1 :]
    elif split is not None and ctx.rank(1) == 0:
        if split[0] <= 0:
            raise ctx.fail(f"scalar input 'split' must be greater than zero, got {split[0]}")
        d = t.shape[axis]
        size = split[0] if isinstance(d, int) and d % split[0] == 0 else None
        shape = (*t.shape[:axis], size, *t.shape[axis + 1 :])
    elif split is not None and ctx.rank(1) == 1:
        if not split:
            raise ctx.fail("input 'split' can not be empty")
        # pieces of one size have that size; pieces of several sizes, an unknown one
        same: Dim = split[0] if all(n == split[0] for n in split) else None
        shape = (*t.shape[:axis], same, *t.shape[axis + 1 :])
    else:
        shape = (*t.shape[:axis], None, *t.shape[axis + 1 :])
    ctx.set(0, SequenceType(TensorType(t.elem, shape)))


@rule("ConcatFromSequence")
def concat_from_sequence(ctx: NodeContext) -> None:
    seq = ctx.input_type(0)
    if not isinstance(seq, SequenceType) or not isinstance(seq.elem, TensorType):
        return
    t = seq.elem
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    new_axis = ctx.attr_int("new_axis", 0)
    rank = len(t.shape) + (1 if new_axis else 0)
    axis = axis_in(ctx.attr_int("axis", 0), rank)
    if new_axis:
        ctx.set_tensor(0, t.elem, (*t.shape[:axis], None, *t.shape[axis:]))
    else:
        ctx.set_tensor(0, t.elem, (*t.shape[:axis], None, *t.shape[axis + 1 :]))


@rule("Optional")
def optional(ctx: NodeContext) -> None:
    given = ctx.attrs.get("type")
    if given is not None and given.HasField("tp"):
        ctx.set(0, OptionalType(from_proto(given.tp)))
    elif ctx.has_input(0):
        ctx.set(0, OptionalType(ctx.input_type(0)))
    else:
        raise InferenceError("Optional needs an input or a type attribute")


@rule("OptionalHasElement")
def optional_has_element(ctx: NodeContext) -> None:
    ctx.set_tensor(0, BOOL, ())


@rule("OptionalGetElement")
def optional_get_element(ctx: NodeContext) -> None:
    t = ctx.input_type(0)
    ctx.set(0, t.elem if isinstance(t, OptionalType) else t)


@rule("SequenceMap")
def sequence_map(ctx: NodeContext) -> None:
    body = ctx.attrs.get("body")
    if body is None:
        return
    inputs: list[Type | None] = []
    for i in range(ctx.n_inputs):
        t = ctx.input_type(i)
        inputs.append(t.elem if isinstance(t, SequenceType) else t)
    outputs = ctx.infer_subgraph(body.g, inputs)
    for i, t in enumerate(outputs):
        ctx.set(i, SequenceType(t))
