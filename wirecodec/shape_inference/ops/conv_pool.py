"""Convolutions and pooling: output spatial sizes from kernel, strides, pads, dilations, auto_pad."""

from __future__ import annotations

import math

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim, Shape
from wirecodec.shape_inference.ops._util import INT32, INT64


def _spatial(ctx: NodeContext, x: tuple[Dim, ...], kernel: list[Dim], pool: bool) -> list[Dim]:
    n = len(x) - 2
    strides = ctx.attr_ints("strides") or [1] * n
    dilations = ctx.attr_ints("dilations") or [1] * n
    pads = ctx.attr_ints("pads") or [0] * (2 * n)
    auto_pad = ctx.attr_str("auto_pad", "NOTSET")
    ceil_mode = ctx.attr_int("ceil_mode", 0) if pool else 0
    out: list[Dim] = []
    for i in range(n):
        d, k = x[i + 2], kernel[i]
        if not isinstance(d, int) or not isinstance(k, int):
            out.append(None)
            continue
        effective = (k - 1) * dilations[i] + 1
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


def _conv(ctx: NodeContext, x_at: int, w_at: int, elem: int) -> None:
    x, w = ctx.shape(x_at), ctx.shape(w_at)
    if x is None or w is None or len(x) < 2:
        ctx.set_tensor(0, elem, None)
        return
    kernel: list[Dim] = list(ctx.attr_ints("kernel_shape") or w[2:])
    ctx.set_tensor(0, elem, (x[0], w[0], *_spatial(ctx, x, kernel, False)))


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
    kernel: list[Dim] = list(ctx.attr_ints("kernel_shape") or w[2:])
    spatial = _spatial(ctx, x, kernel, False)
    if offset is not None and len(offset) == len(x):
        spatial = [d if isinstance(d, int) else o for d, o in zip(spatial, offset[2:], strict=False)]
    ctx.set_tensor(0, ctx.elem(0), (x[0], w[0], *spatial))


@rule("ConvTranspose")
def conv_transpose(ctx: NodeContext) -> None:
    x, w = ctx.shape(0), ctx.shape(1)
    elem = ctx.elem(0)
    if x is None or w is None or len(x) < 2:
        ctx.set_tensor(0, elem, None)
        return
    n = len(x) - 2
    group = ctx.attr_int("group", 1)
    channels: Dim = w[1] * group if isinstance(w[1], int) else None
    given = ctx.attr_ints("output_shape")
    if given is not None:
        ctx.set_tensor(0, elem, (x[0], channels, *given[-n:]))
        return
    kernel: list[Dim] = list(ctx.attr_ints("kernel_shape") or w[2:])
    strides = ctx.attr_ints("strides") or [1] * n
    dilations = ctx.attr_ints("dilations") or [1] * n
    pads = ctx.attr_ints("pads") or [0] * (2 * n)
    out_pad = ctx.attr_ints("output_padding") or [0] * n
    auto_pad = ctx.attr_str("auto_pad", "NOTSET")
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
    x = ctx.shape(0)
    if x is None or len(x) < 2:
        return None
    kernel: list[Dim] = list(ctx.attr_ints("kernel_shape") or [])
    if len(kernel) != len(x) - 2:
        return None
    return (x[0], x[1], *_spatial(ctx, x, kernel, True))


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
    x = ctx.shape(0)
    elem = ctx.elem(0)
    if ctx.has_input(2):
        given = ctx.ints(2)
        ctx.set_tensor(0, elem, tuple(given) if given is not None else None)
        return
    if x is None:
        ctx.set_tensor(0, elem, None)
        return
    n = len(x) - 2
    kernel = ctx.attr_ints("kernel_shape") or []
    strides = ctx.attr_ints("strides") or [1] * n
    pads = ctx.attr_ints("pads") or [0] * (2 * n)
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
    ctx.set_tensor(0, ctx.elem(0), (n, c, ctx.attr_int("output_height", 1), ctx.attr_int("output_width", 1)))


@rule("MaxRoiPool")
def max_roi_pool(ctx: NodeContext) -> None:
    x, rois = ctx.shape(0), ctx.shape(1)
    pooled = ctx.attr_ints("pooled_shape") or []
    if x is None or rois is None or len(x) < 2:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    ctx.set_tensor(0, ctx.elem(0), (rois[0], x[1], *pooled))
