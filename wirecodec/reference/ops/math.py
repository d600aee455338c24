"""Linear algebra and normalised exponentials: MatMul, Gemm, Softmax, LogSoftmax, Hardmax, Det, ..."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def blasable(x: Any) -> Any:
    """``x``, or a contiguous copy when neither order is: numpy's matmul runs a strided
    operand (a slice of a transposed array) through its own loop, not BLAS, up to 100
    times slower than the copy costs."""
    if x.ndim >= 2 and not (x.flags.c_contiguous or x.flags.f_contiguous):
        return np.ascontiguousarray(x)
    return x


@op("MatMul")
def _matmul(ctx: Ctx, a: Any, b: Any) -> Any:
    return np.matmul(blasable(a), blasable(b)).astype(a.dtype, copy=False)


@op("MatMulInteger", 10)
def _matmul_integer(ctx: Ctx, a: Any, b: Any, a_zero: Any = None, b_zero: Any = None) -> Any:
    a32 = a.astype(np.int32) - (0 if a_zero is None else a_zero.astype(np.int32))
    bz = 0 if b_zero is None else b_zero.astype(np.int32)
    b32 = b.astype(np.int32) - bz
    return np.matmul(a32, b32).astype(np.int32)


@op("Gemm")
def _gemm(ctx: Ctx, a: Any, b: Any, c: Any = None) -> Any:
    at = a.T if ctx.attrs.get("transA", 0) else a
    bt = b.T if ctx.attrs.get("transB", 0) else b
    y = ctx.attrs.get("alpha", 1.0) * np.matmul(blasable(at), blasable(bt))
    if c is not None:
        y = y + ctx.attrs.get("beta", 1.0) * c
    return y.astype(a.dtype)


def _flat_axis(ctx: Ctx, x: Any, default_old: int = 1) -> tuple[Any, int, tuple[int, ...]]:
    """(array to work on, axis, shape to restore): opsets before 13 coerce to 2-D."""
    if ctx.version >= 13:
        return x, ctx.attrs.get("axis", -1), x.shape
    axis = ctx.attrs.get("axis", default_old)
    if axis < 0:
        axis += x.ndim
    outer = int(np.prod(x.shape[:axis]))
    return x.reshape(outer, -1), 1, x.shape


def softmax(x: Any, axis: int) -> Any:
    """Softmax along ``axis``."""
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=axis, keepdims=True)


@op("Softmax")
def _softmax(ctx: Ctx, x: Any) -> Any:
    y, axis, shape = _flat_axis(ctx, x)
    return softmax(y, axis).reshape(shape).astype(x.dtype)


@op("LogSoftmax")
def _log_softmax(ctx: Ctx, x: Any) -> Any:
    y, axis, shape = _flat_axis(ctx, x)
    m = np.max(y, axis=axis, keepdims=True)
    z = y - m
    out = z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))
    return out.reshape(shape).astype(x.dtype)


@op("Hardmax")
def _hardmax(ctx: Ctx, x: Any) -> Any:
    y, axis, shape = _flat_axis(ctx, x)
    idx = np.expand_dims(np.argmax(y, axis=axis), axis)
    out = np.zeros_like(y)
    np.put_along_axis(out, idx, 1, axis=axis)
    return out.reshape(shape)


@op("Det", 11)
def _det(ctx: Ctx, x: Any) -> Any:
    return np.linalg.det(x).astype(x.dtype)
