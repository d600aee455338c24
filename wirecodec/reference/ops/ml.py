"""ai.onnx.ml operators: LabelEncoder, Binarizer, ArrayFeatureExtractor, TreeEnsemble (opset 5)."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.ml_common import apply_post_transform, post_transform_name

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
    keys, _ = _pick(a, "keys")
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


def _branch(mode: int, value: float, split: float, members: set[float]) -> bool:
    if mode == 0:
        return value <= split
    if mode == 1:
        return value < split
    if mode == 2:
        return value >= split
    if mode == 3:
        return value > split
    if mode == 4:
        return value == split
    if mode == 5:
        return value != split
    return value in members


@op("TreeEnsemble", 5, _ML)
def _tree_ensemble(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    features = a["nodes_featureids"]
    splits = a["nodes_splits"].reshape(-1).astype(np.float64)
    modes = a["nodes_modes"].reshape(-1).astype(np.int64)
    true_ids, true_leaf = a["nodes_truenodeids"], a.get("nodes_trueleafs") or [0] * len(features)
    false_ids, false_leaf = a["nodes_falsenodeids"], a.get("nodes_falseleafs") or [0] * len(features)
    missing_true = a.get("nodes_missing_value_tracks_true") or [0] * len(features)
    members: dict[int, set[float]] = {}
    if a.get("membership_values") is not None:
        groups = iter(a["membership_values"].reshape(-1).tolist())
        for node, mode in enumerate(modes):
            if mode == 6:
                found: set[float] = set()
                for v in groups:
                    if np.isnan(v):
                        break
                    found.add(v)
                members[node] = found
    leaf_targets = a["leaf_targetids"]
    leaf_weights = a["leaf_weights"].reshape(-1).astype(np.float64)
    n_targets = a["n_targets"]
    roots = a["tree_roots"]
    agg = a.get("aggregate_function", 1)
    rows = x.reshape(x.shape[0], -1).astype(np.float64)
    out = np.zeros((rows.shape[0], n_targets))
    for r, row in enumerate(rows):
        per_tree = []
        for root in roots:
            node, is_leaf = root, False
            while not is_leaf:
                value = row[features[node]]
                if np.isnan(value):
                    go_true = bool(missing_true[node])
                else:
                    go_true = _branch(int(modes[node]), value, splits[node], members.get(node, set()))
                node, is_leaf = (
                    (true_ids[node], bool(true_leaf[node]))
                    if go_true
                    else (
                        false_ids[node],
                        bool(false_leaf[node]),
                    )
                )
            per_tree.append(node)
        scores = [[] for _ in range(n_targets)]  # type: list[list[float]]
        for leaf in per_tree:
            scores[leaf_targets[leaf]].append(leaf_weights[leaf])
        for t in range(n_targets):
            values = scores[t]
            if not values:
                continue
            if agg == 0:
                out[r, t] = sum(values) / len(roots)
            elif agg == 2:
                out[r, t] = min(values)
            elif agg == 3:
                out[r, t] = max(values)
            else:
                out[r, t] = sum(values)
    out = apply_post_transform(post_transform_name(ctx), out)
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float32)
