"""ai.onnx.ml feature preprocessing: Scaler, Normalizer, Imputer, OneHotEncoder,
FeatureVectorizer."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.ml.common import as_rows, bad, floats

Ctx = Any
_ML = "ai.onnx.ml"


def _per_column(ctx: Ctx, name: str, values: Any, columns: int) -> Any:
    if values.size not in (1, columns):
        raise bad(ctx, f"{name} has {values.size} values for {columns} columns (it takes 1 or {columns})")
    return values


@op("Scaler", 1, _ML)
def _scaler(ctx: Ctx, x: Any) -> Any:
    columns = x.shape[-1] if x.ndim else 1
    offset = floats(ctx, "offset", required=False)
    scale = floats(ctx, "scale", required=False)
    offset = _per_column(
        ctx, "offset", offset if offset is not None and offset.size else np.zeros(1), columns
    )
    scale = _per_column(ctx, "scale", scale if scale is not None and scale.size else np.ones(1), columns)
    dtype = np.float64 if x.dtype == np.float64 else np.float32
    data = x.astype(dtype)
    return ((data - offset.astype(dtype)) * scale.astype(dtype)).astype(np.float32)


@op("Normalizer", 1, _ML)
def _normalizer(ctx: Ctx, x: Any) -> Any:
    norm = ctx.attrs.get("norm", "MAX")
    rows = as_rows(ctx, x)
    if norm == "MAX":
        divisor = np.abs(rows).max(axis=1, keepdims=True, initial=0)
    elif norm == "L1":
        divisor = np.abs(rows).sum(axis=1, keepdims=True)
    elif norm == "L2":
        divisor = np.sqrt(np.square(rows).sum(axis=1, keepdims=True))
    else:
        raise bad(ctx, f"norm {norm!r} is not one of MAX, L1, L2")
    out = rows / np.maximum(divisor, 1e-30)
    return out.reshape(x.shape).astype(np.float32)


@op("Imputer", 1, _ML)
def _imputer(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    if a.get("imputed_value_floats"):
        values = np.array(a["imputed_value_floats"], dtype=np.float32)
        replaced: Any = a.get("replaced_value_float", 0.0)
    elif a.get("imputed_value_int64s"):
        values = np.array(a["imputed_value_int64s"], dtype=np.int64)
        replaced = a.get("replaced_value_int64", 0)
    else:
        raise bad(ctx, "neither imputed_value_floats nor imputed_value_int64s is given")
    if x.ndim not in (1, 2):
        raise bad(ctx, f"the input has shape {list(x.shape)}; it takes [N, C] or [C]")
    columns = x.shape[-1]
    _per_column(ctx, "the imputed values", values, columns)
    out = x.copy()
    fill = np.broadcast_to(values.astype(x.dtype), (columns,))
    if isinstance(replaced, float) and np.isnan(replaced):
        hit = np.isnan(out) if out.dtype.kind == "f" else np.zeros(out.shape, dtype=bool)
    else:
        hit = out == replaced
    out[hit] = np.broadcast_to(fill, out.shape)[hit]
    return out


@op("OneHotEncoder", 1, _ML)
def _one_hot_encoder(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    if x.dtype.kind in "OUS":  # numpy's fixed-width text too
        x = x.astype(object)
        categories: list[Any] = list(a.get("cats_strings") or [])
        keys = [k.decode("utf-8") if isinstance(k, bytes) else k for k in x.reshape(-1)]
    else:
        categories = list(a.get("cats_int64s") or [])
        keys = x.reshape(-1).astype(np.int64).tolist()
    if not categories:
        kind = "cats_strings" if x.dtype == object else "cats_int64s"
        raise bad(ctx, f"there are no categories for a {x.dtype} input ({kind} is empty)")
    index = {c: i for i, c in enumerate(categories)}
    column = np.array([index.get(k, -1) for k in keys], dtype=np.int64)
    out = np.zeros((column.size, len(categories)), dtype=np.float32)
    found = column >= 0
    out[np.flatnonzero(found), column[found]] = 1.0
    if not a.get("zeros", 1) and not found.all():
        first = keys[int(np.flatnonzero(~found)[0])]
        raise bad(ctx, f"{first!r} is not a category and zeros=0 (an unknown value is an error)")
    return out.reshape((*x.shape, len(categories)))


@op("FeatureVectorizer", 1, _ML)
def _feature_vectorizer(ctx: Ctx, *inputs: Any) -> Any:
    widths = list(ctx.attrs.get("inputdimensions") or [])
    if len(widths) != len(inputs):
        raise bad(ctx, f"inputdimensions has {len(widths)} values for {len(inputs)} inputs")
    parts = []
    for k, (value, width) in enumerate(zip(inputs, widths, strict=True)):
        block = value.reshape(-1, 1) if value.ndim == 1 else value
        if block.ndim != 2:
            raise bad(ctx, f"input {k} has shape {list(value.shape)}; it takes 1 or 2 dimensions")
        block = block.astype(np.float32)
        if block.shape[1] > width:
            block = block[:, :width]
        elif block.shape[1] < width:
            block = np.concatenate(
                [block, np.zeros((block.shape[0], width - block.shape[1]), np.float32)], axis=1
            )
        parts.append(block)
    rows = {p.shape[0] for p in parts}
    if len(rows) > 1:
        raise bad(ctx, f"the inputs have different numbers of rows: {sorted(rows)}")
    return np.concatenate(parts, axis=1)
