"""Resize and Upsample: separable interpolation, one weight matrix per resized axis."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def _cubic(t: Any, a: float) -> Any:
    t = np.abs(t)
    return np.where(
        t <= 1,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0),
    )


def _source(i: Any, mode: str, scale: float, n_in: int, n_out: int, roi: tuple[float, float]) -> Any:
    if mode == "half_pixel":
        return (i + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = n_out / (scale * n_in)
        center = n_in / 2
        offset = center * (1 - adjustment)
        return offset + (i + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (i + 0.5) / scale - 0.5 if n_out > 1 else np.zeros_like(i, dtype=np.float64)
    if mode == "align_corners":
        return i * (n_in - 1) / (n_in * scale - 1) if n_out > 1 else np.zeros_like(i, dtype=np.float64)
    if mode == "asymmetric":
        return i / scale
    if mode == "tf_crop_and_resize":
        start, end = roi
        if n_out > 1:
            return start * (n_in - 1) + i * (end - start) * (n_in - 1) / (n_out - 1)
        return np.full(i.shape, 0.5 * (start + end) * (n_in - 1))
    raise ValueError(f"unknown coordinate_transformation_mode {mode!r}")


def _nearest(x: Any, mode: str) -> Any:
    if mode == "round_prefer_floor":
        return np.ceil(x - 0.5)
    if mode == "round_prefer_ceil":
        return np.floor(x + 0.5)
    if mode == "floor":
        return np.floor(x)
    if mode == "ceil":
        return np.ceil(x)
    raise ValueError(f"unknown nearest_mode {mode!r}")


def _weights(ctx: Ctx, n_in: int, n_out: int, scale: float, roi: tuple[float, float]) -> tuple[Any, Any]:
    a = ctx.attrs
    mode = a.get("mode", "nearest")
    coord = a.get("coordinate_transformation_mode", "half_pixel")
    if ctx.version < 11:
        coord = "asymmetric"
    i = np.arange(n_out, dtype=np.float64)
    x = _source(i, coord, scale, n_in, n_out, roi)
    outside = (x < 0) | (x > n_in - 1) if coord == "tf_crop_and_resize" else np.zeros(n_out, dtype=bool)
    w = np.zeros((n_out, n_in))
    if mode == "nearest":
        nearest_mode = a.get("nearest_mode", "round_prefer_floor") if ctx.version >= 11 else "floor"
        idx = np.clip(_nearest(x, nearest_mode), 0, n_in - 1).astype(np.int64)
        w[np.arange(n_out), idx] = 1
        return w, outside
    antialias = a.get("antialias", 0) and scale < 1
    s = scale if antialias else 1.0
    if mode == "linear":
        support = 1.0 / s

        def kernel(t: Any) -> Any:
            return np.maximum(0.0, 1 - np.abs(t))
    else:
        support = 2.0 / s
        cubic_a = a.get("cubic_coeff_a", -0.75)

        def kernel(t: Any) -> Any:
            return _cubic(t, cubic_a)

    exclude = a.get("exclude_outside", 0)
    # every output position at once: row o reads input positions lo[o] .. hi[o]
    lo = np.floor(x - support).astype(np.int64) + 1
    hi = np.floor(x + support).astype(np.int64)
    taps = int((hi - lo).max()) + 1 if n_out else 0
    js = lo[:, None] + np.arange(taps)
    used = js <= hi[:, None]
    ws = np.where(used, kernel((x[:, None] - js) * s), 0.0)
    if exclude:
        ws = np.where((js >= 0) & (js < n_in), ws, 0.0)
    if antialias or exclude:
        total = ws.sum(axis=1, keepdims=True)
        ws = ws / np.where(total != 0, total, 1.0)
    rows = np.broadcast_to(np.arange(n_out)[:, None], js.shape)
    np.add.at(w, (rows, np.clip(js, 0, n_in - 1)), ws)
    return w, outside


def _nearest_index(ctx: Ctx, n_in: int, n_out: int, scale: float, roi: tuple[float, float]) -> Any:
    """The input position each output position copies (mode ``nearest``)."""
    a = ctx.attrs
    coord = a.get("coordinate_transformation_mode", "half_pixel") if ctx.version >= 11 else "asymmetric"
    x = _source(np.arange(n_out, dtype=np.float64), coord, scale, n_in, n_out, roi)
    nearest_mode = a.get("nearest_mode", "round_prefer_floor") if ctx.version >= 11 else "floor"
    return np.clip(_nearest(x, nearest_mode), 0, n_in - 1).astype(np.int64)


def _resize(ctx: Ctx, x: Any, roi: Any, scales: Any, sizes: Any) -> Any:
    a = ctx.attrs
    rank = x.ndim
    axes = a.get("axes") or list(range(rank))
    axes = [ax + rank if ax < 0 else ax for ax in axes]
    in_shape = [x.shape[ax] for ax in axes]
    if sizes is not None and np.size(sizes):
        want = [int(s) for s in sizes]
        policy = a.get("keep_aspect_ratio_policy", "stretch")
        if policy == "stretch":
            factors = [w / n for w, n in zip(want, in_shape, strict=True)]
            out = want
        else:
            ratios = [w / n for w, n in zip(want, in_shape, strict=True)]
            r = min(ratios) if policy == "not_larger" else max(ratios)
            factors = [r] * len(axes)
            out = [math.floor(r * n + 0.5) for n in in_shape]
    else:
        factors = [float(s) for s in scales]
        if len(factors) == rank and len(axes) != rank:
            factors = [factors[ax] for ax in axes]
        out = [math.floor(n * f) for n, f in zip(in_shape, factors, strict=True)]
    roi_pairs = [(0.0, 1.0)] * len(axes)
    if roi is not None and np.size(roi):
        r = [float(v) for v in np.asarray(roi).reshape(-1)]
        k = len(r) // 2
        if k == rank and len(axes) != rank:
            roi_pairs = [(r[ax], r[ax + k]) for ax in axes]
        else:
            roi_pairs = [(r[j], r[j + k]) for j in range(k)]
    nearest = a.get("mode", "nearest") == "nearest"
    crop = a.get("coordinate_transformation_mode") == "tf_crop_and_resize" and ctx.version >= 11
    y = x if nearest else x.astype(np.float64)
    outside = np.zeros([1] * rank, dtype=bool)
    for ax, n_in, n_out, f, pair in zip(axes, in_shape, out, factors, roi_pairs, strict=True):
        if (f == 1.0 and n_in == n_out and not crop) or n_in == n_out == 1:
            # every mode and coordinate transformation maps i to i (a single position maps to
            # position 0 whatever the roi: always inside): the weights are the identity
            continue
        if nearest and not crop:
            y = np.take(y, _nearest_index(ctx, n_in, n_out, f, pair), axis=ax)
            continue
        w, out_mask = _weights(ctx, n_in, n_out, f, pair)
        # the axis last, one matmul by w's transpose, back in place (tensordot's reshaping costs
        # more than the product on the small tensors of most models)
        y = np.moveaxis(np.moveaxis(y, ax, -1) @ w.T, -1, ax)
        shape = [1] * rank
        shape[ax] = n_out
        outside = outside | out_mask.reshape(shape)
    if outside.any():
        y = np.where(outside, a.get("extrapolation_value", 0.0), y)
    if x.dtype.kind in "iu" and not nearest:
        y = np.rint(y)
    return y.astype(x.dtype, copy=False)


@op("Resize", 11)
def _resize11(ctx: Ctx, x: Any, roi: Any = None, scales: Any = None, sizes: Any = None) -> Any:
    return _resize(ctx, x, roi, scales, sizes)


@op("Resize", 10)
def _resize10(ctx: Ctx, x: Any, scales: Any) -> Any:
    return _resize(ctx, x, None, scales, None)


@op("Upsample", 9)
def _upsample(ctx: Ctx, x: Any, scales: Any) -> Any:
    return _resize(ctx, x, None, scales, None)
