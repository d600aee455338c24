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
    # every batch at once: a gather indexes the batch axis too, the channels come last
    batch = np.arange(n).reshape((n,) + (1,) * (grid.ndim - 2))

    def axis_index(i: int, j: Any) -> tuple[Any, Any]:
        """(index into axis i, inside the image or None) of positions j along axis i."""
        size = sizes[i]
        if padding == "zeros":
            return np.clip(j, 0, size - 1), (j >= 0) & (j < size)
        if padding == "border":
            return np.clip(j, 0, size - 1), None
        r = (
            _reflect(j.astype(np.float64), 0, size - 1)
            if align
            else _reflect(j.astype(np.float64), -0.5, size - 0.5)
        )
        return np.clip(np.rint(r).astype(np.int64), 0, size - 1), None

    def fetch(picks: list[tuple[Any, Any]]) -> Any:
        values = np.moveaxis(x[(batch, slice(None), *(index for index, _ in picks))], -1, 1).astype(
            np.float64
        )
        valid = None
        for _, inside in picks:
            if inside is not None:
                valid = inside if valid is None else valid & inside
        return values if valid is None else np.where(valid[:, None], values, 0.0)

    if mode == "nearest":
        picks = [axis_index(i, np.rint(p).astype(np.int64)) for i, p in enumerate(coords)]
        return fetch(picks).astype(x.dtype)
    if mode == "linear":
        base = [np.floor(p).astype(np.int64) for p in coords]
        offsets: list[tuple[int, ...]] = [(0, 1)] * d
        weights = [[1 - (coords[i] - base[i]), coords[i] - base[i]] for i in range(d)]
    else:
        base = [np.floor(p).astype(np.int64) - 1 for p in coords]
        offsets = [(0, 1, 2, 3)] * d
        weights = [[_cubic(coords[i] - (base[i] + o), -0.75) for o in range(4)] for i in range(d)]
    # per axis and offset, once: the index, whether it is inside, the weight
    picked = [[axis_index(i, base[i] + o) for o in offsets[i]] for i in range(d)]
    out = np.zeros((n, c, *grid.shape[1:-1]), dtype=np.float64)
    for combo in itertools.product(*offsets):
        w = weights[0][combo[0]]
        for i in range(1, d):
            w = w * weights[i][combo[i]]
        out += w[:, None] * fetch([picked[i][o] for i, o in enumerate(combo)])
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


def _corners(t: Any, size: int) -> tuple[Any, Any, Any, Any, Any]:
    """Bilinear interpolation along one axis at positions ``t``: (low index, high index,
    low weight, high weight, inside), where ``inside`` is False beyond one pixel out."""
    inside = (t >= -1.0) & (t <= size)
    t = np.maximum(t, 0.0)
    low = t.astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    frac = np.where(edge, 0.0, t - low)
    return low, high, 1 - frac, frac, inside


@op("RoiAlign", 10)
def _roi_align(ctx: Ctx, x: Any, rois: Any, batch_indices: Any) -> Any:
    a = ctx.attrs
    oh, ow = a.get("output_height", 1), a.get("output_width", 1)
    ratio = a.get("sampling_ratio", 0)
    scale = a.get("spatial_scale", 1.0)
    half_pixel = ctx.version >= 16 and a.get("coordinate_transformation_mode", "half_pixel") == "half_pixel"
    use_max = a.get("mode", "avg") == "max"
    offset = 0.5 if half_pixel else 0.0
    height, width = x.shape[-2:]
    out = np.zeros((rois.shape[0], x.shape[1], oh, ow), dtype=np.float64)
    # The samples of a region form a grid and bilinear weights factor into a row weight
    # times a column weight (a sample outside the image in either direction counts 0), so
    # the average is Wy @ image @ Wx.T, and the maximum one gather: no loop over samples.
    for r, roi in enumerate(rois.astype(np.float64)):
        img = x[int(batch_indices[r])].astype(np.float64)
        x0, y0 = roi[0] * scale - offset, roi[1] * scale - offset
        w, h = roi[2] * scale - offset - x0, roi[3] * scale - offset - y0
        if not half_pixel:
            w, h = max(w, 1.0), max(h, 1.0)
        bin_h, bin_w = h / oh, w / ow
        grid_h = ratio if ratio > 0 else int(np.ceil(h / oh))
        grid_w = ratio if ratio > 0 else int(np.ceil(w / ow))
        if grid_h <= 0 or grid_w <= 0:
            continue  # no sample: 0, as onnx's
        ys = y0 + np.arange(oh)[:, None] * bin_h + (np.arange(grid_h)[None, :] + 0.5) * bin_h / grid_h
        xs = x0 + np.arange(ow)[:, None] * bin_w + (np.arange(grid_w)[None, :] + 0.5) * bin_w / grid_w
        ylo, yhi, wylo, wyhi, yin = _corners(ys, height)
        xlo, xhi, wxlo, wxhi, xin = _corners(xs, width)
        if use_max:
            rows = np.stack([ylo, yhi], axis=-1)  # (oh, grid_h, 2)
            cols = np.stack([xlo, xhi], axis=-1)  # (ow, grid_w, 2)
            wy = np.stack([wylo, wyhi], axis=-1)
            wx = np.stack([wxlo, wxhi], axis=-1)
            values = img[:, rows[:, :, :, None, None, None], cols[None, None, None]]
            weighted = values * (wy[:, :, :, None, None, None] * wx[None, None, None])
            inside = yin[:, :, None, None, None, None] & xin[None, None, None, :, :, None]
            weighted = np.where(inside, weighted, 0.0)  # a sample outside counts 0
            out[r] = weighted.max(axis=(2, 3, 5, 6))
            continue
        wy_matrix = np.zeros((oh, height))
        wx_matrix = np.zeros((ow, width))
        bins_y = np.broadcast_to(np.arange(oh)[:, None], ys.shape)
        bins_x = np.broadcast_to(np.arange(ow)[:, None], xs.shape)
        np.add.at(wy_matrix, (bins_y, ylo), wylo * yin)
        np.add.at(wy_matrix, (bins_y, yhi), wyhi * yin)
        np.add.at(wx_matrix, (bins_x, xlo), wxlo * xin)
        np.add.at(wx_matrix, (bins_x, xhi), wxhi * xin)
        out[r] = np.einsum("ph,chw,qw->cpq", wy_matrix, img, wx_matrix) / (grid_h * grid_w)
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
            axes.append(np.arange(s) * (2.0 / (s - 1)) - 1.0 if s > 1 else np.zeros(1))
        else:
            axes.append((2 * np.arange(s) + 1) / s - 1)
    mesh = np.meshgrid(*axes, indexing="ij")  # spatial order (D,) H, W
    base = np.stack([*reversed(mesh), np.ones(mesh[0].shape)], axis=-1)  # x first
    # every base point through every theta: one matmul ((P, k) by (N, k, j)), not einsum's setup
    points = base.reshape(-1, base.shape[-1])
    grid = points @ np.swapaxes(theta.astype(np.float64), 1, 2)
    return grid.reshape(theta.shape[0], *dims, theta.shape[1]).astype(theta.dtype)
