"""Casts and type-level operators: Cast, CastLike, BitCast."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.tensors import numpy_dtype

Ctx = Any

_FLOAT8_MAX = {
    "float8_e4m3fn": 448.0,
    "float8_e4m3fnuz": 240.0,
    "float8_e5m2": 57344.0,
    "float8_e5m2fnuz": 57344.0,
}


def _to_string(x: Any) -> Any:
    if x.dtype == object:
        return x.copy()
    if x.dtype.kind == "f" or x.dtype.kind == "V" or x.dtype.name not in np.sctypeDict:
        values = x.astype(np.float32) if x.dtype.kind != "f" else x
        return np.array([_float_text(v) for v in values.reshape(-1)], dtype=object).reshape(x.shape)
    return np.array([str(v) for v in x.reshape(-1).tolist()], dtype=object).reshape(x.shape)


def _float_text(v: Any) -> str:
    # numpy's text of the value ('nan', 'inf', '-inf' included), as onnx's evaluator writes
    # it (astype(np.str_)); onnxruntime writes 'NaN', 'INF' and '-INF' instead
    return str(v)


def cast(x: Any, dtype: Any, saturate: bool = True) -> Any:
    """``x`` as ``dtype`` with ONNX's Cast rules (strings, saturation of small floats)."""
    if dtype.kind == "O":
        return _to_string(x)
    if x.dtype == object:
        values = np.array(
            [_parse(v) for v in x.reshape(-1)], dtype=np.float64 if dtype.kind in "fV" else object
        )
        return values.astype(dtype).reshape(x.shape)
    name = dtype.name
    if name in _FLOAT8_MAX:
        source = x.astype(np.float32) if x.dtype.kind != "f" else x
        if saturate:
            m = _FLOAT8_MAX[name]
            source = np.where(np.isinf(source) | (np.abs(source) > m), np.sign(source) * m, source)
        elif "fn" in name and x.dtype.kind == "f":
            # no infinity in these formats: out of range becomes NaN
            source = np.where(np.isinf(source), np.nan, source)
        return source.astype(dtype)
    if name in ("int4", "uint4", "int2", "uint2"):
        bits = 4 if "4" in name else 2
        signed = name.startswith("int")
        # a float goes toward zero then wraps, as into any integer type (numpy's, ml_dtypes')
        values = np.trunc(x.astype(np.float64)) if x.dtype.kind == "f" else x.astype(np.int64)
        span = 1 << bits
        ints = values.astype(np.int64) & (span - 1)
        if signed:
            ints = np.where(ints >= span // 2, ints - span, ints)
        return ints.astype(dtype)
    if x.dtype.kind in "f" and dtype.kind in "iu":
        with np.errstate(all="ignore"):
            return x.astype(dtype)
    return x.astype(dtype)


def _parse(v: Any) -> Any:
    text = v.decode() if isinstance(v, bytes) else str(v)
    low = text.strip().lower()
    if low in ("inf", "+inf", "infinity"):
        return np.inf
    if low in ("-inf", "-infinity"):
        return -np.inf
    if low == "nan":
        return np.nan
    try:
        return int(text)
    except ValueError:
        return float(text)


@op("Cast")
def _cast(ctx: Ctx, x: Any) -> Any:
    return cast(x, numpy_dtype(ctx.attrs["to"]), bool(ctx.attrs.get("saturate", 1)))


@op("CastLike", 15)
def _cast_like(ctx: Ctx, x: Any, like: Any) -> Any:
    return cast(x, like.dtype, bool(ctx.attrs.get("saturate", 1)))


@op("BitCast", 26)
def _bitcast(ctx: Ctx, x: Any) -> Any:
    dtype = numpy_dtype(ctx.attrs["to"])
    return np.ascontiguousarray(x).view(dtype).reshape(x.shape)
