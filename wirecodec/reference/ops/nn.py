"""Neural-network layers: normalisations, dropout, losses, attention, rotary embedding."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.math import softmax

Ctx = Any


def _channel(v: Any, rank: int) -> Any:
    return v.reshape((1, -1) + (1,) * (rank - 2))


@op("BatchNormalization")
def _batch_norm(ctx: Ctx, x: Any, scale: Any, bias: Any, mean: Any, var: Any) -> Any:
    eps = ctx.attrs.get("epsilon", 1e-5)
    training = ctx.attrs.get("training_mode", 0) and ctx.version >= 14
    if training:
        axes = (0, *tuple(range(2, x.ndim)))
        batch_mean = x.mean(axis=axes)
        batch_var = x.var(axis=axes)
        momentum = ctx.attrs.get("momentum", 0.9)
        y = (x - _channel(batch_mean, x.ndim)) / np.sqrt(_channel(batch_var, x.ndim) + eps)
        y = y * _channel(scale, x.ndim) + _channel(bias, x.ndim)
        run_mean = mean * momentum + batch_mean * (1 - momentum)
        run_var = var * momentum + batch_var * (1 - momentum)
        return y.astype(x.dtype), run_mean.astype(mean.dtype), run_var.astype(var.dtype)
    y = (x - _channel(mean, x.ndim)) / np.sqrt(_channel(var, x.ndim) + eps)
    return (y * _channel(scale, x.ndim) + _channel(bias, x.ndim)).astype(x.dtype)


@op("InstanceNormalization")
def _instance_norm(ctx: Ctx, x: Any, scale: Any, bias: Any) -> Any:
    eps = ctx.attrs.get("epsilon", 1e-5)
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    y = (x - mean) / np.sqrt(var + eps) * _channel(scale, x.ndim) + _channel(bias, x.ndim)
    return y.astype(x.dtype)


@op("LayerNormalization", 17)
def _layer_norm(ctx: Ctx, x: Any, scale: Any, bias: Any = None) -> Any:
    axis = ctx.attrs.get("axis", -1)
    eps = ctx.attrs.get("epsilon", 1e-5)
    if axis < 0:
        axis += x.ndim
    axes = tuple(range(axis, x.ndim))
    stash = np.float32 if ctx.attrs.get("stash_type", 1) == 1 else x.dtype
    xf = x.astype(stash)
    mean = xf.mean(axis=axes, keepdims=True)
    var = ((xf - mean) ** 2).mean(axis=axes, keepdims=True)
    inv = 1 / np.sqrt(var + eps)
    y = (xf - mean) * inv * scale
    if bias is not None:
        y = y + bias
    return y.astype(x.dtype), mean.astype(stash), inv.astype(stash)


@op("RMSNormalization", 23)
def _rms_norm(ctx: Ctx, x: Any, scale: Any) -> Any:
    axis = ctx.attrs.get("axis", -1)
    eps = ctx.attrs.get("epsilon", 1e-5)
    if axis < 0:
        axis += x.ndim
    axes = tuple(range(axis, x.ndim))
    xf = x.astype(np.float32) if ctx.attrs.get("stash_type", 1) == 1 else x
    rms = np.sqrt((xf**2).mean(axis=axes, keepdims=True) + eps)
    return (xf / rms * scale).astype(x.dtype)


@op("GroupNormalization", 18)
def _group_norm(ctx: Ctx, x: Any, scale: Any, bias: Any) -> Any:
    groups = ctx.attrs["num_groups"]
    eps = ctx.attrs.get("epsilon", 1e-5)
    n, c = x.shape[:2]
    g = x.reshape((n, groups, -1)).astype(np.float32)
    mean = g.mean(axis=2, keepdims=True)
    var = g.var(axis=2, keepdims=True)
    y = ((g - mean) / np.sqrt(var + eps)).reshape(x.shape)
    if ctx.version >= 21 or scale.shape[0] == c:
        y = y * _channel(scale, x.ndim) + _channel(bias, x.ndim)
    else:  # opset 18: one scale and bias per group
        per = c // groups
        y = y * _channel(np.repeat(scale, per), x.ndim) + _channel(np.repeat(bias, per), x.ndim)
    return y.astype(x.dtype)


@op("LpNormalization")
def _lp_norm(ctx: Ctx, x: Any) -> Any:
    axis = ctx.attrs.get("axis", -1)
    p = ctx.attrs.get("p", 2)
    norm = np.sum(np.abs(x) ** p, axis=axis, keepdims=True) ** (1.0 / p)
    with np.errstate(all="ignore"):
        return np.where(norm == 0, 0, x / norm).astype(x.dtype)


@op("LRN")
def _lrn(ctx: Ctx, x: Any) -> Any:
    size = ctx.attrs["size"]
    alpha, beta, bias = ctx.attrs.get("alpha", 1e-4), ctx.attrs.get("beta", 0.75), ctx.attrs.get("bias", 1.0)
    sq = x.astype(np.float64) ** 2
    c = x.shape[1]
    total = np.zeros_like(sq)
    lo_off, hi_off = (size - 1) // 2, size // 2 + (size - 1) % 2 * 0
    hi_off = int(np.ceil((size - 1) / 2))
    for i in range(c):
        lo, hi = max(0, i - (size - 1) // 2), min(c - 1, i + hi_off)
        total[:, i] = sq[:, lo : hi + 1].sum(axis=1)
    del lo_off
    return (x / (bias + alpha / size * total) ** beta).astype(x.dtype)


@op("MeanVarianceNormalization", 9)
def _mvn(ctx: Ctx, x: Any) -> Any:
    axes = tuple(ctx.attrs.get("axes", [0, 2, 3]))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return ((x - mean) / np.sqrt(var + 1e-9)).astype(x.dtype)


@op("Dropout")
def _dropout(ctx: Ctx, x: Any, ratio: Any = None, training: Any = None) -> Any:
    train = training is not None and bool(training)
    if ctx.version < 12:
        train = not ctx.attrs.get("is_test", 1) if ctx.version < 7 else False
    if not train:
        return x, np.ones(x.shape, dtype=bool)
    r = 0.5 if ratio is None else float(ratio)
    if r == 0.0:  # nothing dropped: no generator to seed (x * 1 * 1.0 is x)
        return x, np.ones(x.shape, dtype=bool)
    seed = ctx.attrs.get("seed")
    rng = np.random.RandomState(seed)
    mask = rng.uniform(0, 1, x.shape) >= r
    scale = 1 / (1 - r) if r < 1 else 0
    return (x * mask * scale).astype(x.dtype), mask


@op("GlobalAveragePool")
def _global_avg(ctx: Ctx, x: Any) -> Any:
    return x.mean(axis=tuple(range(2, x.ndim)), keepdims=True).astype(x.dtype)


@op("GlobalMaxPool")
def _global_max(ctx: Ctx, x: Any) -> Any:
    return x.max(axis=tuple(range(2, x.ndim)), keepdims=True).astype(x.dtype)


@op("GlobalLpPool", 2)
def _global_lp(ctx: Ctx, x: Any) -> Any:
    p = ctx.attrs.get("p", 2)
    return (np.sum(np.abs(x) ** p, axis=tuple(range(2, x.ndim)), keepdims=True) ** (1 / p)).astype(x.dtype)


def _nll(log_prob: Any, target: Any, weight: Any, ignore: Any, reduction: str) -> Any:
    _n, _c = log_prob.shape[:2]
    t = target.astype(np.int64)
    valid = np.ones(t.shape, dtype=bool) if ignore is None else t != ignore
    safe = np.where(valid, t, 0)
    picked = np.take_along_axis(log_prob, np.expand_dims(safe, 1), axis=1).squeeze(1)
    w = np.ones(t.shape, dtype=log_prob.dtype) if weight is None else weight[safe]
    w = np.where(valid, w, 0).astype(log_prob.dtype)
    loss = -picked * w
    if reduction == "none":
        return loss.astype(log_prob.dtype)
    if reduction == "sum":
        return np.array(loss.sum(), dtype=log_prob.dtype)
    total = w.sum()
    return np.array(loss.sum() / total if total else 0.0, dtype=log_prob.dtype)


@op("NegativeLogLikelihoodLoss", 12)
def _nll_loss(ctx: Ctx, x: Any, target: Any, weight: Any = None) -> Any:
    return _nll(x, target, weight, ctx.attrs.get("ignore_index"), ctx.attrs.get("reduction", "mean"))


@op("SoftmaxCrossEntropyLoss", 12)
def _sce_loss(ctx: Ctx, scores: Any, labels: Any, weight: Any = None) -> Any:
    m = scores.max(axis=1, keepdims=True)
    z = scores - m
    log_prob = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    loss = _nll(log_prob, labels, weight, ctx.attrs.get("ignore_index"), ctx.attrs.get("reduction", "mean"))
    if len(ctx.outputs) > 1:
        return loss, log_prob.astype(scores.dtype)
    return loss


def _mm(a: Any, b: Any) -> Any:
    """Matrix product in ``a``'s type; types numpy cannot multiply go through float32."""
    if a.dtype.kind not in "fiu" or (a.dtype.itemsize < 4 and a.dtype.kind == "f" and a.dtype != np.float16):
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(a.dtype)
    return np.matmul(a, b).astype(a.dtype)


