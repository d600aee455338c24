"""Normalizations: the output has the input's type; statistics outputs have their own shapes."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import InferenceError
from wirecodec.shape_inference.ops._util import FLOAT, axis_in


@rule("GroupNormalization")
def group_norm(ctx: NodeContext) -> None:
    # From opset 21 onnx infers GroupNormalization through its function body, which
    # leaves the output untyped (its Reshape of the scale has no known target).
    if ctx.opset < 21:
        same_as_x(ctx)


@rule("InstanceNormalization", "RMSNormalization")
def same_as_x(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is not None:
        ctx.set_tensor(0, t.elem, t.shape)


@rule("BatchNormalization")
def batch_norm(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if ctx.opset >= 14:  # (onnx checks the ranks from BatchNormalization-14 on)
        for i in range(1, 5):
            rank = ctx.rank(i)
            if rank is not None and rank != 1:
                raise InferenceError(f"BatchNormalization: input {i} must have rank 1, not {rank}")
    ctx.set_tensor(0, t.elem, t.shape)
    for out, src in ((1, 3), (2, 4)):
        if ctx.has_output(out) and ctx.opset >= 14:
            s = ctx.tensor(src)
            if s is not None:
                ctx.set_tensor(out, s.elem, s.shape)


@rule("LayerNormalization")
def layer_norm(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    ctx.set_tensor(0, t.elem, t.shape)
    stash = ctx.attr_int("stash_type", FLOAT)
    if t.shape is None:
        stats = None
    else:
        axis = axis_in(ctx.attr_int("axis", -1), len(t.shape))
        stats = t.shape[:axis] + tuple(1 for _ in t.shape[axis:])
    for out in (1, 2):
        if ctx.has_output(out):
            ctx.set_tensor(out, stash, stats)
