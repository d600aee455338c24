"""What the ai.onnx.ml families share: the post transforms, class labels, bad attributes.

Not a family (it registers nothing): the families of ``wirecodec.reference.ops.ml`` import
it. The post transforms follow onnx's definitions: LOGISTIC is the sigmoid, SOFTMAX the
row-wise softmax, SOFTMAX_ZERO a softmax that leaves zeros (|v| <= 1e-7) near zero and gives
0.5 everywhere to a row that sums to zero, PROBIT ``sqrt(2) * erfinv(2v - 1)`` with the
closed-form approximation of erfinv (a = 0.147) onnx and onnxruntime use.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.errors import EvaluationError

Ctx = Any

POST_TRANSFORMS = ("NONE", "SOFTMAX", "LOGISTIC", "SOFTMAX_ZERO", "PROBIT")


def bad(ctx: Ctx, reason: str) -> EvaluationError:
    """An error naming the node (its path) and what is wrong with it."""
    return EvaluationError(f"{ctx.op_type}: {reason}", ctx.path)


def post_transform_name(ctx: Ctx) -> str:
    """The node's ``post_transform`` (a string before TreeEnsemble, an index from it)."""
    value = ctx.attrs.get("post_transform", "NONE")
    if isinstance(value, int) and 0 <= value < len(POST_TRANSFORMS):
        return POST_TRANSFORMS[value]
    if value not in POST_TRANSFORMS:
        raise bad(ctx, f"post_transform {value!r} is not one of {', '.join(POST_TRANSFORMS)}")
    return str(value)


def logistic(values: Any) -> Any:
    """The sigmoid, without overflow for large negative values."""
    positive = 1.0 / (1.0 + np.exp(-np.abs(values)))
    return np.where(values < 0, 1.0 - positive, positive)


def probit(values: Any) -> Any:
    """``sqrt(2) * erfinv(2 v - 1)`` by the approximation onnx uses (0 where 2v-1 is +-1)."""
    x = 2.0 * values - 1.0
    sign = np.where(x < 0, -1.0, 1.0)
    t = (1.0 - x) * (1.0 + x)
    with np.errstate(divide="ignore", invalid="ignore"):
        log = np.log(t)
        v = 2.0 / (np.pi * 0.147) + 0.5 * log
        inner = -v + np.sqrt(v * v - log / 0.147)
        result = sign * np.sqrt(inner)
    return 1.41421356 * np.where(t == 0, 0.0, result)


def softmax(values: Any) -> Any:
    """Row-wise softmax of a 2-D array."""
    e = np.exp(values - values.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_zero(values: Any) -> Any:
    """Row-wise softmax in which zeros stay (near) zero; a row of zeros becomes 0.5s."""
    top = values.max(axis=1, keepdims=True)
    nonzero = np.abs(values) > 1e-7
    e = np.where(nonzero, np.exp(values - top), values * np.exp(-top))
    total = e.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total == 0, 0.5, e / np.where(total == 0, 1.0, total))


def apply_post_transform(name: str, scores: Any) -> Any:
    """``scores`` (2-D) after the named transform."""
    if name == "LOGISTIC":
        return logistic(scores)
    if name == "SOFTMAX":
        return softmax(scores)
    if name == "SOFTMAX_ZERO":
        return softmax_zero(scores)
    if name == "PROBIT":
        return probit(scores)
    return scores


def class_labels(ctx: Ctx, ints: str, strings: str) -> Any:
    """The node's class labels as an array (int64 or strings), or None when it has none."""
    labels_s = ctx.attrs.get(strings)
    if labels_s:
        return np.array(list(labels_s), dtype=object)
    labels_i = ctx.attrs.get(ints)
    if labels_i:
        return np.array(list(labels_i), dtype=np.int64)
    return None


def label_of(labels: Any, index: Any) -> Any:
    """The labels picked by ``index`` (the index itself, as int64, when there are none)."""
    if labels is None:
        return np.asarray(index, dtype=np.int64)
    return labels[index]


def as_rows(ctx: Ctx, x: Any, dtype: Any = None) -> Any:
    """The input as a 2-D array of rows (a 1-D input is one row), in a float type: float64
    stays, anything else becomes float32 (as onnx computes) unless ``dtype`` says."""
    if not isinstance(x, np.ndarray):
        raise bad(ctx, f"the input is a {type(x).__name__}, not a tensor")
    if x.ndim == 1:
        x = x.reshape(1, -1)
    elif x.ndim != 2:
        raise bad(ctx, f"the input has shape {list(x.shape)}; it takes [N, C] or [C]")
    if dtype is None:
        dtype = np.float64 if x.dtype == np.float64 else np.float32
    return x.astype(dtype, copy=False)


def floats(ctx: Ctx, name: str, required: bool = True) -> Any:
    """A float attribute list (or its ``*_as_tensor`` twin) as a float64 array."""
    tensor = ctx.attrs.get(f"{name}_as_tensor")
    if tensor is not None:
        return np.asarray(tensor, dtype=np.float64).reshape(-1)
    values = ctx.attrs.get(name)
    if values is None:
        if required:
            raise bad(ctx, f"attribute {name!r} is missing")
        return None
    return np.asarray(values, dtype=np.float32).astype(np.float64)
