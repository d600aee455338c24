"""Reductions: Reduce* (axes as attribute or, in newer opsets, as input), ArgMax, ArgMin."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim
from wirecodec.shape_inference.ops._util import INT64, axis_in

_REDUCE = [
    "ReduceMax",
    "ReduceMin",
    "ReduceSum",
    "ReduceMean",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceSumSquare",
]

# the opset from which each reduction takes its axes as input 1 instead of an attribute
_AXES_AS_INPUT = {"ReduceSum": 13}


@rule(*_REDUCE)
def reduce(ctx: NodeContext) -> None:
    """The input's element type; reduced axes kept as 1 (``keepdims``) or dropped."""
    t = ctx.tensor(0)
    if t is None:
        return
    keep = ctx.attr_int("keepdims", 1)
    if ctx.opset >= _AXES_AS_INPUT.get(ctx.node.op_type, 18):
        if ctx.has_input(1):
            axes = ctx.ints(1)
            if axes is None:  # axes computed at run time: only the element type is known
                ctx.set_tensor(0, t.elem, None)
                return
        else:
            axes = []
        if not axes and ctx.attr_int("noop_with_empty_axes", 0):
            ctx.set_tensor(0, t.elem, t.shape)
            return
    else:
        axes = ctx.attr_ints("axes") or []
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    chosen = {axis_in(a, rank) for a in axes} if axes else set(range(rank))
    dims: list[Dim] = []
    for i, d in enumerate(t.shape):
        if i in chosen:
            if keep:
                dims.append(1)
        else:
            dims.append(d)
    ctx.set_tensor(0, t.elem, tuple(dims))


@rule("ArgMax", "ArgMin")
def arg(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None or t.shape is None:
        ctx.set_tensor(0, INT64, None)
        return
    axis = axis_in(ctx.attr_int("axis", 0), len(t.shape))
    keep = ctx.attr_int("keepdims", 1)
    dims = [(1 if keep else None) if i == axis else d for i, d in enumerate(t.shape)]
    ctx.set_tensor(0, INT64, tuple(d for i, d in enumerate(dims) if keep or i != axis))