@op("Attention", 23)
def _attention(
    ctx: Ctx,
    q: Any,
    k: Any,
    v: Any,
    mask: Any = None,
    past_key: Any = None,
    past_value: Any = None,
    nonpad_kv_seqlen: Any = None,
) -> Any:
    a = ctx.attrs
    three_d = q.ndim == 3
    if three_d:
        qh, kvh = a["q_num_heads"], a["kv_num_heads"]
        b, s = q.shape[:2]
        q = q.reshape(b, s, qh, -1).transpose(0, 2, 1, 3)
        k = k.reshape(b, k.shape[1], kvh, -1).transpose(0, 2, 1, 3)
        v = v.reshape(b, v.shape[1], kvh, -1).transpose(0, 2, 1, 3)
    if past_key is not None:
        k = np.concatenate([past_key, k], axis=2)
    if past_value is not None:
        v = np.concatenate([past_value, v], axis=2)
    present_k, present_v = k, v
    qh, kvh = q.shape[1], k.shape[1]
    if qh != kvh:
        k = np.repeat(k, qh // kvh, axis=1)
        v = np.repeat(v, qh // kvh, axis=1)
    scale = a.get("scale")
    if scale is None:
        scale = 1 / np.sqrt(q.shape[-1])
    # the scale splits between Q and K (as the operator's function body does)
    root = q.dtype.type(np.sqrt(scale))
    qk = _mm(q * root, np.swapaxes(k * root, -1, -2))
    softcap = a.get("softcap", 0.0)
    if softcap and softcap > 0:
        qk = np.tanh(qk / softcap) * softcap
    s_q, s_kv = qk.shape[-2], qk.shape[-1]
    zero, minus_inf = q.dtype.type(0), q.dtype.type(-np.inf)
    if mask is not None and mask.shape[-1] < s_kv:
        pad = [(0, 0)] * (mask.ndim - 1) + [(0, s_kv - mask.shape[-1])]
        mask = np.pad(mask, pad, constant_values=(False if mask.dtype == bool else -np.inf))
    additive = None
    if mask is not None:
        additive = np.where(mask, zero, minus_inf) if mask.dtype == bool else mask.astype(q.dtype)
    if past_key is not None:
        offset: Any = past_key.shape[2]
    elif nonpad_kv_seqlen is not None:
        offset = nonpad_kv_seqlen.reshape(-1) - s_q
    else:
        offset = 0
    rows = np.arange(s_q)[:, None]
    cols = np.arange(s_kv)[None, :]

    def frontier(allowed_of: Any) -> Any:
        if np.ndim(offset):
            allowed = np.stack([allowed_of(rows + int(o)) for o in offset])[:, None]
        else:
            allowed = allowed_of(rows + offset)
        return np.where(allowed, zero, minus_inf)

    bias: Any = np.zeros((s_q, s_kv), dtype=q.dtype)
    if a.get("is_causal", 0):
        base = bias if additive is None else additive
        bias = base + frontier(lambda p: cols <= p)
    elif additive is not None:
        bias = bias + additive
    left, right = a.get("left_window_size", -1), a.get("right_window_size", -1)
    if left >= 0 or right >= 0:
        bias = bias + frontier(
            lambda p: (
                ((p - cols <= left) if left >= 0 else True) & ((cols - p <= right) if right >= 0 else True)
            )
        )
    if nonpad_kv_seqlen is not None:
        valid = cols < nonpad_kv_seqlen.reshape(-1, 1)
        bias = bias + np.where(valid, zero, minus_inf)[:, None, None, :]
    scores = qk + bias
    precision = a.get("softmax_precision")
    if precision is not None:
        from wirecodec.tensors import numpy_dtype

        scores = scores.astype(numpy_dtype(precision))
    with np.errstate(all="ignore"):
        probs = softmax(scores, -1)
    masked_rows = np.isneginf(np.max(bias, axis=-1, keepdims=True))
    probs = np.where(masked_rows, probs.dtype.type(0), probs)
    mode = a.get("qk_matmul_output_mode", 0)
    qk_out = probs if mode == 3 else qk + bias if mode == 2 else qk
    y = _mm(probs.astype(q.dtype), v)
    if three_d:
        y = y.transpose(0, 2, 1, 3).reshape(y.shape[0], y.shape[2], -1)
    return y, present_k, present_v, qk_out.astype(q.dtype)


@op("RotaryEmbedding", 23)
def _rotary(ctx: Ctx, x: Any, cos: Any, sin: Any, position_ids: Any = None) -> Any:
    a = ctx.attrs
    four_d = x.ndim == 4
    if four_d:
        xs = x.transpose(0, 2, 1, 3)
    else:
        heads = a.get("num_heads", 0)
        xs = x.reshape(x.shape[0], x.shape[1], heads, -1)
    head = xs.shape[-1]
    rot = a.get("rotary_embedding_dim", 0) or head
    if position_ids is not None:
        cos = cos[position_ids]
        sin = sin[position_ids]
    cos = cos[..., : rot // 2][:, :, None, :]
    sin = sin[..., : rot // 2][:, :, None, :]
    x_rot, x_pass = xs[..., :rot], xs[..., rot:]
    if a.get("interleaved", 0):
        x1, x2 = x_rot[..., 0::2], x_rot[..., 1::2]
    else:
        x1, x2 = x_rot[..., : rot // 2], x_rot[..., rot // 2 :]
    real = cos * x1 - sin * x2
    imag = sin * x1 + cos * x2
    if a.get("interleaved", 0):
        rotated = np.stack([real, imag], axis=-1).reshape(x_rot.shape)
    else:
        rotated = np.concatenate([real, imag], axis=-1)
    out = np.concatenate([rotated, x_pass], axis=-1)
    out = out.transpose(0, 2, 1, 3) if four_d else out.reshape(x.shape)
    return out.astype(x.dtype)


def _heads(x: Any, heads: int) -> Any:
    """(B, T, H*D) -> (B, H, T, D) in float32."""
    b, t, hd = x.shape
    return x.reshape(b, t, heads, hd // heads).transpose(0, 2, 1, 3).astype(np.float32)


@op("LinearAttention", 27)
def _linear_attention(
    ctx: Ctx, q: Any, k: Any, v: Any, past: Any = None, decay: Any = None, beta: Any = None
) -> Any:
    """A recurrent state S (B, H_kv, d_k, d_v): optionally decayed by exp(decay), optionally
    delta-corrected (v <- beta * (v - S^T k)), written with k v^T, read by q with the scale."""
    a = ctx.attrs
    rule = a.get("update_rule", "gated_delta")
    qh, kvh = a["q_num_heads"], a["kv_num_heads"]
    b, t, _ = q.shape
    q4, k4, v4 = _heads(q, qh), _heads(k, kvh), _heads(v, kvh)
    d_k, d_v = q4.shape[-1], v4.shape[-1]
    state = np.zeros((b, kvh, d_k, d_v), np.float32) if past is None else past.astype(np.float32)
    gates = None
    if rule in ("gated", "gated_delta"):
        if decay.shape[-1] == kvh:
            gates = decay.reshape(b, t, kvh, 1).transpose(0, 2, 1, 3).astype(np.float32)
        else:
            gates = _heads(decay, kvh)
    betas = None
    if rule in ("delta", "gated_delta"):
        betas = beta.reshape(b, t, beta.shape[-1], 1).transpose(0, 2, 1, 3).astype(np.float32)
    scale = a.get("scale") or 1.0 / np.sqrt(d_k)
    out = np.zeros((b, qh, t, d_v), np.float32)
    for i in range(t):
        kt, vt = k4[:, :, i], v4[:, :, i]
        if gates is not None:
            state = state * np.exp(gates[:, :, i])[..., None]
        if betas is not None:
            vt = betas[:, :, i] * (vt - np.einsum("bhdm,bhd->bhm", state, kt))
        state = state + kt[..., :, None] * vt[..., None, :]
        read = state if qh == kvh else np.repeat(state, qh // kvh, axis=1)
        out[:, :, i] = np.float32(scale) * np.einsum("bhd,bhdm->bhm", q4[:, :, i], read)
    y = out.transpose(0, 2, 1, 3).reshape(b, t, qh * d_v).astype(q.dtype)
    return y, state.astype(q.dtype if past is None else past.dtype)


@op("FlexAttention", 1, "ai.onnx.preview")
def _flex_attention(ctx: Ctx, q: Any, k: Any, v: Any) -> Any:
    """Attention whose scores and probabilities pass through the ``score_mod`` and
    ``prob_mod`` subgraphs; the softmax runs in float32 for 16-bit inputs."""
    a = ctx.attrs
    qh, kvh = q.shape[1], k.shape[1]
    if qh != kvh:
        k, v = np.repeat(k, qh // kvh, axis=1), np.repeat(v, qh // kvh, axis=1)
    scale = a.get("scale")
    if scale is None:
        scale = 1.0 / np.sqrt(q.shape[-1])
    root = np.array(np.sqrt(np.float32(scale)), dtype=q.dtype)
    scores = np.matmul(q * root, np.swapaxes(k * root, -1, -2))
    precision = a.get("softmax_precision")
    if precision is not None:
        from wirecodec.tensors import numpy_dtype

        dtype = numpy_dtype(precision)
    else:
        dtype = np.dtype(np.float32) if q.dtype.itemsize < 4 else q.dtype
    scores = scores.astype(dtype)
    if "score_mod" in a:
        scores = np.asarray(ctx.run_graph("score_mod", scores)[0], dtype=dtype)
    probs = softmax(scores, -1)
    if "prob_mod" in a:
        probs = np.asarray(ctx.run_graph("prob_mod", probs)[0], dtype=dtype)
    return np.matmul(probs, v.astype(dtype)).astype(v.dtype)
