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
    out = np.zeros((n, c, *grid.shape[1:-1]), dtype=np.float64)

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
                r = (
                    _reflect(j.astype(np.float64), 0, size - 1)
                    if align
                    else _reflect(j.astype(np.float64), -0.5, size - 0.5)
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
            offsets: list[tuple[int, ...]] = [(0, 1)] * d

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
    cols = x.reshape((n, c, *tuple(block), *tuple(out_count)))
    y = np.zeros((n, c, *tuple(padded)), dtype=x.dtype)
    for k in np.ndindex(*block):
        index = (
            slice(None),
            slice(None),
            *tuple(
                slice(k[i] * dil[i], k[i] * dil[i] + strides[i] * (out_count[i] - 1) + 1, strides[i])
                for i in range(nd)
            ),
        )
        y[index] += cols[(slice(None), slice(None), *k)]
    crop = (slice(None), slice(None), *tuple(slice(pads[i], pads[i] + image[i]) for i in range(nd)))
    return y[crop]


def _bilinear_corners(img: Any, y: float, x: float) -> list[tuple[float, Any]] | None:
    """(weight, value) of the four neighbours of (y, x), or None outside the image."""
    height, width = img.shape[-2:]
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return None
    y, x = max(y, 0.0), max(x, 0.0)
    y_low, x_low = int(y), int(x)
    if y_low >= height - 1:
        y_low = y_high = height - 1
        y = float(y_low)
    else:
        y_high = y_low + 1
    if x_low >= width - 1:
        x_low = x_high = width - 1
        x = float(x_low)
    else:
        x_high = x_low + 1
    ly, lx = y - y_low, x - x_low
    hy, hx = 1 - ly, 1 - lx
    return [
        (hy * hx, img[..., y_low, x_low]),
        (hy * lx, img[..., y_low, x_high]),
        (ly * hx, img[..., y_high, x_low]),
        (ly * lx, img[..., y_high, x_high]),
    ]


@op("RoiAlign", 10)
def _roi_align(ctx: Ctx, x: Any, rois: Any, batch_indices: Any) -> Any:
    a = ctx.attrs
    oh, ow = a.get("output_height", 1), a.get("output_width", 1)
    ratio = a.get("sampling_ratio", 0)
    scale = a.get("spatial_scale", 1.0)
    half_pixel = ctx.version >= 16 and a.get("coordinate_transformation_mode", "half_pixel") == "half_pixel"
    use_max = a.get("mode", "avg") == "max"
    offset = 0.5 if half_pixel else 0.0
    out = np.zeros((rois.shape[0], x.shape[1], oh, ow), dtype=np.float64)
    for r, roi in enumerate(rois.astype(np.float64)):
        img = x[int(batch_indices[r])].astype(np.float64)
        x0, y0 = roi[0] * scale - offset, roi[1] * scale - offset
        w, h = roi[2] * scale - offset - x0, roi[3] * scale - offset - y0
        if not half_pixel:
            w, h = max(w, 1.0), max(h, 1.0)
        bin_h, bin_w = h / oh, w / ow
        grid_h = ratio if ratio > 0 else int(np.ceil(h / oh))
        grid_w = ratio if ratio > 0 else int(np.ceil(w / ow))
        count = max(grid_h * grid_w, 1)
        for ph in range(oh):
            for pw in range(ow):
                acc = np.zeros(x.shape[1])
                best = np.full(x.shape[1], -np.inf)
                seen = False
                for iy in range(grid_h):
                    yy = y0 + ph * bin_h + (iy + 0.5) * bin_h / grid_h
                    for ix in range(grid_w):
                        xx = x0 + pw * bin_w + (ix + 0.5) * bin_w / grid_w
                        corners = _bilinear_corners(img, yy, xx)
                        if corners is None:
                            if use_max:
                                best = np.maximum(best, 0.0)
                                seen = True
                            continue
                        if use_max:
                            for weight, value in corners:
                                best = np.maximum(best, weight * value)
                            seen = True
                        else:
                            acc += sum(weight * value for weight, value in corners)
                out[r, :, ph, pw] = (best if seen else 0.0) if use_max else acc / count
    return out.astype(x.dtype)


@op("MelWeightMatrix", 17)
def _mel(ctx: Ctx, bins: Any, dft_length: Any, rate: Any, low: Any, high: Any) -> Any:
    from wirecodec.tensors import numpy_dtype

    n_mel, n_dft, sr = int(bins), int(dft_length), int(rate)
    spectrogram_bins = n_dft // 2 + 1
    low_mel = 2595 * np.log10(1 + float(low) / 700)
    high_mel = 2595 * np.log10(1 + float(high) / 700)
    points = np.arange(n_mel + 2) * (high_mel - low_mel) / (n_mel + 2) + low_mel
    hertz = 700 * (np.power(10, points / 2595) - 1)
    edges = (((n_dft + 1) * hertz) // sr).astype(np.int64)
    out = np.zeros((spectrogram_bins, n_mel))
    for i in range(n_mel):
        lower, center, upper = edges[i], edges[i + 1], edges[i + 2]
        if center == lower:
            out[center, i] = 1
        else:
            for j in range(lower, center + 1):
                out[j, i] = (j - lower) / (center - lower)
        if upper > center:
            for j in range(center, upper):
                out[j, i] = (upper - j) / (upper - center)
    return out.astype(numpy_dtype(ctx.attrs.get("output_datatype", 1)))


@op("AffineGrid", 20)
def _affine_grid(ctx: Ctx, theta: Any, size: Any) -> Any:
    """Sampling grids (N, *spatial, d): each base point (x, y[, z], 1) through theta."""
    dims = [int(s) for s in size][2:]
    align = ctx.attrs.get("align_corners", 0)
    axes = []
    for s in dims:
        if align:
            axes.append(np.linspace(-1.0, 1.0, s) if s > 1 else np.zeros(1))
        else:
            axes.append((2 * np.arange(s) + 1) / s - 1)
    mesh = np.meshgrid(*axes, indexing="ij")  # spatial order (D,) H, W
    base = np.stack([*reversed(mesh), np.ones(mesh[0].shape)], axis=-1)  # x first
    grid = np.einsum("...k,njk->n...j", base, theta.astype(np.float64))
    return grid.astype(theta.dtype)
