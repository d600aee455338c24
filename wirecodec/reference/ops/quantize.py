"""Quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, QLinearMatMul, QLinearConv."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.misc import cast
from wirecodec.tensors import numpy_dtype

Ctx = Any

_RANGES = {"int4": (-8, 7), "uint4": (0, 15), "int2": (-2, 1), "uint2": (0, 3)}


def _broadcast(param: Any, x: Any, axis: int, block: int) -> Any:
    """A scale or zero point shaped to broadcast against ``x`` (per tensor, axis or block)."""
    param = np.asarray(param)
    if param.ndim == 0 or (param.size == 1 and param.ndim <= 1 and block == 0):
        return param.reshape(())
    if axis < 0:
        axis += x.ndim
    if block:
        return np.repeat(param, block, axis=axis).take(np.arange(x.shape[axis]), axis=axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    return param.reshape(shape)


def _to_type(values: Any, dtype: Any, saturate: bool) -> Any:
    name = dtype.name
    if dtype.kind in "iu" and name not in _RANGES:
        info = np.iinfo(dtype)
        return np.clip(np.rint(values), info.min, info.max).astype(dtype)
    if name in _RANGES:
        lo, hi = _RANGES[name]
        return np.clip(np.rint(values), lo, hi).astype(np.int8).astype(dtype)
    return cast(values.astype(np.float32), dtype, saturate)


@op("QuantizeLinear", 10)
def _quantize(ctx: Ctx, x: Any, scale: Any, zero_point: Any = None) -> Any:
    axis = ctx.attrs.get("axis", 1)
    block = ctx.attrs.get("block_size", 0)
    if zero_point is not None:
        dtype = zero_point.dtype
    elif ctx.attrs.get("output_dtype"):
        dtype = numpy_dtype(ctx.attrs["output_dtype"])
    else:
        dtype = np.dtype(np.uint8)
    # the division in the input's precision (float32 at least), as the operator's body does
    work = np.float64 if x.dtype == np.float64 else np.float32
    s = _broadcast(scale, x, axis, block).astype(work)
    values = (x.astype(work) / s).astype(np.float64)
    if dtype.kind in "iu" or dtype.name in _RANGES:
        values = np.rint(values)
        if zero_point is not None:
            values = values + _broadcast(zero_point, x, axis, block).astype(np.float64)
    elif zero_point is not None:
        values = values + _broadcast(zero_point, x, axis, block).astype(np.float64)
    return _to_type(values, dtype, bool(ctx.attrs.get("saturate", 1)))


@op("DequantizeLinear", 10)
def _dequantize(ctx: Ctx, x: Any, scale: Any, zero_point: Any = None) -> Any:
    axis = ctx.attrs.get("axis", 1)
    block = ctx.attrs.get("block_size", 0)
    values = x.astype(np.float32)
    if zero_point is not None:
        values = values - _broadcast(zero_point, x, axis, block).astype(np.float32)
    out_dtype = numpy_dtype(ctx.attrs["output_dtype"]) if ctx.attrs.get("output_dtype") else scale.dtype
    return (values * _broadcast(scale, x, axis, block).astype(np.float32)).astype(out_dtype)


@op("DynamicQuantizeLinear", 11)
def _dynamic_quantize(ctx: Ctx, x: Any) -> Any:
    lo = min(0.0, float(x.min()) if x.size else 0.0)
    hi = max(0.0, float(x.max()) if x.size else 0.0)
    scale = np.float32((hi - lo) / 255.0)
    zp = np.clip(np.rint(-lo / scale), 0, 255) if scale else 0.0
    y = np.clip(np.rint(x / scale) + zp, 0, 255) if scale else np.full(x.shape, zp)
    return y.astype(np.uint8), np.array(scale, dtype=np.float32), np.array(zp, dtype=np.uint8)


def _dequant(x: Any, scale: Any, zp: Any, axis: int = 1) -> Any:
    return (x.astype(np.float64) - _broadcast(zp, x, axis, 0).astype(np.float64)) * _broadcast(
        scale, x, axis, 0
    ).astype(np.float64)


@op("QLinearMatMul", 10)
def _qlinear_matmul(
    ctx: Ctx, a: Any, a_scale: Any, a_zp: Any, b: Any, b_scale: Any, b_zp: Any, y_scale: Any, y_zp: Any
) -> Any:
    av = (a.astype(np.float64) - a_zp.astype(np.float64)) * a_scale.astype(np.float64)
    bzp = b_zp.astype(np.float64)
    bs = b_scale.astype(np.float64)
    if bzp.ndim == 1 and bzp.size > 1:
        bzp = bzp.reshape(1, -1)
        bs = bs.reshape(1, -1)
    bv = (b.astype(np.float64) - bzp) * bs
    real = np.matmul(av, bv)
    values = np.rint(real / y_scale.astype(np.float64)) + y_zp.astype(np.float64)
    return _to_type(values, y_zp.dtype, True)


@op("QLinearConv", 10)
def _qlinear_conv(
    ctx: Ctx,
    x: Any,
    x_scale: Any,
    x_zp: Any,
    w: Any,
    w_scale: Any,
    w_zp: Any,
    y_scale: Any,
    y_zp: Any,
    b: Any = None,
) -> Any:
    from wirecodec.reference.ops.conv import _conv

    if np.ndim(w_scale) > 1:
        raise ValueError(f"w_scale must be a scalar or a 1-D tensor, got shape {np.shape(w_scale)}")
    if np.size(w_scale) not in (1, w.shape[0]):
        raise ValueError(
            f"w_scale elements must match output channels: {np.size(w_scale)} values, {w.shape[0]} channels"
        )
    xv = _dequant(x, x_scale, x_zp)
    wv = _dequant(w, w_scale, w_zp, axis=0)
    bias = (
        None
        if b is None
        else b.astype(np.float64)
        * x_scale.astype(np.float64)
        * np.asarray(w_scale, dtype=np.float64).reshape(-1)
    )
    real = _conv(ctx, xv, wv, bias)
    values = np.rint(real / y_scale.astype(np.float64)) + y_zp.astype(np.float64)
    return _to_type(values, y_zp.dtype, True)
