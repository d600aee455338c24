"""``onnx.reference.ops.op_attention``: Attention and its masking and softmax helpers."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.onnx_compat.reference.ops._names.operators import operator_class


def _softmax(x: Any, axis: int = -1) -> Any:
    """Softmax along ``axis``; a row masked whole (every value ``-inf``) gives zeros, not NaN.

    >>> _softmax(np.array([[0.0, 0.0], [-np.inf, -np.inf]])).tolist()
    [[0.5, 0.5], [0.0, 0.0]]
    """
    x = np.asarray(x)
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isneginf(top), 0, top)  # a masked row: exp(-inf) = 0 everywhere, no inf - inf
    e = np.exp(x - top)
    total = np.sum(e, axis=axis, keepdims=True)
    return (e / np.where(total == 0, 1, total)).astype(x.dtype)


def _apply_causal(base: Any, offset: int) -> Any:
    """``base`` with ``-inf`` where a key comes after its query (column > row + ``offset``).

    >>> _apply_causal(np.zeros((2, 2)), 0).tolist()
    [[0.0, -inf], [0.0, 0.0]]
    """
    base = np.asarray(base)
    rows, cols = base.shape[-2:]
    later = np.arange(cols)[None, :] > np.arange(rows)[:, None] + offset
    return np.where(later, base.dtype.type(-np.inf), base).astype(base.dtype)


def _compute_attention(
    Q: Any,  # noqa: N803  (onnx's keyword name)
    K: Any,  # noqa: N803  (onnx's keyword name)
    V: Any,  # noqa: N803  (onnx's keyword name)
    attn_mask: Any = None,
    past_key: Any = None,
    past_value: Any = None,
    nonpad_kv_seqlen: Any = None,
    scale: float | None = None,
    is_causal: bool = False,
    q_num_heads: int | None = None,
    kv_num_heads: int | None = None,
    softmax_precision: int | None = None,
    softcap: float | None = None,
    qk_matmul_output_mode: int | None = None,
    left_window_size: int | None = None,
    right_window_size: int | None = None,
    **_: Any,
) -> tuple[Any, ...]:
    """One Attention (the latest opset's) on these inputs: (Y, present_key, present_value, qk)."""
    for name, size in (("left_window_size", left_window_size), ("right_window_size", right_window_size)):
        if size is not None and size < -1:
            raise ValueError(f"{name} must be -1 or nonnegative, got {size}")
    if (past_key is None) != (past_value is None):
        raise ValueError("past_key and past_value must be provided together")
    if nonpad_kv_seqlen is not None and past_key is not None:
        raise ValueError("nonpad_kv_seqlen cannot be combined with past cache tensors")
    attributes: dict[str, Any] = {"is_causal": int(bool(is_causal))}
    for name, value in (
        ("scale", scale),
        ("q_num_heads", q_num_heads),
        ("kv_num_heads", kv_num_heads),
        ("softmax_precision", softmax_precision),
        ("softcap", softcap),
        ("qk_matmul_output_mode", qk_matmul_output_mode),
        ("left_window_size", left_window_size),
        ("right_window_size", right_window_size),
    ):
        if value is not None:
            attributes[name] = value
    inputs = [Q, K, V, attn_mask, past_key, past_value, nonpad_kv_seqlen]
    while inputs[-1] is None:
        inputs.pop()
    attention = operator_class("Attention")
    return tuple(attention.eval(*inputs, n_outputs=4, **attributes))
