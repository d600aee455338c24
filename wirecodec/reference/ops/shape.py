"""Shape and indexing operators: Constant, Shape, Reshape, Concat, Split, Slice, Gather, Scatter, ..."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


@op("Constant")
def _constant(ctx: Ctx) -> Any:
    a = ctx.attrs
    for key in ("value", "sparse_value"):
        if key in a:
            value = a[key]
            if type(value) is np.ndarray and value.flags.writeable:
                # The same array every run: read-only, as onnx's, so a caller's write into
                # one run's output cannot change the next run.
                value = a[key] = value.view()
                value.flags.writeable = False
            return value
    if "value_float" in a:
        return np.array(a["value_float"], dtype=np.float32)
    if "value_floats" in a:
        return np.array(a["value_floats"], dtype=np.float32)
    if "value_int" in a:
        return np.array(a["value_int"], dtype=np.int64)
    if "value_ints" in a:
        return np.array(a["value_ints"], dtype=np.int64)
    if "value_string" in a:
        return np.array(a["value_string"], dtype=object)
    if "value_strings" in a:
        return np.array(a["value_strings"], dtype=object)
    raise ValueError("Constant has no value attribute")


@op("Identity")
def _identity(ctx: Ctx, x: Any) -> Any:
    # A copy, as onnx's: a write into the output must reach neither a constant nor a feed.
    return x.copy() if type(x) is np.ndarray else x


@op("Shape")
def _shape(ctx: Ctx, x: Any) -> Any:
    shape = np.array(x.shape, dtype=np.int64)
    rank = len(shape)
    start = ctx.attrs.get("start", 0)
    end = ctx.attrs.get("end", rank)
    start = max(0, min(rank, start + rank if start < 0 else start))
    end = max(0, min(rank, end + rank if end < 0 else end))
    return shape[start:end]


@op("Size")
def _size(ctx: Ctx, x: Any) -> Any:
    return np.array(x.size, dtype=np.int64)


@op("Reshape", 5)
def _reshape(ctx: Ctx, x: Any, shape: Any) -> Any:
    target = [int(d) for d in shape]
    if not ctx.attrs.get("allowzero", 0):
        target = [x.shape[i] if d == 0 else d for i, d in enumerate(target)]
    return x.reshape(target)


@op("Reshape", 1)
def _reshape1(ctx: Ctx, x: Any) -> Any:
    target = [x.shape[i] if d == 0 else d for i, d in enumerate(ctx.attrs["shape"])]
    return x.reshape(target)


@op("Flatten")
def _flatten(ctx: Ctx, x: Any) -> Any:
    axis = ctx.attrs.get("axis", 1)
    if axis < 0:
        axis += x.ndim
    outer = int(np.prod(x.shape[:axis]))
    return x.reshape(outer, -1) if x.size else x.reshape(outer, int(np.prod(x.shape[axis:])))


@op("Concat")
def _concat(ctx: Ctx, *xs: Any) -> Any:
    axis, rank = ctx.attrs["axis"], xs[0].ndim
    if axis < -rank or axis >= rank:
        raise ValueError(f"axis {axis} is out of range for input rank {rank}")
    return np.concatenate(xs, axis=axis)


def _split_points(length: int, split: list[int] | None, parts: int) -> list[int]:
    if split is None:
        size = -(-length // parts)
        split = [size] * (parts - 1) + [length - size * (parts - 1)]
    return list(itertools.accumulate(split))[:-1]  # plain ints: numpy's cumsum costs more here


@op("Split")
def _split(ctx: Ctx, x: Any, split: Any = None) -> Any:
    axis = ctx.attrs.get("axis", 0)
    if split is None and "split" in ctx.attrs:
        split = ctx.attrs["split"]
    parts = len(ctx.outputs)
    if "num_outputs" in ctx.attrs:
        parts = ctx.attrs["num_outputs"]
    sizes = None if split is None else [int(s) for s in split]
    return tuple(np.split(x, _split_points(x.shape[axis], sizes, parts), axis=axis))


@op("Transpose")
def _transpose(ctx: Ctx, x: Any) -> Any:
    perm = ctx.attrs.get("perm")
    return np.transpose(x, perm)


def _axes(ctx: Ctx, axes: Any) -> list[int] | None:
    if axes is None:
        axes = ctx.attrs.get("axes")
    return None if axes is None else [int(a) for a in np.atleast_1d(np.asarray(axes))]


@op("Squeeze")
def _squeeze(ctx: Ctx, x: Any, axes: Any = None) -> Any:
    found = _axes(ctx, axes)
    return np.squeeze(x, axis=None if found is None else tuple(found))


@op("Unsqueeze")
def _unsqueeze(ctx: Ctx, x: Any, axes: Any = None) -> Any:
    found = _axes(ctx, axes) or []
    rank = x.ndim + len(found)
    return np.expand_dims(x, tuple(sorted(a + rank if a < 0 else a for a in found)))


@op("Expand", 8)
def _expand(ctx: Ctx, x: Any, shape: Any) -> Any:
    return (
        x * np.ones([int(s) for s in shape], dtype=x.dtype)
        if x.dtype != object
        else np.broadcast_to(x, np.broadcast_shapes(x.shape, tuple(int(s) for s in shape))).copy()
    )


@op("Tile")
def _tile(ctx: Ctx, x: Any, repeats: Any) -> Any:
    return np.tile(x, [int(r) for r in repeats])


@op("Slice", 10)
def _slice(ctx: Ctx, x: Any, starts: Any, ends: Any, axes: Any = None, steps: Any = None) -> Any:
    return _do_slice(x, starts, ends, axes, steps)


@op("Slice", 1)
def _slice1(ctx: Ctx, x: Any) -> Any:
    return _do_slice(x, ctx.attrs["starts"], ctx.attrs["ends"], ctx.attrs.get("axes"), None)


def _do_slice(x: Any, starts: Any, ends: Any, axes: Any, steps: Any) -> Any:
    index = [slice(None)] * x.ndim
    axes = list(range(len(starts))) if axes is None else [int(a) for a in axes]
    steps = [1] * len(starts) if steps is None else [int(s) for s in steps]
    for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
        start, end = int(start), int(end)
        dim = x.shape[axis]
        if step < 0:
            start = max(-1, min(dim - 1, start + dim if start < 0 else start))
            end = end + dim if end < 0 else end
            end = max(-1, min(dim - 1, end))
            index[axis] = slice(start, None if end == -1 else end, step)
        else:
            start = max(0, min(dim, start + dim if start < 0 else start))
            end = max(0, min(dim, end + dim if end < 0 else end))
            index[axis] = slice(start, end, step)
    return x[tuple(index)]


@op("Gather")
def _gather(ctx: Ctx, x: Any, indices: Any) -> Any:
    axis = ctx.attrs.get("axis", 0)
    return np.take(x, indices.astype(np.int64), axis=axis)


@op("GatherElements")
def _gather_elements(ctx: Ctx, x: Any, indices: Any) -> Any:
    axis = ctx.attrs.get("axis", 0)
    indices = np.where(indices < 0, indices + x.shape[axis], indices)
    return np.take_along_axis(x, indices.astype(np.int64), axis=axis)


@op("GatherND")
def _gather_nd(ctx: Ctx, x: Any, indices: Any) -> Any:
    batch = ctx.attrs.get("batch_dims", 0)
    indices = indices.astype(np.int64)
    batch_shape = x.shape[:batch]
    n = int(np.prod(batch_shape)) if batch else 1
    xs = x.reshape((n, *x.shape[batch:]))
    idx = indices.reshape((n, *indices.shape[batch:]))
    depth = idx.shape[-1]
    out = []
    for b in range(n):
        flat = idx[b].reshape(-1, depth)
        out.append(
            np.stack([xs[b][tuple(i)] for i in flat])
            if len(flat)
            else np.empty((0, *xs[b].shape[depth:]), x.dtype)
        )
    result = np.stack(out)
    return result.reshape(indices.shape[:-1] + x.shape[batch + depth :])


def _reduce_into(target: Any, index: tuple[Any, ...], update: Any, reduction: str) -> None:
    if reduction == "add":
        target[index] += update
    elif reduction == "mul":
        target[index] *= update
    elif reduction == "max":
        target[index] = np.maximum(target[index], update)
    elif reduction == "min":
        target[index] = np.minimum(target[index], update)
    else:
        target[index] = update


@op("ScatterElements", 11)
def _scatter_elements(ctx: Ctx, x: Any, indices: Any, updates: Any) -> Any:
    axis = ctx.attrs.get("axis", 0)
    reduction = ctx.attrs.get("reduction", "none")
    out = x.copy()
    if axis < 0:
        axis += x.ndim
    indices = np.where(indices < 0, indices + x.shape[axis], indices)
    for pos in np.ndindex(*indices.shape):
        target = list(pos)
        target[axis] = int(indices[pos])
        _reduce_into(out, tuple(target), updates[pos], reduction)
    return out


op("Scatter", 9)(_scatter_elements)


@op("ScatterND", 11)
def _scatter_nd(ctx: Ctx, x: Any, indices: Any, updates: Any) -> Any:
    reduction = ctx.attrs.get("reduction", "none")
    out = x.copy()
    depth = indices.shape[-1]
    flat = indices.reshape(-1, depth)
    ups = updates.reshape((-1, *x.shape[depth:]))
    for i, index in enumerate(flat):
        _reduce_into(out, tuple(int(v) for v in index), ups[i], reduction)
    return out


@op("ConstantOfShape", 9)
def _constant_of_shape(ctx: Ctx, shape: Any) -> Any:
    value = ctx.attrs.get("value")
    if value is None:
        value = np.zeros(1, dtype=np.float32)
    return np.full([int(s) for s in shape], value.reshape(-1)[0], dtype=value.dtype)


@op("Range", 11)
def _range(ctx: Ctx, start: Any, limit: Any, delta: Any) -> Any:
    first, last, step = (np.asarray(v).reshape(-1)[0] for v in (start, limit, delta))
    return np.arange(first, last, step).astype(start.dtype)


@op("EyeLike", 9)
def _eye_like(ctx: Ctx, x: Any) -> Any:
    from wirecodec.tensors import numpy_dtype

    dtype = numpy_dtype(ctx.attrs["dtype"]) if "dtype" in ctx.attrs else x.dtype
    return np.eye(x.shape[0], x.shape[1], k=ctx.attrs.get("k", 0), dtype=dtype)


@op("OneHot", 9)
def _one_hot(ctx: Ctx, indices: Any, depth: Any, values: Any) -> Any:
    axis = ctx.attrs.get("axis", -1)
    d = int(np.asarray(depth).reshape(-1)[0])
    idx = indices.astype(np.int64)
    idx = np.where(idx < 0, idx + d, idx)
    rank = idx.ndim + 1
    if axis < 0:
        axis += rank
    hot = np.arange(d).reshape([d if i == axis else 1 for i in range(rank)]) == np.expand_dims(idx, axis)
    return np.where(hot, values[1], values[0]).astype(values.dtype)


@op("Compress", 9)
def _compress(ctx: Ctx, x: Any, condition: Any) -> Any:
    return np.compress(condition, x, axis=ctx.attrs.get("axis"))


@op("NonZero", 9)
def _nonzero(ctx: Ctx, x: Any) -> Any:
    if x.ndim == 0:  # rank 0: no index rows, one column when the scalar is non-zero
        return np.zeros((0, int(bool(x))), dtype=np.int64)
    return np.array(np.nonzero(x), dtype=np.int64)


@op("Trilu", 14)
def _trilu(ctx: Ctx, x: Any, k: Any = None) -> Any:
    kk = 0 if k is None else int(k)
    return np.triu(x, kk) if ctx.attrs.get("upper", 1) else np.tril(x, kk)


@op("DepthToSpace")
def _depth_to_space(ctx: Ctx, x: Any) -> Any:
    b = ctx.attrs["blocksize"]
    n, c, h, w = x.shape
    if ctx.attrs.get("mode", "DCR") == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


@op("SpaceToDepth")
def _space_to_depth(ctx: Ctx, x: Any) -> Any:
    b = ctx.attrs["blocksize"]
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b)
    if ctx.attrs.get("mode", "DCR") == "CRD":
        y = y.transpose(0, 1, 3, 5, 2, 4)
    else:
        y = y.transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


@op("TopK", 10)
def _topk(ctx: Ctx, x: Any, k: Any) -> Any:
    kk = int(np.asarray(k).reshape(-1)[0])
    axis = ctx.attrs.get("axis", -1)
    largest = ctx.attrs.get("largest", 1)
    if axis < 0:
        axis += x.ndim
    # a stable sort on the negated key keeps the lower index first among equal values
    if largest:
        # ranks of the values reversed: stable, and right for unsigned types
        order = np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
        order = x.shape[axis] - 1 - order
    else:
        order = np.argsort(x, axis=axis, kind="stable")
    order = np.take(order, np.arange(kk), axis=axis)
    return np.take_along_axis(x, order, axis=axis), order.astype(np.int64)


@op("TopK", 1)
def _topk1(ctx: Ctx, x: Any) -> Any:
    return _topk(ctx, x, np.array([ctx.attrs["k"]]))


@op("ReverseSequence", 10)
def _reverse_sequence(ctx: Ctx, x: Any, lengths: Any) -> Any:
    batch_axis = ctx.attrs.get("batch_axis", 1)
    time_axis = ctx.attrs.get("time_axis", 0)
    out = x.copy()
    for b, length in enumerate(lengths):
        src: list[Any] = [slice(None)] * x.ndim
        src[batch_axis] = b
        src[time_axis] = slice(0, int(length))
        dst = list(src)
        dst[time_axis] = slice(int(length) - 1, None, -1) if int(length) > 0 else slice(0, 0)
        out[tuple(src)] = x[tuple(dst)]
    return out


@op("Unique", 11)
def _unique(ctx: Ctx, x: Any) -> Any:
    axis = ctx.attrs.get("axis")
    values, first, inverse, counts = np.unique(
        x, return_index=True, return_inverse=True, return_counts=True, axis=axis
    )
    if not ctx.attrs.get("sorted", 1):
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        values = np.take(values, order, axis=0 if axis is None else axis)
        first, counts = first[order], counts[order]
        inverse = rank[inverse.reshape(-1)]
    return (
        values,
        first.astype(np.int64),
        inverse.reshape(-1).astype(np.int64),
        counts.astype(np.int64),
    )


@op("CenterCropPad", 18)
def _center_crop_pad(ctx: Ctx, x: Any, shape: Any) -> Any:
    axes = ctx.attrs.get("axes") or list(range(x.ndim))
    axes = [a + x.ndim if a < 0 else a for a in axes]
    out_shape = list(x.shape)
    for a, s in zip(axes, shape, strict=True):
        out_shape[a] = int(s)
    out = np.zeros(out_shape, dtype=x.dtype)
    src: list[slice] = [slice(None)] * x.ndim
    dst: list[slice] = [slice(None)] * x.ndim
    for a in axes:
        have, want = x.shape[a], out_shape[a]
        if have >= want:
            start = (have - want) // 2
            src[a] = slice(start, start + want)
        else:
            start = (want - have) // 2
            dst[a] = slice(start, start + have)
    out[tuple(dst)] = x[tuple(src)]
    return out


@op("Pad", 11)
def _pad(ctx: Ctx, x: Any, pads: Any = None, value: Any = None, axes: Any = None) -> Any:
    return _do_pad(ctx, x, [int(p) for p in pads], value, axes)


@op("Pad", 1)
def _pad1(ctx: Ctx, x: Any) -> Any:
    return _do_pad(
        ctx, x, ctx.attrs.get("pads", ctx.attrs.get("paddings")), ctx.attrs.get("value", 0.0), None
    )


def _do_pad(ctx: Ctx, x: Any, pads: list[int], value: Any, axes: Any) -> Any:
    mode = ctx.attrs.get("mode", "constant")
    ax = list(range(x.ndim)) if axes is None else [int(a) + x.ndim if int(a) < 0 else int(a) for a in axes]
    n = len(ax)
    width = [(0, 0)] * x.ndim
    for i, a in enumerate(ax):
        width[a] = (pads[i], pads[i + n])
    # negative pads crop
    crop = [slice(max(0, -lo), x.shape[i] - max(0, -hi)) for i, (lo, hi) in enumerate(width)]
    x = x[tuple(crop)]
    width = [(max(0, lo), max(0, hi)) for lo, hi in width]
    if mode == "constant":
        fill = 0 if value is None else np.asarray(value).reshape(-1)[0] if np.asarray(value).size else 0
        return np.pad(x, width, mode="constant", constant_values=fill)
    if mode == "reflect":
        return np.pad(x, width, mode="reflect")
    if mode == "edge":
        return np.pad(x, width, mode="edge")
    if mode == "wrap":
        return np.pad(x, width, mode="wrap")
    raise ValueError(f"unknown Pad mode {mode!r}")


@op("Einsum", 12)
def _einsum(ctx: Ctx, *xs: Any) -> Any:
    dtype = xs[0].dtype
    if dtype.kind not in "biufc":
        xs = tuple(x.astype(np.float32) for x in xs)
    return np.asarray(np.einsum(ctx.attrs["equation"], *xs)).astype(dtype)


@op("TensorScatter", 24)
def _tensor_scatter(ctx: Ctx, cache: Any, update: Any, write_indices: Any = None) -> Any:
    axis = ctx.attrs.get("axis", -2)
    if axis < 0:
        axis += cache.ndim
    out = cache.copy()
    length, room = update.shape[axis], cache.shape[axis]
    circular = ctx.attrs.get("mode", "linear") == "circular"
    for b in range(cache.shape[0]):
        start = 0 if write_indices is None else int(write_indices[b])
        positions = np.arange(start, start + length)
        if circular:
            positions = positions % room
        target = np.moveaxis(out[b], axis - 1, 0)
        target[positions] = np.moveaxis(update[b], axis - 1, 0)
    return out
