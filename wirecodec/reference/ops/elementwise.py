"""Elementwise operators: arithmetic, comparisons, logic, bitwise, unary math, activations."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def _same(x: Any, y: Any) -> Any:
    """``y`` as an array of ``x``'s dtype (numpy promotes scalars and mixed types)."""
    y = np.asarray(y)
    return y if y.dtype == x.dtype else y.astype(x.dtype)


def _unary(name: str, fn: Callable[[Any], Any], since: int = 1) -> None:
    def impl(ctx: Ctx, x: Any) -> Any:
        with np.errstate(all="ignore"):
            return _same(x, fn(x))

    op(name, since)(impl)


_erf = np.vectorize(math.erf, otypes=[np.float64])

_UNARY: dict[str, Callable[[Any], Any]] = {
    "Abs": np.abs,
    "Neg": np.negative,
    "Exp": np.exp,
    "Log": np.log,
    "Sqrt": np.sqrt,
    "Reciprocal": np.reciprocal,
    "Floor": np.floor,
    "Ceil": np.ceil,
    "Sign": np.sign,
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Tanh": np.tanh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
    "Round": np.round,
    "Relu": lambda x: np.maximum(x, 0),
    "Sigmoid": lambda x: _sigmoid(x),
    "Softsign": lambda x: x / (1 + np.abs(x)),
    "Softplus": lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0),
    "Erf": lambda x: _erf(x),
    "Mish": lambda x: x * np.tanh(np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)),
    "HardSwish": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "Not": np.logical_not,
    "BitwiseNot": np.invert,
}
for _name, _fn in _UNARY.items():
    _unary(_name, _fn)


def _sigmoid(x: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))


@op("IsNaN", 9)
def _isnan(ctx: Ctx, x: Any) -> Any:
    return np.isnan(x.astype(np.float32) if x.dtype.kind not in "fc" else x)


@op("IsInf", 10)
def _isinf(ctx: Ctx, x: Any) -> Any:
    x = x.astype(np.float32) if x.dtype.kind not in "fc" else x
    positive, negative = ctx.attrs.get("detect_positive", 1), ctx.attrs.get("detect_negative", 1)
    return (np.isposinf(x) if positive else np.zeros(x.shape, bool)) | (
        np.isneginf(x) if negative else np.zeros(x.shape, bool)
    )


def _wide(x: Any) -> Any:
    """16-bit floats computed in float32 (rounded once, at the end)."""
    return x.astype(np.float32) if x.dtype.kind in "fV" and x.dtype.itemsize < 4 else x


def _attr_unary(name: str, fn: Callable[[Any, dict[str, Any]], Any]) -> None:
    def impl(ctx: Ctx, x: Any) -> Any:
        with np.errstate(all="ignore"):
            return _same(x, fn(_wide(x), ctx.attrs))

    op(name)(impl)


_attr_unary("LeakyRelu", lambda x, a: np.where(x >= 0, x, x * a["alpha"]))  # default: the schema
_attr_unary("Elu", lambda x, a: np.where(x >= 0, x, a.get("alpha", 1.0) * np.expm1(x)))
_attr_unary(
    "Selu",
    lambda x, a: (
        a.get("gamma", 1.0507009873554805)
        * np.where(x > 0, x, a.get("alpha", 1.6732632423543772) * np.expm1(x))
    ),
)
_attr_unary(
    "Celu",
    lambda x, a: np.maximum(0, x) + np.minimum(0, a.get("alpha", 1.0) * np.expm1(x / a.get("alpha", 1.0))),
)
_attr_unary("ThresholdedRelu", lambda x, a: np.where(x > a.get("alpha", 1.0), x, 0))
_attr_unary("HardSigmoid", lambda x, a: np.clip(a.get("alpha", 0.2) * x + a.get("beta", 0.5), 0, 1))
_attr_unary(
    "Shrink",
    lambda x, a: np.where(
        x < -a.get("lambd", 0.5),
        x + a.get("bias", 0.0),
        np.where(x > a.get("lambd", 0.5), x - a.get("bias", 0.0), 0),
    ),
)


@op("Gelu", 20)
def _gelu(ctx: Ctx, x: Any) -> Any:
    if ctx.attrs.get("approximate", "none") == "tanh":
        y = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    else:
        y = 0.5 * x * (1 + _erf(x / np.sqrt(2)))
    return _same(x, y)


@op("PRelu")
def _prelu(ctx: Ctx, x: Any, slope: Any) -> Any:
    return _same(x, np.where(x >= 0, x, x * slope))


