"""Recurrent layers: RNN, GRU, LSTM (forward, reverse, bidirectional; layout 0 and 1)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def _activation(name: str, alpha: float | None, beta: float | None) -> Callable[[Any], Any]:
    low = name.lower()
    if low == "sigmoid":
        return lambda x: 1 / (1 + np.exp(-x))
    if low == "tanh":
        return np.tanh
    if low == "relu":
        return lambda x: np.maximum(x, 0)
    if low == "leakyrelu":
        a = 0.01 if alpha is None else alpha
        return lambda x: np.where(x >= 0, x, a * x)
    if low == "thresholdedrelu":
        a = 1.0 if alpha is None else alpha
        return lambda x: np.where(x > a, x, 0)
    if low == "scaledtanh":
        a, b = (1.0 if alpha is None else alpha), (1.0 if beta is None else beta)
        return lambda x: a * np.tanh(b * x)
    if low == "hardsigmoid":
        a, b = (0.2 if alpha is None else alpha), (0.5 if beta is None else beta)
        return lambda x: np.clip(a * x + b, 0, 1)
    if low == "elu":
        a = 1.0 if alpha is None else alpha
        return lambda x: np.where(x >= 0, x, a * (np.exp(x) - 1))
    if low == "softsign":
        return lambda x: x / (1 + np.abs(x))
    if low == "softplus":
        return lambda x: np.log1p(np.exp(x))
    if low == "affine":
        a, b = (1.0 if alpha is None else alpha), (0.0 if beta is None else beta)
        return lambda x: a * x + b
    raise ValueError(f"unknown activation {name!r}")


def _activations(ctx: Ctx, defaults: list[str], directions: int) -> list[list[Callable[[Any], Any]]]:
    names = ctx.attrs.get("activations") or defaults * directions
    alphas = ctx.attrs.get("activation_alpha") or []
    betas = ctx.attrs.get("activation_beta") or []
    fns = [
        _activation(n, alphas[i] if i < len(alphas) else None, betas[i] if i < len(betas) else None)
        for i, n in enumerate(names)
    ]
    per = len(defaults)
    if len(fns) < per * directions:
        fns = fns * directions
    return [fns[d * per : (d + 1) * per] for d in range(directions)]


def _run(
    ctx: Ctx,
    x: Any,
    states0: list[Any],
    step: Callable[[int, Any, list[Any]], list[Any]],
    seq_lens: Any,
) -> tuple[Any, list[Any]]:
    """Run every direction; returns (Y [seq, dirs, batch, hidden], last states per direction)."""
    direction = ctx.attrs.get("direction", "forward")
    dirs = 2 if direction == "bidirectional" else 1
    seq, batch = x.shape[0], x.shape[1]
    ys = []
    finals: list[list[Any]] = [[] for _ in states0]
    for d in range(dirs):
        reverse = direction == "reverse" or d == 1
        states = [s[d] for s in states0]
        hidden_out = np.zeros((seq, batch, states0[0].shape[-1]), dtype=x.dtype)
        lens = np.full(batch, seq) if seq_lens is None else seq_lens.astype(np.int64)
        last = [s.copy() for s in states]
        for t in range(seq):
            new = step(d, x[seq - 1 - t] if reverse else x[t], states)
            if reverse:
                active = (seq - 1 - t) < lens
                position = seq - 1 - t
            else:
                active = t < lens
                position = t
            act = active.reshape(-1, 1)
            states = [np.where(act, n, s) for n, s in zip(new, states, strict=True)]
            hidden_out[position] = np.where(act, new[0], 0)
            last = states
        ys.append(hidden_out)
        for i, s in enumerate(last):
            finals[i].append(s)
    y = np.stack(ys, axis=1)
    return y, [np.stack(f) for f in finals]


def _prepare(ctx: Ctx, x: Any, init: list[Any]) -> tuple[Any, list[Any]]:
    if ctx.attrs.get("layout", 0):
        x = np.swapaxes(x, 0, 1)
        init = [None if s is None else np.swapaxes(s, 0, 1) for s in init]
    # each step multiplies x[t] by the weights: a strided x[t] (a transposed input) takes
    # numpy's loop instead of BLAS, 100 times slower (ddddocr's LSTM reads a Transpose)
    return np.ascontiguousarray(x), init


def _finish(ctx: Ctx, y: Any, finals: list[Any]) -> tuple[Any, ...]:
    if ctx.attrs.get("layout", 0):
        y = y.transpose(2, 0, 1, 3)
        finals = [np.swapaxes(f, 0, 1) for f in finals]
    return (y, *finals)


def _clip(ctx: Ctx) -> Callable[[Any], Any]:
    c = ctx.attrs.get("clip")
    return (lambda v: v) if c is None else (lambda v: np.clip(v, -c, c))


@op("RNN")
def _rnn(ctx: Ctx, x: Any, w: Any, r: Any, b: Any = None, seq_lens: Any = None, h0: Any = None) -> Any:
    x, (h0,) = _prepare(ctx, x, [h0])
    dirs, hidden = w.shape[0], w.shape[1]
    if b is None:
        b = np.zeros((dirs, 2 * hidden), dtype=x.dtype)
    if h0 is None:
        h0 = np.zeros((dirs, x.shape[1], hidden), dtype=x.dtype)
    acts = _activations(ctx, ["Tanh"], dirs)
    clip = _clip(ctx)

    def step(d: int, xt: Any, states: list[Any]) -> list[Any]:
        gates = xt @ w[d].T + states[0] @ r[d].T + b[d, :hidden] + b[d, hidden:]
        return [acts[d][0](clip(gates)).astype(x.dtype)]

    y, finals = _run(ctx, x, [h0], step, seq_lens)
    return _finish(ctx, y, finals)


@op("GRU")
def _gru(ctx: Ctx, x: Any, w: Any, r: Any, b: Any = None, seq_lens: Any = None, h0: Any = None) -> Any:
    x, (h0,) = _prepare(ctx, x, [h0])
    dirs, hidden = w.shape[0], w.shape[1] // 3
    if b is None:
        b = np.zeros((dirs, 6 * hidden), dtype=x.dtype)
    if h0 is None:
        h0 = np.zeros((dirs, x.shape[1], hidden), dtype=x.dtype)
    acts = _activations(ctx, ["Sigmoid", "Tanh"], dirs)
    linear_before_reset = ctx.attrs.get("linear_before_reset", 0)
    clip = _clip(ctx)

    # each direction's gate blocks, transposed once (not split again at every step)
    blocks = [
        (
            *(w[d, k * hidden : (k + 1) * hidden].T for k in range(3)),
            *(r[d, k * hidden : (k + 1) * hidden].T for k in range(3)),
            *(b[d, k * hidden : (k + 1) * hidden] for k in range(6)),
        )
        for d in range(dirs)
    ]

    def step(d: int, xt: Any, states: list[Any]) -> list[Any]:
        h = states[0]
        f, g = acts[d]
        wz, wr, wh, rz, rr, rh, wbz, wbr, wbh, rbz, rbr, rbh = blocks[d]
        z = f(clip(xt @ wz + h @ rz + wbz + rbz))
        rt = f(clip(xt @ wr + h @ rr + wbr + rbr))
        if linear_before_reset:
            candidate = g(clip(xt @ wh + rt * (h @ rh + rbh) + wbh))
        else:
            candidate = g(clip(xt @ wh + (rt * h) @ rh + rbh + wbh))
        return [((1 - z) * candidate + z * h).astype(x.dtype)]

    y, finals = _run(ctx, x, [h0], step, seq_lens)
    return _finish(ctx, y, finals)


@op("LSTM")
def _lstm(
    ctx: Ctx,
    x: Any,
    w: Any,
    r: Any,
    b: Any = None,
    seq_lens: Any = None,
    h0: Any = None,
    c0: Any = None,
    p: Any = None,
) -> Any:
    x, (h0, c0) = _prepare(ctx, x, [h0, c0])
    dirs, hidden = w.shape[0], w.shape[1] // 4
    if b is None:
        b = np.zeros((dirs, 8 * hidden), dtype=x.dtype)
    if h0 is None:
        h0 = np.zeros((dirs, x.shape[1], hidden), dtype=x.dtype)
    if c0 is None:
        c0 = np.zeros((dirs, x.shape[1], hidden), dtype=x.dtype)
    if p is None:
        p = np.zeros((dirs, 3 * hidden), dtype=x.dtype)
    acts = _activations(ctx, ["Sigmoid", "Tanh", "Tanh"], dirs)
    couple = ctx.attrs.get("input_forget", 0)
    clip = _clip(ctx)

    def step(d: int, xt: Any, states: list[Any]) -> list[Any]:
        h, c = states
        f, g, hh = acts[d]
        gates = xt @ w[d].T + h @ r[d].T + b[d, : 4 * hidden] + b[d, 4 * hidden :]
        gi, go, gf, gc = (gates[..., k * hidden : (k + 1) * hidden] for k in range(4))
        pi, po, pf = (p[d, k * hidden : (k + 1) * hidden] for k in range(3))
        i = f(clip(gi + pi * c))
        ft = 1 - i if couple else f(clip(gf + pf * c))
        candidate = g(clip(gc))
        c_new = ft * c + i * candidate
        o = f(clip(go + po * c_new))
        return [(o * hh(c_new)).astype(x.dtype), c_new.astype(x.dtype)]

    y, finals = _run(ctx, x, [h0, c0], step, seq_lens)
    return _finish(ctx, y, finals)
