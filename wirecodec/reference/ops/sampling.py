"""Sampling operators: GridSample, AffineGrid-free; Col2Im, RoiAlign."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.resize import _cubic

Ctx = Any


def _reflect(coord: Any, low: float, high: float) -> Any:
    span = high - low
    if span <= 0:
        return np.zeros_like(coord)
    shifted = np.abs(coord - low)
    flips = np.floor(shifted / span)
    rest = shifted - flips * span
    return np.where(flips % 2 == 0, low + rest, high - rest)


@op("GridSample", 16)
def _grid_sample(ctx: Ctx, x: Any, grid: Any) -> Any:
    a = ctx.attrs
    mode = {"bilinear": "linear", "bicubic": "cubic"}.get(a.get("mode", "linear"), a.get("mode", "linear"))
    padding = a.get("padding_mode", "zeros")
    align = a.get("align_corners", 0)
    n, c = x.shape[:2]
    sizes = x.shape[2:]
    d = len(sizes)
    coords = []
    for i in range(d):
        g = grid[..., d - 1 - i].astype(np.float64)
        size = sizes[i]
        p = (g + 1) / 2 * (size - 1) if align else ((g + 1) * size - 1) / 2
        if padding == "border":
            p = np.clip(p, 0, size - 1)
        elif padding == "reflection":
            p = _reflect(p, 0, size - 1) if align else _reflect(p, -0.5, size - 0.5)
        coords.append(p)
    out = np.zeros((n, c) + grid.shape[1:-1], dtype=np.float64)

    def fetch(b: int, idx: list[Any]) -> Any:
        valid = np.ones(idx[0].shape, dtype=bool)
        fixed = []
        for i, j in enumerate(idx):
            size = sizes[i]
            if padding == "zeros":
                valid &= (j >= 0) & (j < size)
                fixed.append(np.clip(j, 0, size - 1))
            elif padding == "border":
                fixed.append(np.clip(j, 0, size - 1))
            else:
                r = _reflect(j.astype(np.float64), 0, size - 1) if align else _reflect(
                    j.astype(np.float64), -0.5, size - 0.5
                )
                fixed.append(np.clip(np.rint(r).astype(np.int64), 0, size - 1))
        values = x[b][(slice(None), *fixed)].astype(np.float64)
        return np.where(valid, values, 0.0)

    for b in range(n):
        pts = [p[b] for p in coords]
        if mode == "nearest":
            out[b] = fetch(b, [np.rint(p).astype(np.int64) for p in pts])
            continue
        if mode == "linear":
            base = [np.floor(p).astype(np.int64) for p in pts]
            offsets = [(0, 1)] * d

            def weight(i: int, o: int, base: list[Any] = base, pts: list[Any] = pts) -> Any:
                frac = pts[i] - base[i]
                return frac if o else 1 - frac
        else:
            base = [np.floor(p).astype(np.int64) - 1 for p in pts]
            offsets = [(0, 1, 2, 3)] * d

            def weight(i: int, o: int, base: list[Any] = base, pts: list[Any] = pts) -> Any:
                return _cubic(pts[i] - (base[i] + o), -0.75)

        for combo in itertools.product(*offsets):
            w = np.ones(pts[0].shape)
            for i, o in enumerate(combo):
                w = w * weight(i, o)
            out[b] += w * fetch(b, [base[i] + o for i, o in enumerate(combo)])
    return out.astype(x.dtype)


@op("Col2Im", 18)
def _col2im(ctx: Ctx, x: Any, image_shape: Any, block_shape: Any) -> Any:
    a = ctx.attrs
    image = [int(v) for v in image_shape]
    block = [int(v) for v in block_shape]
    nd = len(image)
    dil = a.get("dilations") or [1] * nd
    pads = a.get("pads") or [0] * (2 * nd)
    strides = a.get("strides") or [1] * nd
    n = x.shape[0]
    kernel = int(np.prod(block))
    c = x.shape[1] // kernel
    padded = [image[i] + pads[i] + pads[i + nd] for i in range(nd)]
    out_count = [(padded[i] - ((block[i] - 1) * dil[i] + 1)) // strides[i] + 1 for i in range(nd)]
    cols = x.reshape((n, c) + tuple(block) + tuple(out_count))
    y = np.zeros((n, c) + tuple(padded), dtype=x.dtype)
    for k in np.ndindex(*block):
        index = (slice(None), slice(None)) + tuple(
            slice(k[i] * dil[i], k[i] * dil[i] + strides[i] * (out_count[i] - 1) + 1, strides[i]) for i in range(nd)
        )
        y[index] += cols[(slice(None), slice(None), *k)]
    crop = (slice(None), slice(None)) + tuple(slice(pads[i], pads[i] + image[i]) for i in range(nd))
    return y[crop]