@op("Clip")
def _clip(ctx: Ctx, x: Any, low: Any = None, high: Any = None) -> Any:
    if ctx.version < 11:
        low, high = ctx.attrs.get("min", -3.4028234663852886e38), ctx.attrs.get("max", 3.4028234663852886e38)
    y = x
    if low is not None:
        y = np.maximum(y, _same(x, low))
    if high is not None:
        y = np.minimum(y, _same(x, high))
    return _same(x, y)


def _binary(name: str, fn: Callable[[Any, Any], Any], keep: bool = True) -> None:
    def impl(ctx: Ctx, a: Any, b: Any) -> Any:
        with np.errstate(all="ignore"):
            y = fn(a, b)
        return _same(a, y) if keep else np.asarray(y)

    op(name)(impl)


def _div(a: Any, b: Any) -> Any:
    if a.dtype.kind in "iu":
        with np.errstate(all="ignore"):
            q = np.trunc(a.astype(np.float64) / b.astype(np.float64))
        return q
    return a / b


_binary("Add", np.add)
_binary("Sub", np.subtract)
_binary("Mul", np.multiply)
_binary("Div", _div)
_binary("Equal", np.equal, keep=False)
_binary("Greater", np.greater, keep=False)
_binary("Less", np.less, keep=False)
_binary("GreaterOrEqual", np.greater_equal, keep=False)
_binary("LessOrEqual", np.less_equal, keep=False)
_binary("And", np.logical_and, keep=False)
_binary("Or", np.logical_or, keep=False)
_binary("Xor", np.logical_xor, keep=False)
_binary("BitwiseAnd", np.bitwise_and)
_binary("BitwiseOr", np.bitwise_or)
_binary("BitwiseXor", np.bitwise_xor)


@op("Pow")
def _pow(ctx: Ctx, a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        if a.dtype.kind in "iu" and b.dtype.kind in "iu":
            return _same(a, np.power(a.astype(np.int64), b.astype(np.int64)))
        return _same(a, np.power(a.astype(np.float64) if a.dtype.kind in "iu" else a, b))


@op("Mod", 10)
def _mod(ctx: Ctx, a: Any, b: Any) -> Any:
    with np.errstate(all="ignore"):
        if ctx.attrs.get("fmod", 0):
            return _same(a, np.fmod(a, b))
        return _same(a, np.mod(a, b))


@op("BitShift", 11)
def _bitshift(ctx: Ctx, a: Any, b: Any) -> Any:
    if ctx.attrs.get("direction") == "LEFT":
        return _same(a, np.left_shift(a, b))
    return _same(a, np.right_shift(a, b))


def _variadic(name: str, fn: Callable[[Any, Any], Any]) -> None:
    def impl(ctx: Ctx, *xs: Any) -> Any:
        out = xs[0]
        for x in xs[1:]:
            out = fn(out, x)
        return _same(xs[0], out)

    op(name)(impl)


_variadic("Max", np.maximum)
_variadic("Min", np.minimum)
_variadic("Sum", np.add)


@op("Mean")
def _mean(ctx: Ctx, *xs: Any) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = out + x
    return _same(xs[0], out / len(xs))


@op("Where", 9)
def _where(ctx: Ctx, cond: Any, a: Any, b: Any) -> Any:
    return np.where(cond, a, b).astype(a.dtype)


def _swish_of(x: Any, alpha: float) -> Any:
    """Swish's function body, node by node: CastLike(float32 alpha, X), Mul, Sigmoid, Mul,
    each rounded to X's type as the body's nodes are (compiling the body for every
    evaluator built cost more than running it)."""
    with np.errstate(all="ignore"):
        scaled = _same(x, np.asarray(np.float32(alpha)).astype(x.dtype) * x)
        return _same(x, x * _same(scaled, _sigmoid(scaled)))


@op("Swish", 24)
def _swish(ctx: Ctx, x: Any) -> Any:
    return _swish_of(x, ctx.attrs.get("alpha", 1.0))


@op("SwiGLU", 28)
def _swiglu(ctx: Ctx, a: Any, b: Any) -> Any:
    if a.shape != b.shape:
        raise ValueError(f"SwiGLU takes inputs of identical shapes, got {a.shape} and {b.shape}")
    if a.dtype != b.dtype:
        raise ValueError(f"SwiGLU takes inputs of identical dtypes, got {a.dtype} and {b.dtype}")
    gate = _swish_of(a, ctx.attrs.get("alpha", 1.0))
    with np.errstate(all="ignore"):
        return _same(gate, gate * b)
