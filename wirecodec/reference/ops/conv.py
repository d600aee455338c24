"""Convolutions: Conv, ConvTranspose, ConvInteger, DeformConv-free im2col over N spatial axes."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any
# einsum subscripts (the string module, for its ascii_lowercase, costs a first build ~1 ms)
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def pads_for(
    ctx: Ctx, spatial: tuple[int, ...], kernel: tuple[int, ...], strides: list[int], dilations: list[int]
) -> tuple[list[int], list[int]]:
    """(begin pads, end pads) from ``pads`` or ``auto_pad``."""
    nd = len(spatial)
    auto = ctx.attrs.get("auto_pad", "NOTSET")
    if auto in ("SAME_UPPER", "SAME_LOWER"):
        begin, end = [], []
        for i in range(nd):
            out = -(-spatial[i] // strides[i])
            total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - spatial[i])
            small = total // 2
            if auto == "SAME_UPPER":
                begin.append(small)
                end.append(total - small)
            else:
                begin.append(total - small)
                end.append(small)
        return begin, end
    if auto == "VALID":
        return [0] * nd, [0] * nd
    pads = ctx.attrs.get("pads") or [0] * (2 * nd)
    return list(pads[:nd]), list(pads[nd:])


def windows(x: Any, kernel: tuple[int, ...], strides: list[int], dilations: list[int], out: list[int]) -> Any:
    """Patches of ``x`` (N, C, *spatial): shape (N, C, *out, *kernel)."""
    nd = len(kernel)
    extent = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilations, strict=True))
    view = np.lib.stride_tricks.sliding_window_view(x, extent, axis=tuple(range(2, 2 + nd)))
    index = (
        slice(None),
        slice(None),
        *tuple(slice(0, o * s, s) for o, s in zip(out, strides, strict=True)),
        *tuple(slice(None, None, d) for d in dilations),
    )
    return view[index]


def _conv(ctx: Ctx, x: Any, w: Any, b: Any = None) -> Any:
    nd = x.ndim - 2
    kernel = tuple(ctx.attrs.get("kernel_shape") or w.shape[2:])
    strides = ctx.attrs.get("strides") or [1] * nd
    dilations = ctx.attrs.get("dilations") or [1] * nd
    group = ctx.attrs.get("group", 1)
    begin, end = pads_for(ctx, x.shape[2:], kernel, strides, dilations)
    xp = np.pad(x, [(0, 0), (0, 0), *list(zip(begin, end, strict=True))])
    out = [(xp.shape[2 + i] - ((kernel[i] - 1) * dilations[i] + 1)) // strides[i] + 1 for i in range(nd)]
    y = _correlate(xp, w, kernel, strides, dilations, out, group)
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype, copy=False)


def _correlate(
    xp: Any,
    w: Any,
    kernel: tuple[int, ...],
    strides: list[int],
    dilations: list[int],
    out: list[int],
    group: int,
) -> Any:
    """The cross-correlation of padded ``xp`` (N, C, *spatial) with ``w`` (M, C/group, *kernel).

    One numpy call per convolution, whatever the groups (a Python loop over the groups of a
    depthwise convolution made one einsum per channel): a 1x1 kernel is a matmul over the
    channels, a depthwise one a sum over the kernel's offsets, any other a single einsum
    with the group as an axis of its own.
    """
    nd = len(kernel)
    n, channels = xp.shape[:2]
    cg, mg = channels // group, w.shape[0] // group
    if group == 1 and all(k == 1 for k in kernel):
        steps = tuple(slice(0, o * s, s) for o, s in zip(out, strides, strict=True))
        picked = xp[(slice(None), slice(None), *steps)]
        flat = np.matmul(w.reshape(w.shape[0], channels), picked.reshape(n, channels, -1))
        return flat.reshape(n, w.shape[0], *out)
    patches = windows(xp, kernel, strides, dilations, out)
    if cg == 1 and group > 1 and np.prod(kernel) <= 49:
        # depthwise (each output channel reads one input channel), a kernel of up to 7x7:
        # a sum over the kernel's offsets (one channel in and group 1 is a matmul: below)
        source = np.repeat(patches, mg, axis=1) if mg > 1 else patches
        # 16-bit floats are summed in float32, as einsum does
        wide = w.astype(np.float32) if w.dtype.kind == "f" and w.dtype.itemsize < 4 else w
        y: Any = None
        for offset in np.ndindex(*kernel):
            weight = wide[(slice(None), 0, *offset)].reshape((1, -1) + (1,) * nd)
            term = source[(Ellipsis, *offset)] * weight
            y = term if y is None else y + term
        return y
    letters = _LETTERS
    sp, ks = letters[:nd], letters[nd : 2 * nd]
    if group == 1:
        equation = f"NC{sp}{ks},MC{ks}->NM{sp}".replace("N", "y").replace("C", "z").replace("M", "x")
        return np.einsum(equation, patches, w, optimize=True)
    grouped = patches.reshape(n, group, cg, *patches.shape[2:])
    weights = w.reshape(group, mg, cg, *w.shape[2:])
    equation = f"NGC{sp}{ks},GMC{ks}->NGM{sp}"
    equation = equation.replace("N", "y").replace("G", "w").replace("C", "z").replace("M", "x")
    y = np.einsum(equation, grouped, weights, optimize=True)
    return y.reshape(n, group * mg, *out)


op("Conv")(_conv)


@op("Im2Col", 1, "experimental")
def _im2col(ctx: Ctx, x: Any, kernel_shape: Any) -> Any:
    """onnx's evaluator's ``experimental`` Im2Col: the patches of ``x`` (N, C, *spatial) under a
    kernel of ``kernel_shape[2:]`` (a weight's shape) as columns: ``[C * prod(kernel), N * prod(out)]``,
    rows by channel then kernel offset, columns by image then output position; ``W.reshape(M, -1) @
    cols`` is the convolution."""
    nd = x.ndim - 2
    kernel = tuple(int(k) for k in np.asarray(kernel_shape).reshape(-1)[2:])
    strides = ctx.attrs.get("strides") or [1] * nd
    dilations = ctx.attrs.get("dilations") or [1] * nd
    begin, end = pads_for(ctx, x.shape[2:], kernel, strides, dilations)
    padded = np.pad(x, [(0, 0), (0, 0), *zip(begin, end, strict=True)])
    out = [(padded.shape[2 + i] - (kernel[i] - 1) * dilations[i] - 1) // strides[i] + 1 for i in range(nd)]
    patches = windows(padded, kernel, strides, dilations, out)  # (N, C, *out, *kernel)
    order = (1, *range(2 + nd, 2 + 2 * nd), 0, *range(2, 2 + nd))
    columns = patches.transpose(order)
    return np.ascontiguousarray(columns).reshape(x.shape[1] * int(np.prod(kernel)), -1)


@op("ConvInteger", 10)
def _conv_integer(ctx: Ctx, x: Any, w: Any, x_zero: Any = None, w_zero: Any = None) -> Any:
    xi = x.astype(np.int32) - (0 if x_zero is None else np.asarray(x_zero).astype(np.int32))
    wz: Any = 0 if w_zero is None else np.asarray(w_zero).astype(np.int32)
    if np.ndim(wz) == 1:
        wz = wz.reshape((-1,) + (1,) * (w.ndim - 1))
    wi = w.astype(np.int32) - wz
    return _conv(ctx, xi, wi).astype(np.int32)


@op("ConvTranspose")
def _conv_transpose(ctx: Ctx, x: Any, w: Any, b: Any = None) -> Any:
    nd = x.ndim - 2
    a = ctx.attrs
    kernel = tuple(a.get("kernel_shape") or w.shape[2:])
    strides = a.get("strides") or [1] * nd
    dilations = a.get("dilations") or [1] * nd
    group = a.get("group", 1)
    out_pad = a.get("output_padding") or [0] * nd
    spatial = x.shape[2:]
    extent = [(kernel[i] - 1) * dilations[i] + 1 for i in range(nd)]
    full = [strides[i] * (spatial[i] - 1) + extent[i] + out_pad[i] for i in range(nd)]
    auto = a.get("auto_pad", "NOTSET")
    output_shape = a.get("output_shape")
    if output_shape is not None or auto in ("SAME_UPPER", "SAME_LOWER"):
        if output_shape is None:
            output_shape = [spatial[i] * strides[i] for i in range(nd)]
        output_shape = list(output_shape)[-nd:]
        begin, end = [], []
        for i in range(nd):
            total = max(0, full[i] - output_shape[i])
            if auto == "SAME_UPPER":
                begin.append(total // 2)
                end.append(total - total // 2)
            else:
                begin.append(total - total // 2)
                end.append(total // 2)
    elif auto == "VALID":
        begin, end = [0] * nd, [0] * nd
    else:
        pads = a.get("pads") or [0] * (2 * nd)
        begin, end = list(pads[:nd]), list(pads[nd:])
    n = x.shape[0]
    cg = x.shape[1] // group
    mg = w.shape[1]
    y = np.zeros([n, mg * group, *full], dtype=np.float64)
    letters = _LETTERS[:nd]
    for g in range(group):
        xg = x[:, g * cg : (g + 1) * cg]
        wg = w[g * cg : (g + 1) * cg]
        for k in np.ndindex(*kernel):
            contrib = np.einsum(f"yz{letters},zx->yx{letters}", xg, wg[(slice(None), slice(None), *k)])
            index = (
                slice(None),
                slice(g * mg, (g + 1) * mg),
                *tuple(
                    slice(
                        k[i] * dilations[i],
                        k[i] * dilations[i] + strides[i] * (spatial[i] - 1) + 1,
                        strides[i],
                    )
                    for i in range(nd)
                ),
            )
            y[index] += contrib
    crop = (slice(None), slice(None), *tuple(slice(begin[i], full[i] - end[i]) for i in range(nd)))
    y = y[crop]
    if output_shape is not None and list(y.shape[2:]) != list(output_shape):
        grow = [(0, 0), (0, 0)] + [
            (0, max(0, int(o) - s)) for o, s in zip(output_shape, y.shape[2:], strict=True)
        ]
        y = np.pad(y, grow)
    if b is not None:
        # one bias per output channel: a longer B (the schema wants M values) gives its first
        # M, as onnx's evaluator adds B[c] for each channel c; a shorter one fails to broadcast
        y = y + b.reshape(-1)[: y.shape[1]].reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype)


@op("CausalConvWithState", 27)
def _causal_conv_with_state(ctx: Ctx, x: Any, w: Any, b: Any = None, past: Any = None) -> Any:
    """Depthwise causal convolution over time ([B, C, L]) continuing from a carried state."""
    k = w.shape[-1]
    batch, channels, _ = x.shape
    if past is None:
        past = np.zeros((batch, channels, k - 1), dtype=x.dtype)
    full = np.concatenate([past, x], axis=2).astype(np.float32)
    patches = np.lib.stride_tricks.sliding_window_view(full, k, axis=2)  # [B, C, L, K]
    y = np.einsum("bclk,ck->bcl", patches, w[:, 0, :].astype(np.float32))
    if b is not None:
        y = y + b.astype(np.float32).reshape(1, -1, 1)
    # the convolution is rounded to the input's type before the activation, as onnx's
    # implementation and the schema's function body (a Conv in that type, then a Cast) do
    y = y.astype(x.dtype).astype(np.float32)
    if ctx.attrs.get("activation", "none") in ("silu", "swish"):
        y = y * (1 / (1 + np.exp(-y)))
    present = full[:, :, full.shape[2] - (k - 1) :] if k > 1 else full[:, :, :0]
    return y.astype(x.dtype), present.astype(x.dtype)


def _bilinear_zero(img: Any, y: Any, x: Any) -> Any:
    """Bilinear samples of ``img`` (C, H, W) at (y, x) arrays, zero outside: (C, *y.shape)."""
    height, width = img.shape[1:]
    y0, x0 = np.floor(y).astype(np.int64), np.floor(x).astype(np.int64)
    out = np.zeros((img.shape[0], *y.shape), dtype=np.float64)
    for dy in (0, 1):
        for dx in (0, 1):
            yy, xx = y0 + dy, x0 + dx
            weight = (1 - np.abs(y - yy)) * (1 - np.abs(x - xx))
            inside = (yy >= 0) & (yy < height) & (xx >= 0) & (xx < width)
            values = img[:, np.clip(yy, 0, height - 1), np.clip(xx, 0, width - 1)]
            out += np.where(inside, weight, 0.0) * values
    return out


@op("DeformConv", 19)
def _deform_conv(ctx: Ctx, x: Any, w: Any, offset: Any, b: Any = None, mask: Any = None) -> Any:
    a = ctx.attrs
    kh, kw = a.get("kernel_shape") or w.shape[2:]
    sh, sw = a.get("strides") or [1, 1]
    dh, dw = a.get("dilations") or [1, 1]
    pads = a.get("pads") or [0, 0, 0, 0]
    group, offset_group = a.get("group", 1), a.get("offset_group", 1)
    n, c = x.shape[:2]
    oh, ow = offset.shape[2:]
    k = kh * kw
    c_per_offset = c // offset_group
    base_y = (np.arange(oh) * sh - pads[0])[None, :, None] + (np.arange(kh) * dh).repeat(kw)[:, None, None]
    base_x = (np.arange(ow) * sw - pads[1])[None, None, :] + np.tile(np.arange(kw) * dw, kh)[:, None, None]
    cols = np.zeros((n, c, k, oh, ow))
    for i in range(n):
        for g in range(offset_group):
            off = offset[i, g * 2 * k : (g + 1) * 2 * k].astype(np.float64).reshape(k, 2, oh, ow)
            y = base_y + off[:, 0]
            xx = base_x + off[:, 1]
            sampled = _bilinear_zero(
                x[i, g * c_per_offset : (g + 1) * c_per_offset].astype(np.float64), y, xx
            )
            if mask is not None:
                sampled = sampled * mask[i, g * k : (g + 1) * k].astype(np.float64)[None]
            cols[i, g * c_per_offset : (g + 1) * c_per_offset] = sampled
    cg, mg = c // group, w.shape[0] // group
    parts = [
        np.einsum(
            "nckhw,mck->nmhw", cols[:, g * cg : (g + 1) * cg], w[g * mg : (g + 1) * mg].reshape(mg, cg, k)
        )
        for g in range(group)
    ]
    y_out = np.concatenate(parts, axis=1)
    if b is not None:
        y_out = y_out + b.reshape(1, -1, 1, 1)
    return y_out.astype(x.dtype)
