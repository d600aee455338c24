"""Sequences and optionals: Sequence*, SplitToSequence, ConcatFromSequence, SequenceMap, Optional*."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.tensors import numpy_dtype

Ctx = Any


@op("SequenceConstruct", 11)
def _construct(ctx: Ctx, *xs: Any) -> Any:
    return list(xs)


@op("SequenceEmpty", 11)
def _empty(ctx: Ctx) -> Any:
    return []


def _position(seq: list[Any], pos: Any, default: int) -> int:
    if pos is None:
        return default
    p = int(np.asarray(pos).reshape(-1)[0])
    return p + len(seq) if p < 0 else p


@op("SequenceAt", 11)
def _at(ctx: Ctx, seq: Any, pos: Any) -> Any:
    return seq[_position(seq, pos, 0)]


@op("SequenceInsert", 11)
def _insert(ctx: Ctx, seq: Any, x: Any, pos: Any = None) -> Any:
    out = list(seq)
    out.insert(_position(seq, pos, len(seq)), x)
    return out


@op("SequenceErase", 11)
def _erase(ctx: Ctx, seq: Any, pos: Any = None) -> Any:
    out = list(seq)
    del out[_position(seq, pos, len(seq) - 1)]
    return out


@op("SequenceLength", 11)
def _length(ctx: Ctx, seq: Any) -> Any:
    return np.array(len(seq), dtype=np.int64)


@op("SplitToSequence", 11)
def _split_to_sequence(ctx: Ctx, x: Any, split: Any = None) -> Any:
    axis = ctx.attrs.get("axis", 0)
    if split is None:
        parts = np.split(x, x.shape[axis], axis=axis)
        if ctx.attrs.get("keepdims", 1):
            return parts
        return [np.squeeze(p, axis=axis) for p in parts]
    if np.ndim(split) == 0:
        size = int(split)
        points = list(range(size, x.shape[axis], size))
    else:
        points = list(np.cumsum([int(s) for s in split])[:-1])
    return np.split(x, points, axis=axis)


@op("ConcatFromSequence", 11)
def _concat_from_sequence(ctx: Ctx, seq: Any) -> Any:
    axis = ctx.attrs["axis"]
    if ctx.attrs.get("new_axis", 0):
        return np.stack(seq, axis=axis)
    return np.concatenate(seq, axis=axis)


@op("SequenceMap", 17)
def _sequence_map(ctx: Ctx, seq: Any, *extra: Any) -> Any:
    body = ctx.graph("body")
    results: list[list[Any]] = [[] for _ in body.outputs]
    for i in range(len(seq)):
        args = [seq[i]] + [e[i] if isinstance(e, list) else e for e in extra]
        for j, v in enumerate(ctx.run_graph("body", *args)):
            results[j].append(v)
    return tuple(results)


@op("Optional", 15)
def _optional(ctx: Ctx, x: Any = None) -> Any:
    return x


@op("OptionalHasElement", 15)
def _has_element(ctx: Ctx, x: Any = None) -> Any:
    return np.array(x is not None)


@op("OptionalGetElement", 15)
def _get_element(ctx: Ctx, x: Any) -> Any:
    if x is None:
        raise ValueError("the optional is empty")
    return x


__all__ = ["numpy_dtype"]
