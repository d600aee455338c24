"""Training operators of ai.onnx.preview.training: Adagrad, Momentum, Adam."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any
_DOMAIN = "ai.onnx.preview.training"


def _groups(args: tuple[Any, ...], count: int) -> list[list[Any]]:
    n = len(args) // count
    return [list(args[i * n : (i + 1) * n]) for i in range(count)]


@op("Adagrad", 1, _DOMAIN)
def _adagrad(ctx: Ctx, rate: Any, step: Any, *rest: Any) -> Any:
    a = ctx.attrs
    xs, gs, hs = _groups(rest, 3)
    r = rate / (1 + step * a.get("decay_factor", 0.0))
    new_x, new_h = [], []
    for x, g, h in zip(xs, gs, hs, strict=True):
        g_reg = a.get("norm_coefficient", 0.0) * x + g
        h_new = h + g_reg * g_reg
        new_x.append((x - r * g_reg / (np.sqrt(h_new) + a.get("epsilon", 0.0))).astype(x.dtype))
        new_h.append(h_new.astype(h.dtype))
    return (*new_x, *new_h)


@op("Momentum", 1, _DOMAIN)
def _momentum(ctx: Ctx, rate: Any, step: Any, *rest: Any) -> Any:
    a = ctx.attrs
    xs, gs, vs = _groups(rest, 3)
    alpha, beta = a["alpha"], a["beta"]
    beta_adjusted = beta if step > 0 else 1
    new_x, new_v = [], []
    for x, g, v in zip(xs, gs, vs, strict=True):
        g_reg = a.get("norm_coefficient", 0.0) * x + g
        v_new = alpha * v + beta_adjusted * g_reg
        if a.get("mode", "standard") == "nesterov":
            x_new = x - rate * (g_reg + alpha * v_new)
        else:
            x_new = x - rate * v_new
        new_x.append(x_new.astype(x.dtype))
        new_v.append(v_new.astype(v.dtype))
    return (*new_x, *new_v)


@op("Adam", 1, _DOMAIN)
def _adam(ctx: Ctx, rate: Any, step: Any, *rest: Any) -> Any:
    a = ctx.attrs
    xs, gs, vs, hs = _groups(rest, 4)
    alpha, beta = a.get("alpha", 0.9), a.get("beta", 0.999)
    eps = a.get("epsilon", 1e-6)
    t = float(step)
    r = rate * np.sqrt(1 - beta**t) / (1 - alpha**t) if t > 0 else rate
    out_x, out_v, out_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs, strict=True):
        g_reg = a.get("norm_coefficient", 0.0) * x + g
        v_new = alpha * v + (1 - alpha) * g_reg
        h_new = beta * h + (1 - beta) * g_reg * g_reg
        x_new = x - r * (v_new / (np.sqrt(h_new) + eps))
        x_new = (1 - a.get("norm_coefficient_post", 0.0)) * x_new
        out_x.append(x_new.astype(x.dtype))
        out_v.append(v_new.astype(v.dtype))
        out_h.append(h_new.astype(h.dtype))
    return (*out_x, *out_v, *out_h)
