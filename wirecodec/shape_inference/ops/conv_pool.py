"""Convolutions and pooling: output spatial sizes from kernel, strides, pads, dilations, auto_pad."""

from __future__ import annotations

import math

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim, Shape
from wirecodec.shape_inference.ops._util import INT32, INT64

# The opset from which each pooling operator reads ``dilations`` (before it, the attribute
# is not in the operator's schema and is ignored).
_DILATED_SINCE = {"MaxPool": 10, "AveragePool": 11, "LpPool": 18}


def _checked(ctx: NodeContext, name: str, size: int, positive: bool) -> list[int] | None:
    """The ints attribute ``name`` (None when absent), refused unless it holds ``size``
    values, each positive (sizes, strides) or not negative (pads)."""
    values = ctx.attr_ints(name)
    if values is None:
        return None
    if len(values) != size:
        raise ctx.fail(f"Attribute {name} has incorrect size: {len(values)} values, {size} expected")
    if positive and any(v <= 0 for v in values):
        raise ctx.fail(f"Attribute {name} must only contain positive values, got {values}")
    if not positive and any(v < 0 for v in values):
        raise ctx.fail(f"Attribute {name} must not contain negative values, got {values}")
    return values


def _input_rank(ctx: NodeContext, x: tuple[Dim, ...]) -> int:
    """The number of spatial axes of ``x`` (N x C x D1 ... Dn), refused below one."""
    if len(x) < 3:
        raise ctx.fail(f"Input tensor must have at least 3 dimensions (N x C x D1 ...), got rank {len(x)}")
    return len(x) - 2


def _spatial(
    ctx: NodeContext, x: tuple[Dim, ...], kernel: list[Dim], pool: bool, dilated: bool = True
) -> list[Dim]:
    n = len(x) - 2
    strides = _checked(ctx, "strides", n, True) or [1] * n
    dilations = (_checked(ctx, "dilations", n, True) if dilated else None) or [1] * n
    given_pads = _checked(ctx, "pads", 2 * n, False)
    # Explicit pads are used as given, whatever auto_pad says.
    auto_pad = "NOTSET" if given_pads is not None else ctx.attr_str("auto_pad", "NOTSET")
    pads = given_pads or [0] * (2 * n)
    ceil_mode = ctx.attr_int("ceil_mode", 0) if pool else 0
    out: list[Dim] = []
    for i in range(n):
        d, k = x[i + 2], kernel[i]
        if not isinstance(d, int) or not isinstance(k, int):
            out.append(None)
            continue
        effective = (k - 1) * dilations[i] + 1
        if effective >= 1 << 63:
            raise ctx.fail(f"the dilated kernel of spatial axis {i} ({effective}) would overflow int64")
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            out.append(math.ceil(d / strides[i]))
            continue
        begin, end = (0, 0) if auto_pad == "VALID" else (pads[i], pads[i + n])
        total = d + begin + end - effective
        if ceil_mode:
            size = math.ceil(total / strides[i]) + 1
            if (size - 1) * strides[i] >= d + begin:
                size -= 1
        else:
            size = total // strides[i] + 1
        out.append(size)
    return out


def _kernel(ctx: NodeContext, n: int, w: tuple[Dim, ...], what: str) -> list[Dim]:
    """The kernel's spatial sizes: the ``kernel_shape`` attribute, else the weight's spatial
    axes, which must then be as many as the input's."""
    given = _checked(ctx, "kernel_shape", n, True)
    if given is not None:
        return list(given)
    if len(w) != n + 2:
        raise ctx.fail(
            f"Number of spatial dimensions in the {what} tensor ({max(len(w) - 2, 0)}) "
            f"does not match the input's ({n})"
        )
    return list(w[2:])


def _conv(ctx: NodeContext, x_at: int, w_at: int, elem: int) -> None:
    x, w = ctx.shape(x_at), ctx.shape(w_at)
    if x is None or w is None:
        ctx.set_tensor(0, elem, None)
        return
    n = _input_rank(ctx, x)
    kernel = _kernel(ctx, n, w, "weight")
    spatial = _spatial(ctx, x, kernel, False)
    if not ctx.has_attr("kernel_shape") and not all(isinstance(k, int) for k in kernel):
        # a kernel of unknown size: no output shape at all (onnx's result too)
        ctx.set_tensor(0, elem, None)
        return
    ctx.set_tensor(0, elem, (x[0], w[0], *spatial))


@rule("Conv")
def conv(ctx: NodeContext) -> None:
    _conv(ctx, 0, 1, ctx.elem(0))


@rule("ConvInteger")
def conv_integer(ctx: NodeContext) -> None:
    _conv(ctx, 0, 1, INT32)


@rule("QLinearConv")
def qlinear_conv(ctx: NodeContext) -> None:
    _conv(ctx, 0, 3, ctx.elem(7))


@rule("DeformConv")
def deform_conv(ctx: NodeContext) -> None:
    x, w, offset = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if x is None or w is None:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    n = _input_rank(ctx, x)
    spatial = _spatial(ctx, x, _kernel(ctx, n, w, "weight"), False)
    if offset is not None and len(offset) == len(x):
        spatial = [d if isinstance(d, int) else o for d, o in zip(spatial, offset[2:], strict=False)]
    ctx.set_tensor(0, ctx.elem(0), (x[0], w[0], *spatial))


