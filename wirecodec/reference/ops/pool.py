"""Pooling: AveragePool, MaxPool (with indices), LpPool, MaxUnpool."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.conv import pads_for, windows

Ctx = Any


def _geometry(
    ctx: Ctx, x: Any
) -> tuple[tuple[int, ...], list[int], list[int], list[int], list[int], list[int]]:
    nd = x.ndim - 2
    kernel = tuple(ctx.attrs["kernel_shape"])
    strides = ctx.attrs.get("strides") or [1] * nd
    dilations = ctx.attrs.get("dilations") or [1] * nd
    begin, end = pads_for(ctx, x.shape[2:], kernel, strides, dilations)
    out = []
    extra = []
    ceil = ctx.attrs.get("ceil_mode", 0)
    for i in range(nd):
        extent = (kernel[i] - 1) * dilations[i] + 1
        span = x.shape[2 + i] + begin[i] + end[i] - extent
        if ctx.attrs.get("auto_pad", "NOTSET") in ("SAME_UPPER", "SAME_LOWER"):
            count = -(-x.shape[2 + i] // strides[i])
        elif ceil:
            count = -(-span // strides[i]) + 1
            # the last window must start inside the input or its left padding
            if (count - 1) * strides[i] >= x.shape[2 + i] + begin[i]:
                count -= 1
        else:
            count = span // strides[i] + 1
        out.append(count)
        need = (count - 1) * strides[i] + extent - (x.shape[2 + i] + begin[i] + end[i])
        extra.append(max(0, need))
    return kernel, strides, dilations, begin, end, [o for o in out] + extra


def _padded(x: Any, begin: list[int], end: list[int], extra: list[int], value: Any) -> Any:
    """``x`` padded with ``value`` on its spatial axes (a filled array and one copy: np.pad's
    generality costs more than the pooling itself on small inputs)."""
    after = [e + x_ for e, x_ in zip(end, extra, strict=True)]
    if not any(begin) and not any(after):
        return x
    shape = (*x.shape[:2], *(n + b + a for n, b, a in zip(x.shape[2:], begin, after, strict=True)))
    out = np.full(shape, value, dtype=x.dtype)
    out[(slice(None), slice(None), *(slice(b, b + n) for b, n in zip(begin, x.shape[2:], strict=True)))] = x
    return out


@op("AveragePool")
def _average_pool(ctx: Ctx, x: Any) -> Any:
    nd = x.ndim - 2
    kernel, strides, dilations, begin, end, geo = _geometry(ctx, x)
    out, extra = geo[:nd], geo[nd:]
    xp = _padded(x.astype(np.float64), begin, end, extra, 0.0)
    ones = np.ones((1, 1, *x.shape[2:]))
    if ctx.attrs.get("count_include_pad", 0):
        mask = _padded(
            np.pad(ones, [(0, 0), (0, 0), *list(zip(begin, end, strict=True))], constant_values=1),
            [0] * nd,
            [0] * nd,
            extra,
            0.0,
        )
    else:
        mask = _padded(ones, begin, end, extra, 0.0)
    axes = tuple(range(-nd, 0))
    total = windows(xp, kernel, strides, dilations, out).sum(axis=axes)
    count = windows(mask, kernel, strides, dilations, out).sum(axis=axes)
    return (total / count).astype(x.dtype)


@op("LpPool")
def _lp_pool(ctx: Ctx, x: Any) -> Any:
    nd = x.ndim - 2
    kernel, strides, dilations, begin, end, geo = _geometry(ctx, x)
    out, extra = geo[:nd], geo[nd:]
    p = ctx.attrs.get("p", 2)
    xp = _padded(np.abs(x.astype(np.float64)) ** p, begin, end, extra, 0.0)
    total = windows(xp, kernel, strides, dilations, out).sum(axis=tuple(range(-nd, 0)))
    return (total ** (1.0 / p)).astype(x.dtype)


@op("MaxPool")
def _max_pool(ctx: Ctx, x: Any) -> Any:
    nd = x.ndim - 2
    kernel, strides, dilations, begin, end, geo = _geometry(ctx, x)
    out, extra = geo[:nd], geo[nd:]
    low = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _padded(x, begin, end, extra, low)
    patches = windows(xp, kernel, strides, dilations, out)
    flat = patches.reshape((*patches.shape[: 2 + nd], -1))
    y = flat.max(axis=-1)
    if len(ctx.outputs) < 2 or not ctx.outputs[1]:
        return y.astype(x.dtype)
    # index of the maximum in the unpadded input, flattened (row-major or column-major)
    arg = flat.argmax(axis=-1)
    k_pos = np.unravel_index(arg, kernel)
    n_, c_ = x.shape[:2]
    spatial = x.shape[2:]
    coords = []
    for i in range(nd):  # each output position's start along axis i, broadcast over the others
        start = np.arange(out[i]).reshape((1, 1, *(-1 if j == i else 1 for j in range(nd))))
        coords.append(start * strides[i] + k_pos[i] * dilations[i] - begin[i])
    lin: Any = 0
    if ctx.attrs.get("storage_order", 0):
        mult = 1
        for i in range(nd):
            lin = lin + coords[i] * mult
            mult *= spatial[i]
    else:
        for i in range(nd):
            lin = lin * spatial[i] + coords[i]
    size = int(np.prod(spatial))
    base = (np.arange(n_ * c_).reshape(n_, c_) * size).reshape((n_, c_) + (1,) * nd)
    return y.astype(x.dtype), (lin + base).astype(np.int64)


@op("MaxUnpool", 9)
def _max_unpool(ctx: Ctx, x: Any, indices: Any, output_shape: Any = None) -> Any:
    nd = x.ndim - 2
    kernel = ctx.attrs["kernel_shape"]
    strides = ctx.attrs.get("strides") or [1] * nd
    pads = ctx.attrs.get("pads") or [0] * (2 * nd)
    # the indices count positions in the shape the pooling would invert by default;
    # an explicit output_shape places that result at its start
    shape = [
        *x.shape[:2],
        *((x.shape[2 + i] - 1) * strides[i] + kernel[i] - pads[i] - pads[i + nd] for i in range(nd)),
    ]
    y = np.zeros(int(np.prod(shape)), dtype=x.dtype)
    y[indices.reshape(-1)] = x.reshape(-1)
    y = y.reshape(shape)
    if output_shape is None:
        return y
    out = np.zeros([int(s) for s in output_shape], dtype=x.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(out.shape, y.shape, strict=True))
    out[common] = y[common]
    return out
