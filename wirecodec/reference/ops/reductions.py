"""Reductions: Reduce*, ArgMax/ArgMin, CumSum/CumProd."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any

# since this opset the axes are an input, not an attribute
_AXES_INPUT = {"ReduceSum": 13}


def _reduction(name: str, fn: Callable[..., Any], keep_int: bool = True) -> None:
    def impl(ctx: Ctx, x: Any, axes: Any = None) -> Any:
        if axes is None and ctx.version < _AXES_INPUT.get(name, 18):
            axes = ctx.attrs.get("axes")
        keep = bool(ctx.attrs.get("keepdims", 1))
        if axes is None or len(axes) == 0:
            # with noop_with_empty_axes each element is reduced alone: ReduceSumSquare squares it
            found: tuple[int, ...] | None = () if ctx.attrs.get("noop_with_empty_axes", 0) else None
        else:
            found = tuple(int(a) for a in np.asarray(axes).reshape(-1))
        with np.errstate(all="ignore"):
            y = fn(x, found, keep)
        return np.asarray(y).astype(x.dtype)

    op(name)(impl)


def _empty_max(x: Any, axes: Any, keep: bool) -> Any:
    if x.size == 0:
        fill = -np.inf if x.dtype.kind == "f" else False if x.dtype.kind == "b" else np.iinfo(x.dtype).min
        return _empty(x, axes, keep, fill)
    return np.max(x, axis=axes, keepdims=keep)


def _empty_min(x: Any, axes: Any, keep: bool) -> Any:
    if x.size == 0:
        fill = np.inf if x.dtype.kind == "f" else True if x.dtype.kind == "b" else np.iinfo(x.dtype).max
        return _empty(x, axes, keep, fill)
    return np.min(x, axis=axes, keepdims=keep)


def _empty(x: Any, axes: Any, keep: bool, fill: Any) -> Any:
    shape = np.sum(np.zeros(x.shape), axis=axes, keepdims=keep).shape
    return np.full(shape, fill, dtype=x.dtype)


def _logsumexp(x: Any, axes: Any, keep: bool) -> Any:
    if x.size == 0:
        return np.log(np.sum(x, axis=axes, keepdims=keep))
    m = np.max(x, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    y = np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m
    return y if keep else np.squeeze(y, axis=axes)


_reduction("ReduceSum", lambda x, a, k: np.sum(x, axis=a, keepdims=k))
_reduction("ReduceMean", lambda x, a, k: np.mean(x, axis=a, keepdims=k))
_reduction("ReduceMax", _empty_max)
_reduction("ReduceMin", _empty_min)
_reduction("ReduceProd", lambda x, a, k: np.prod(x, axis=a, keepdims=k))
_reduction("ReduceL1", lambda x, a, k: np.sum(np.abs(x), axis=a, keepdims=k))
_reduction("ReduceL2", lambda x, a, k: np.sqrt(np.sum(np.square(x), axis=a, keepdims=k)))


def _floats_only(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` refusing integer input: a logarithm is defined for floats only, at every version
    (the schemas before 28 list integers; onnx's evaluator refuses them too, onnx/onnx#7141)."""

    def reduce(x: Any, axes: Any, keep: bool) -> Any:
        if x.dtype.kind in "iu":
            raise TypeError(f"{name} does not support integer input ({x.dtype}): cast it to a float type")
        return fn(x, axes, keep)

    return reduce


_reduction(
    "ReduceLogSum", _floats_only("ReduceLogSum", lambda x, a, k: np.log(np.sum(x, axis=a, keepdims=k)))
)
_reduction("ReduceLogSumExp", _floats_only("ReduceLogSumExp", _logsumexp))
_reduction("ReduceSumSquare", lambda x, a, k: np.sum(np.square(x), axis=a, keepdims=k))


def _arg(name: str, fn: Callable[..., Any]) -> None:
    def impl(ctx: Ctx, x: Any) -> Any:
        axis = ctx.attrs.get("axis", 0)
        keep = ctx.attrs.get("keepdims", 1)
        if ctx.attrs.get("select_last_index", 0):
            flipped = np.flip(x, axis=axis)
            y = x.shape[axis] - 1 - fn(flipped, axis=axis)
        else:
            y = fn(x, axis=axis)
        if keep:
            y = np.expand_dims(y, axis)
        return np.asarray(y, dtype=np.int64)

    op(name)(impl)


_arg("ArgMax", np.argmax)
_arg("ArgMin", np.argmin)


def _cumulative(name: str, fn: Callable[..., Any]) -> None:
    def impl(ctx: Ctx, x: Any, axis: Any) -> Any:
        ax = int(np.asarray(axis).reshape(-1)[0])
        y = np.flip(x, ax) if ctx.attrs.get("reverse", 0) else x
        out = fn(y, axis=ax).astype(x.dtype)
        if ctx.attrs.get("exclusive", 0):
            identity = 0 if name == "CumSum" else 1
            pad = np.full_like(np.take(out, [0], axis=ax), identity)
            out = np.concatenate([pad, np.take(out, np.arange(out.shape[ax] - 1), axis=ax)], axis=ax)
        return np.flip(out, ax) if ctx.attrs.get("reverse", 0) else out

    op(name)(impl)


_cumulative("CumSum", np.cumsum)
_cumulative("CumProd", np.cumprod)
