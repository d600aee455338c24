"""ai.onnx.ml encoders: LabelEncoder, Binarizer, ArrayFeatureExtractor."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any
_ML = "ai.onnx.ml"


def _pick(a: dict[str, Any], kind: str) -> tuple[list[Any], Any]:
    for suffix, dtype in (("strings", object), ("int64s", np.int64), ("floats", np.float32)):
        values = a.get(f"{kind}_{suffix}")
        if values:
            return list(values), np.dtype(dtype)
    tensor = a.get(f"{kind}_tensor")
    if tensor is not None:
        return list(tensor.reshape(-1)), tensor.dtype
    return [], np.dtype(np.float32)


@op("LabelEncoder", 1, _ML)
def _label_encoder(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    keys, key_type = _pick(a, "keys")
    values, dtype = _pick(a, "values")
    if "default_tensor" in a:
        default = a["default_tensor"].reshape(-1)[0]
    elif dtype.kind == "O":
        default = a.get("default_string", "_Unused")
    elif dtype.kind in "iu":
        default = a.get("default_int64", -1)
    else:
        default = a.get("default_float", -0.0)
    table = {_key(k): v for k, v in zip(keys, values, strict=True)}
    if ctx.version < 4 and key_type.kind == "f":
        # a NaN key matches a NaN input from version 4 (its spec); before, as onnx and
        # onnxruntime compare floats, never
        table.pop("nan", None)
    flat = [table.get(_key(k), default) for k in x.reshape(-1)]
    return np.array(flat, dtype=dtype).reshape(x.shape)


def _key(k: Any) -> Any:
    if isinstance(k, bytes):
        return k.decode("utf-8")
    if isinstance(k, (float, np.floating)):
        return "nan" if np.isnan(k) else float(k)
    if isinstance(k, np.integer):
        return int(k)
    return k


@op("Binarizer", 1, _ML)
def _binarizer(ctx: Ctx, x: Any) -> Any:
    return (x > ctx.attrs.get("threshold", 0.0)).astype(x.dtype)


@op("ArrayFeatureExtractor", 1, _ML)
def _array_feature_extractor(ctx: Ctx, x: Any, indices: Any) -> Any:
    y = np.take(x, indices.reshape(-1).astype(np.int64), axis=-1)
    if x.ndim == 1:
        return y.reshape(1, -1)
    return y
