"""ai.onnx.ml operators between maps and tensors: DictVectorizer, ZipMap, CastMap,
CategoryMapper.

A map is a Python dict and a sequence of maps a list of them, as onnx and onnxruntime
take and give them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._errors import OperatorError
from wirecodec.reference._registry import op
from wirecodec.reference.ops.ml.common import bad

Ctx = Any
_ML = "ai.onnx.ml"


def _key(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.str_):
        return str(value)
    return value


def _dtype_of(values: list[Any]) -> Any:
    """The tensor type of a map's values: a numpy scalar's own, str -> string, an int ->
    int64, a float -> float32 (maps of floats are what converters declare)."""
    for value in values:
        if isinstance(value, (np.generic, np.ndarray)):  # a 0-d array too, as onnx's tests feed
            return np.dtype(object) if isinstance(value, np.str_) else value.dtype
        if isinstance(value, (str, bytes)):
            return np.dtype(object)
        if isinstance(value, (bool, int)):
            return np.dtype(np.int64)
        return np.dtype(np.float32)
    return np.dtype(np.float32)


@op("DictVectorizer", 1, _ML)
def _dict_vectorizer(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    vocabulary = list(a.get("string_vocabulary") or a.get("int64_vocabulary") or [])
    if not vocabulary:
        raise bad(ctx, "neither string_vocabulary nor int64_vocabulary is given")
    maps = [x] if isinstance(x, dict) else x
    if not isinstance(maps, (list, tuple)) or not all(isinstance(m, dict) for m in maps):
        raise bad(ctx, f"the input is a {type(x).__name__}; it takes a map or a sequence of maps")
    column = {v: i for i, v in enumerate(vocabulary)}
    values = [v for m in maps for v in m.values()]
    dtype = _dtype_of(values)
    out = np.zeros((len(maps), len(vocabulary)), dtype=dtype)
    if dtype.kind == "O":
        out[...] = ""
    for r, m in enumerate(maps):
        for key, value in m.items():
            c = column.get(_key(key))
            if c is not None:
                out[r, c] = value
    # one map gives one row, 1-D: the schema's "1-D tensor holding values from the input
    # dictionary", as onnx's evaluator gives it (onnxruntime gives it as [1, V])
    return out[0] if isinstance(x, dict) else out


@op("ZipMap", 1, _ML)
def _zip_map(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    labels: list[Any] = list(a.get("classlabels_strings") or []) or [
        int(v) for v in a.get("classlabels_int64s") or []
    ]
    if not labels:
        raise bad(ctx, "neither classlabels_strings nor classlabels_int64s is given")
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    if rows.ndim != 2 or rows.shape[1] != len(labels):
        raise bad(
            ctx, f"the input has shape {list(x.shape)}; it takes [N, {len(labels)}] (one column per label)"
        )
    return [dict(zip(labels, row, strict=True)) for row in rows.astype(np.float32).tolist()]


@op("CastMap", 1, _ML)
def _cast_map(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    if not isinstance(x, dict):
        raise bad(ctx, f"the input is a {type(x).__name__}; it takes a map from int64")
    cast_to = a.get("cast_to", "TO_FLOAT")
    types = {"TO_FLOAT": np.float32, "TO_STRING": object, "TO_INT64": np.int64}
    if cast_to not in types:
        raise bad(ctx, f"cast_to {cast_to!r} is not one of {', '.join(types)}")
    form = a.get("map_form", "DENSE")
    items = sorted((int(k), v) for k, v in x.items())
    if form == "DENSE":
        values = [v for _, v in items]
    elif form == "SPARSE":
        size = int(a.get("max_map", 1))
        if size < 1:
            raise bad(ctx, f"max_map is {size}; a SPARSE map needs a positive size")
        if items and items[0][0] < 0:  # (sorted: a negative key comes first)
            raise _negative_key(ctx, items[0][0])
        values = [0.0 if cast_to != "TO_STRING" else "0"] * size
        for k, v in items:
            if k < size:  # a key past max_map is left out, as onnxruntime does
                values[k] = v
    else:
        raise bad(ctx, f"map_form {form!r} is not DENSE or SPARSE")
    if cast_to == "TO_STRING":
        out = np.array([v if isinstance(v, str) else str(v) for v in values], dtype=object)
    elif cast_to == "TO_INT64":
        out = np.array([float(v) for v in values], dtype=np.float64).astype(np.int64)
    else:
        out = np.array([float(v) for v in values], dtype=np.float32)
    return out.reshape(1, -1)


def _negative_key(ctx: Ctx, key: int) -> OperatorError:
    """A SPARSE map's keys are the output's indices: onnxruntime refuses a negative one
    ("Negative index values are not permitted"), and so do we, rather than drop its value."""
    error = OperatorError(
        f"{ctx.op_type}: key {key} of the input map is negative; map_form SPARSE takes "
        "keys from 0 (they index the output)",
        ctx.path,
    )
    error.__cause__ = ValueError(f"Negative index values are not permitted (key {key})")
    return error


@op("CategoryMapper", 1, _ML)
def _category_mapper(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    strings = list(a.get("cats_strings") or [])
    ints = [int(v) for v in a.get("cats_int64s") or []]
    if len(strings) != len(ints):
        raise bad(
            ctx, f"cats_strings has {len(strings)} values and cats_int64s {len(ints)}; they must pair up"
        )
    if x.dtype == object:
        table: dict[Any, Any] = dict(zip(strings, ints, strict=True))
        default: Any = int(a.get("default_int64", -1))
        flat = [table.get(_key(k), default) for k in x.reshape(-1)]
        return np.array(flat, dtype=np.int64).reshape(x.shape)
    table = dict(zip(ints, strings, strict=True))
    default = a.get("default_string", "_Unused")
    flat = [table.get(int(k), default) for k in x.reshape(-1)]
    return np.array(flat, dtype=object).reshape(x.shape)