@rule("ConvTranspose")
def conv_transpose(ctx: NodeContext) -> None:
    x, w = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    if x is None or w is None:
        ctx.set_tensor(0, elem, None)
        return
    n = _input_rank(ctx, x)
    if len(w) < 3:
        raise ctx.fail(
            f"Weight tensor must have at least 3 dimensions (C x M/group x k1 ...), got rank {len(w)}"
        )
    if ctx.opset >= 11 and ctx.has_attr("pads") and ctx.attr_str("auto_pad", "NOTSET") != "NOTSET":
        raise ctx.fail("The pads attribute cannot be used simultaneously with auto_pad attribute")
    kernel = _kernel(ctx, n, w, "weight")
    strides = _checked(ctx, "strides", n, True) or [1] * n
    dilations = _checked(ctx, "dilations", n, True) or [1] * n
    given_pads = _checked(ctx, "pads", 2 * n, False)
    pads = given_pads or [0] * (2 * n)
    out_pad = _checked(ctx, "output_padding", n, False) or [0] * n
    given = _checked(ctx, "output_shape", n, False)
    group = ctx.attr_int("group", 1)
    channels: Dim = w[1] * group if isinstance(w[1], int) else None
    if not ctx.has_attr("kernel_shape") and not all(isinstance(k, int) for k in kernel):
        ctx.set_tensor(0, elem, None)  # a kernel of unknown size: no output shape
        return
    if given is not None:
        ctx.set_tensor(0, elem, (x[0], channels, *given))
        return
    auto_pad = "NOTSET" if given_pads is not None else ctx.attr_str("auto_pad", "NOTSET")
    spatial: list[Dim] = []
    for i in range(n):
        d, k = x[i + 2], kernel[i]
        if not isinstance(d, int) or not isinstance(k, int):
            spatial.append(None)
        elif auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            spatial.append(d * strides[i])
        else:
            begin, end = (0, 0) if auto_pad == "VALID" else (pads[i], pads[i + n])
            spatial.append(strides[i] * (d - 1) + out_pad[i] + (k - 1) * dilations[i] + 1 - begin - end)
    ctx.set_tensor(0, elem, (x[0], channels, *spatial))


def _pool(ctx: NodeContext) -> Shape:
    op, opset = ctx.node.op_type, ctx.opset
    if op == "LpPool" and opset < 2:
        return None  # LpPool-1 has no shape rule
    x = ctx.shape(0)
    if x is None:
        return None
    if not ctx.has_attr("kernel_shape"):
        raise ctx.fail("Attribute kernel_shape must be specified")
    n = _input_rank(ctx, x)
    kernel: list[Dim] = list(_checked(ctx, "kernel_shape", n, True) or [])
    dilated = opset >= _DILATED_SINCE.get(op, 1)
    return (x[0], x[1], *_spatial(ctx, x, kernel, True, dilated))


@rule("AveragePool", "LpPool")
def average_pool(ctx: NodeContext) -> None:
    ctx.set_tensor(0, ctx.elem(0), _pool(ctx))


@rule("MaxPool")
def max_pool(ctx: NodeContext) -> None:
    shape = _pool(ctx)
    ctx.set_tensor(0, ctx.elem(0), shape)
    if ctx.has_output(1):
        ctx.set_tensor(1, INT64, shape)


@rule("GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
def global_pool(ctx: NodeContext) -> None:
    x = ctx.shape(0)
    shape = None if x is None or len(x) < 2 else (x[0], x[1], *(1 for _ in x[2:]))
    ctx.set_tensor(0, ctx.elem(0), shape)


@rule("MaxUnpool")
def max_unpool(ctx: NodeContext) -> None:
    x, indices = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    if indices is not None and len(indices) < 2:
        raise ctx.fail(f"Indices tensor I must have at least 2 dimensions, got rank {len(indices)}")
    if ctx.has_input(2):
        given = ctx.ints(2)
        ctx.set_tensor(0, elem, tuple(given) if given is not None else None)
        return
    if x is None:
        ctx.set_tensor(0, elem, None)
        return
    if not ctx.has_attr("kernel_shape"):
        raise ctx.fail("Attribute kernel_shape must be specified")
    n = max(len(x) - 2, 0)
    kernel = _checked(ctx, "kernel_shape", n, False) or []
    strides = ctx.attr_ints("strides") or [1] * n
    pads = ctx.attr_ints("pads") or [0] * (2 * n)
    if len(strides) != n or len(pads) != 2 * n:
        raise ctx.fail(f"Attributes strides and pads of MaxUnpool must have {n} and {2 * n} values")
    spatial: list[Dim] = []
    for i in range(n):
        d = x[i + 2]
        spatial.append(
            (d - 1) * strides[i] + kernel[i] - pads[i] - pads[i + n] if isinstance(d, int) else None
        )
    ctx.set_tensor(0, elem, (x[0], x[1], *spatial))


@rule("GridSample")
def grid_sample(ctx: NodeContext) -> None:
    x, grid = ctx.shape(0), ctx.shape(1)
    if x is None or grid is None:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    ctx.set_tensor(0, ctx.elem(0), (x[0], x[1], *grid[1:-1]))


@rule("RoiAlign")
def roi_align(ctx: NodeContext) -> None:
    x, rois = ctx.shape(0), ctx.shape(1)
    c = x[1] if x is not None and len(x) > 1 else None
    n = rois[0] if rois is not None else None
    indices = ctx.shape(2)
    if not isinstance(n, int) and indices and isinstance(indices[0], int):
        n = indices[0]  # as onnx: a size from batch_indices where the rois' count is open
    ctx.set_tensor(0, ctx.elem(0), (n, c, ctx.attr_int("output_height", 1), ctx.attr_int("output_width", 1)))


@rule("MaxRoiPool")
def max_roi_pool(ctx: NodeContext) -> None:
    x, rois = ctx.shape(0), ctx.shape(1)
    pooled = ctx.attr_ints("pooled_shape") or []
    if x is None or rois is None or len(x) < 2:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    ctx.set_tensor(0, ctx.elem(0), (rois[0], x[1], *pooled))
