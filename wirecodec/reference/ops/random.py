"""Random operators: RandomUniform, RandomNormal, their ``Like`` forms, Bernoulli, Multinomial.

A ``seed`` attribute seeds a generator of its own for the node's run (so a seeded node gives
the same values on every run, as onnx's evaluator does); without one, numpy's global
generator draws. ``dtype`` is the ONNX element type of the result (the input's for a
``Like`` operator when the node leaves it out).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def _generator(ctx: Ctx) -> Any:
    seed = ctx.attrs.get("seed")
    if seed is None:
        return np.random
    return np.random.RandomState(int(seed))


def _dtype(ctx: Ctx, like: Any = None) -> Any:
    code = ctx.attrs.get("dtype")
    if code is None:
        return np.float32 if like is None else like.dtype
    from wirecodec.tensors.dtypes import info_of, result_dtype

    return result_dtype(info_of(int(code), f"{ctx.op_type}'s dtype"))


def _uniform(ctx: Ctx, shape: tuple[int, ...], dtype: Any) -> Any:
    low, high = ctx.attrs.get("low", 0.0), ctx.attrs.get("high", 1.0)
    return _generator(ctx).uniform(low, high, shape).astype(dtype)


def _normal(ctx: Ctx, shape: tuple[int, ...], dtype: Any) -> Any:
    mean, scale = ctx.attrs.get("mean", 0.0), ctx.attrs.get("scale", 1.0)
    return _generator(ctx).normal(mean, scale, shape).astype(dtype)


@op("RandomUniform")
def _random_uniform(ctx: Ctx) -> Any:
    return _uniform(ctx, tuple(int(d) for d in ctx.attrs["shape"]), _dtype(ctx))


@op("RandomUniformLike")
def _random_uniform_like(ctx: Ctx, x: Any) -> Any:
    return _uniform(ctx, x.shape, _dtype(ctx, x))


@op("RandomNormal")
def _random_normal(ctx: Ctx) -> Any:
    return _normal(ctx, tuple(int(d) for d in ctx.attrs["shape"]), _dtype(ctx))


@op("RandomNormalLike")
def _random_normal_like(ctx: Ctx, x: Any) -> Any:
    return _normal(ctx, x.shape, _dtype(ctx, x))


@op("Bernoulli", 15)
def _bernoulli(ctx: Ctx, x: Any) -> Any:
    draws = _generator(ctx).uniform(0.0, 1.0, x.shape)
    return (draws < x).astype(_dtype(ctx, x))


@op("Multinomial", 7)
def _multinomial(ctx: Ctx, x: Any) -> Any:
    """``sample_size`` class indices per row of unnormalised log-probabilities ``x`` [batch, classes]."""
    count = int(ctx.attrs.get("sample_size", 1))
    shifted = np.exp(x - x.max(axis=1, keepdims=True))
    probabilities = shifted / shifted.sum(axis=1, keepdims=True)
    generator = _generator(ctx)
    rows = [generator.choice(x.shape[1], size=count, p=row) for row in probabilities.astype(np.float64)]
    code = ctx.attrs.get("dtype", 6)  # int32 by default
    from wirecodec.tensors.dtypes import info_of, result_dtype

    return np.array(rows, dtype=result_dtype(info_of(int(code), "Multinomial's dtype"))).reshape(
        x.shape[0], count
    )
