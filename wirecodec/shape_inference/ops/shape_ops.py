"""Operators that move or reshape data: Reshape, Concat, Gather*, Slice, Squeeze, Unsqueeze,
Transpose, Expand, Tile, Flatten, Split, Pad, Range, NonZero, OneHot, TopK, space/depth, Resize."""

from __future__ import annotations

import math

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import MAX_RANK, Dim, InferenceError, Shape
from wirecodec.shape_inference.ops._util import DOUBLE, FLOAT, INT32, INT64, axis_in, broadcast, product

_INT_MAX = 2**63 - 1


def _unknown(rank: int) -> tuple[Dim, ...]:
    return tuple(None for _ in range(rank))


def _length_of_1d(ctx: NodeContext, i: int) -> int | None:
    """The length of 1-D input ``i`` when its shape says so."""
    s = ctx.shape(i)
    if s is not None and len(s) == 1 and isinstance(s[0], int) and s[0] <= MAX_RANK:
        return s[0]
    return None


@rule("Reshape")
def reshape(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    ctx.known_elem(0)
    target = ctx.dims_of(1, symbolic=ctx.opset >= 14)
    if target is None:
        # from opset 14 the rank follows the length of the shape input
        n = _length_of_1d(ctx, 1) if ctx.opset >= 14 else None
        ctx.set_tensor(0, t.elem, _unknown(n) if n is not None else None)
        return
    allow_zero = ctx.attr_int("allowzero", 0)
    dims: list[Dim] = []
    infer_at = -1
    for i, d in enumerate(target):
        if d == -1:
            if infer_at >= 0:
                raise InferenceError("more than one -1 in the target shape")
            infer_at = i
            dims.append(None)
        elif d == 0 and not allow_zero:
            if t.shape is None or i >= len(t.shape):
                if t.shape is not None:
                    raise InferenceError("a 0 in the target shape beyond the input's rank")
                dims.append(None)
            else:
                dims.append(t.shape[i])
        elif isinstance(d, int) and d < 0:
            raise InferenceError(f"invalid target dimension {d}")
        else:
            dims.append(d)
    if infer_at >= 0 and t.shape is not None:
        total = product(t.shape)
        rest = product([d for i, d in enumerate(dims) if i != infer_at])
        if isinstance(total, int) and isinstance(rest, int) and rest:
            if total % rest:
                raise InferenceError(f"cannot reshape {total} elements to a multiple of {rest}")
            dims[infer_at] = total // rest
    ctx.set_tensor(0, t.elem, tuple(dims))


@rule("Concat")
def concat(ctx: NodeContext) -> None:
    types = [ctx.tensor(i) for i in range(ctx.n_inputs)]
    elem = next((t.elem for t in types if t is not None and t.elem), 0)
    shapes = [t.shape if t is not None else None for t in types]
    if any(s is None for s in shapes) or not shapes:
        ctx.set_tensor(0, elem, None)
        return
    rank = len(shapes[0])  # type: ignore[arg-type]
    if any(len(s) != rank for s in shapes):  # type: ignore[arg-type]
        raise InferenceError("all inputs of Concat must have the same rank")
    if ctx.opset < 11 and ctx.attr_int("axis", 0) < 0:  # no negative axis before 11: onnx
        ctx.set_tensor(0, elem, None)  # leaves the shape unknown
        return
    axis = axis_in(ctx.attr_int("axis", 0), rank)
    if len(shapes) == 1 and ctx.opset >= 11:  # one input: its shape, a symbol kept (as onnx's 11)
        ctx.set_tensor(0, elem, shapes[0])
        return
    out: list[Dim] = [None] * rank
    total: int | None = 0
    for s in shapes:
        assert s is not None
        for j, d in enumerate(s):
            if j == axis:
                total = total + d if isinstance(d, int) and total is not None else None
            elif isinstance(d, int):
                if isinstance(out[j], int) and out[j] != d:
                    raise InferenceError(f"Concat inputs differ at axis {j}: {out[j]} and {d}")
                out[j] = d
            elif d is not None and out[j] is None:
                out[j] = d
    out[axis] = total
    ctx.set_tensor(0, elem, tuple(out))


@rule("Gather")
def gather(ctx: NodeContext) -> None:
    data, indices = ctx.tensor(0), ctx.shape(1)
    if data is None:
        return
    if data.shape is None or indices is None:
        ctx.set_tensor(0, data.elem, None)
        return
    axis = axis_in(ctx.attr_int("axis", 0), len(data.shape))
    ctx.set_tensor(0, data.elem, data.shape[:axis] + indices + data.shape[axis + 1 :])


@rule("GatherElements")
def gather_elements(ctx: NodeContext) -> None:
    data = ctx.tensor(0)
    if data is not None:
        ctx.set_tensor(0, data.elem, ctx.shape(1))


@rule("GatherND")
def gather_nd(ctx: NodeContext) -> None:
    data, indices = ctx.tensor(0), ctx.shape(1)
    if data is None:
        return
    if data.shape is None or indices is None or not indices or not isinstance(indices[-1], int):
        ctx.set_tensor(0, data.elem, None)
        return
    batch = ctx.attr_int("batch_dims", 0)
    ctx.set_tensor(0, data.elem, indices[:-1] + data.shape[batch + indices[-1] :])


def _slice_length(dim: int, start: int, end: int, step: int) -> int:
    if step == 0:
        raise InferenceError("Slice step must not be 0")
    if start < 0:
        start += dim
    if end < 0:
        end += dim
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        return max(0, math.ceil((end - start) / step))
    start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
    return max(0, math.ceil((start - end) / -step))


@rule("Slice")
def slice_(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    if ctx.opset < 10:
        starts, ends = ctx.attr_ints("starts"), ctx.attr_ints("ends")
        axes, steps = ctx.attr_ints("axes"), None
    else:
        starts, ends = ctx.ints(1), ctx.ints(2)
        # As onnx: an axes or steps input whose shape is unknown counts as absent (its
        # default), one of known shape but unknown values leaves only the rank known.
        given_axes, given_steps = ctx.shape(3) is not None, ctx.shape(4) is not None
        axes = ctx.ints(3) if given_axes else None
        steps = ctx.ints(4) if given_steps else None
        if (given_axes and axes is None) or (given_steps and steps is None):
            starts = None
    if starts is None or ends is None:
        ctx.set_tensor(0, t.elem, _unknown(rank))
        return
    axes = axes if axes is not None else list(range(len(starts)))
    steps = steps if steps is not None else [1] * len(starts)
    if not len(starts) == len(ends) == len(axes) == len(steps):
        raise InferenceError("Slice: starts, ends, axes and steps differ in length")
    dims = list(t.shape)
    for start, end, axis, step in zip(starts, ends, axes, steps, strict=False):
        a = axis_in(axis, rank)
        d = dims[a]
        dims[a] = _slice_length(d, start, end, step) if isinstance(d, int) else None
    ctx.set_tensor(0, t.elem, tuple(dims))


def _axes(ctx: NodeContext, since: int) -> list[int] | None:
    """Axes from the attribute (before ``since``) or from input 1 (from ``since``)."""
    if ctx.opset < since:
        return ctx.attr_ints("axes")
    return ctx.ints(1) if ctx.has_input(1) else None


@rule("Squeeze")
def squeeze(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    axes = _axes(ctx, 13)
    if t.shape is None or (axes is None and ctx.opset >= 13 and ctx.has_input(1)):
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    if axes is None:
        if any(not isinstance(d, int) for d in t.shape):
            ctx.set_tensor(0, t.elem, None)
            return
        ctx.set_tensor(0, t.elem, tuple(d for d in t.shape if d != 1))
        return
    drop = {axis_in(a, rank) for a in axes}
    for a in drop:
        if isinstance(t.shape[a], int) and t.shape[a] != 1:
            raise InferenceError(f"cannot squeeze axis {a} of size {t.shape[a]}")
    ctx.set_tensor(0, t.elem, tuple(d for i, d in enumerate(t.shape) if i not in drop))


@rule("Unsqueeze")
def unsqueeze(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    axes = _axes(ctx, 13)
    if t.shape is None or axes is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape) + len(axes)
    ones = {axis_in(a, rank) for a in axes}
    if len(ones) != len(axes):
        raise InferenceError("Unsqueeze axes repeat")
    rest = iter(t.shape)
    ctx.set_tensor(0, t.elem, tuple(1 if i in ones else next(rest) for i in range(rank)))


@rule("Transpose")
def transpose(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    perm = ctx.attr_ints("perm")
    rank = len(t.shape)
    if perm is None:
        perm = list(range(rank - 1, -1, -1))
    if sorted(axis_in(p, rank) for p in perm) != list(range(rank)):
        raise InferenceError(f"perm {perm} is not a permutation of the input's {rank} axes")
    ctx.set_tensor(0, t.elem, tuple(t.shape[axis_in(p, rank)] for p in perm))


@rule("Expand")
def expand(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    target = ctx.dims_of(1, symbolic=ctx.opset >= 13)
    if target is None:
        n = _length_of_1d(ctx, 1)
        if n is not None and t.shape is not None:
            ctx.set_tensor(0, t.elem, broadcast([t.shape, _unknown(n)]))
        else:
            ctx.set_tensor(0, t.elem, None)
        return
    ctx.set_tensor(0, t.elem, broadcast([t.shape, tuple(target)]))


@rule("Tile")
def tile(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    repeats = ctx.ints(1)
    if repeats is None:
        ctx.set_tensor(0, t.elem, _unknown(len(t.shape)))
        return
    ctx.set_tensor(
        0,
        t.elem,
        tuple(d * r if isinstance(d, int) else None for d, r in zip(t.shape, repeats, strict=False)),
    )


@rule("Flatten")
def flatten(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    axis = ctx.attr_int("axis", 1)
    if axis < 0:
        axis += rank
    if not 0 <= axis <= rank:
        raise InferenceError(f"Flatten axis {axis} out of range for rank {rank}")
    ctx.set_tensor(0, t.elem, (product(t.shape[:axis]), product(t.shape[axis:])))


@rule("Split")
def split(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    n = ctx.n_outputs
    if t.shape is None:
        for i in range(n):
            ctx.set_tensor(i, t.elem, None)
        return
    rank = len(t.shape)
    axis = axis_in(ctx.attr_int("axis", 0), rank)
    d = t.shape[axis]
    sizes: list[int] | None
    if ctx.opset < 13:
        sizes = ctx.attr_ints("split")
        if sizes is None and ctx.has_input(1):
            sizes = ctx.ints(1)
    else:
        sizes = ctx.ints(1) if ctx.has_input(1) else None
        if ctx.has_input(1) and sizes is None:
            if isinstance(d, int):  # as onnx: a sized axis split at run time leaves the shape open
                for i in range(n):
                    ctx.set_tensor(i, t.elem, None)
                return
            for i in range(n):
                ctx.set_tensor(i, t.elem, (*t.shape[:axis], None, *t.shape[axis + 1 :]))
            return
    lengths: list[Dim]
    if sizes is not None:
        if len(sizes) != n:
            raise InferenceError(f"split has {len(sizes)} sizes for {n} outputs")
        if isinstance(d, int) and sum(sizes) != d:
            raise InferenceError(f"split sizes sum to {sum(sizes)}, not the axis' {d}")
        # as onnx: the sizes are given to the outputs only when the axis' size is known
        lengths = [*sizes] if isinstance(d, int) else [None] * n
    elif not isinstance(d, int):
        lengths = [None] * n
    elif ctx.opset >= 18 and ctx.has_attr("num_outputs"):
        chunk = -(-d // n)
        lengths = [*([chunk] * (n - 1)), d - chunk * (n - 1)]
    else:
        if d % n:
            raise InferenceError(f"axis of size {d} does not split into {n} equal parts")
        lengths = [d // n] * n
    for i, length in enumerate(lengths):
        ctx.set_tensor(i, t.elem, (*t.shape[:axis], length, *t.shape[axis + 1 :]))


@rule("Pad")
def pad(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    pads = ctx.attr_ints("pads") if ctx.opset < 11 else ctx.ints(1)
    if pads is None:
        # as onnx: with axes known only at run time, not even the rank is claimed
        axes_unknown = ctx.opset >= 18 and ctx.has_input(3) and ctx.ints(3) is None
        ctx.set_tensor(0, t.elem, None if axes_unknown else _unknown(rank))
        return
    axes = list(range(rank))
    if ctx.opset >= 18 and ctx.has_input(3):
        given = ctx.ints(3)
        if given is None:
            ctx.set_tensor(0, t.elem, _unknown(rank))
            return
        axes = [axis_in(a, rank) for a in given]
    if len(pads) != 2 * len(axes):
        raise InferenceError(f"pads has {len(pads)} values for {len(axes)} axes")
    dims = list(t.shape)
    for k, a in enumerate(axes):
        total = pads[k] + pads[k + len(axes)]
        if not -(1 << 63) <= total < 1 << 63:
            raise InferenceError(f"the total padding of axis {a} ({total}) would overflow int64")
        d = dims[a]
        dims[a] = d + total if isinstance(d, int) else None
    ctx.set_tensor(0, t.elem, tuple(dims))


_RANGE_COMPUTED = frozenset({FLOAT, DOUBLE, INT32, INT64})


@rule("Range")
def range_(ctx: NodeContext) -> None:
    elem = ctx.elem(0)
    # onnx computes the length from stored float, double, int32 and int64 values only
    values = [ctx.value(i) for i in range(3)] if elem in _RANGE_COMPUTED else [None]
    if all(v is not None and v.size == 1 for v in values):
        start, limit, delta = (float(v.reshape(-1)[0]) for v in values if v is not None)
        if delta == 0:
            raise InferenceError("Range delta must not be 0")
        ctx.set_tensor(0, elem, (max(0, math.ceil((limit - start) / delta)),))
    else:
        ctx.set_tensor(0, elem, (None,))


@rule("NonZero")
def nonzero(ctx: NodeContext) -> None:
    ctx.set_tensor(0, INT64, (ctx.rank(0), None))


@rule("Compress")
def compress(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if not ctx.has_attr("axis"):
        ctx.set_tensor(0, t.elem, (None,))
    elif t.shape is None:
        ctx.set_tensor(0, t.elem, None)
    else:
        axis = axis_in(ctx.attr_int("axis", 0), len(t.shape))
        ctx.set_tensor(0, t.elem, (*t.shape[:axis], None, *t.shape[axis + 1 :]))


@rule("OneHot")
def one_hot(ctx: NodeContext) -> None:
    indices = ctx.shape(0)
    elem = ctx.elem(2)
    if indices is None:
        ctx.set_tensor(0, elem, None)
        return
    rank = len(indices) + 1
    axis = axis_in(ctx.attr_int("axis", -1), rank)
    depth = ctx.value(1)
    size: Dim = None
    if depth is not None and depth.size == 1:
        size = int(depth.reshape(-1)[0])
        if size < 0:
            raise InferenceError("OneHot: input 'depth' must not be negative")
    stored = ctx.value(0) if ctx.opset < 11 else None
    if stored is not None and stored.dtype.kind in "iu" and (stored < 0).any():
        raise InferenceError("OneHot: input 'indices' must not be negative before opset 11")
    ctx.set_tensor(0, elem, (*indices[:axis], size, *indices[axis:]))


@rule("TopK")
def top_k(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        ctx.set_tensor(1, INT64, None)
        return
    axis = axis_in(ctx.attr_int("axis", -1), len(t.shape))
    k: Dim = None
    if ctx.opset < 10:
        k = ctx.attr_int("k", 0)
    else:
        given = ctx.ints(1)
        if given is not None and len(given) == 1:
            k = given[0]
    shape = (*t.shape[:axis], k, *t.shape[axis + 1 :]) if k is not None else _unknown(len(t.shape))
    ctx.set_tensor(0, t.elem, shape)
    ctx.set_tensor(1, INT64, shape)


def _blocks(ctx: NodeContext, into_space: bool) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None or len(t.shape) != 4:
        ctx.set_tensor(0, t.elem, None if t.shape is None else t.shape)
        if t.shape is not None:
            raise InferenceError("input must be 4-D")
        return
    b = ctx.attr_int("blocksize", 0)
    if b * b >= 1 << 63:
        raise InferenceError(f"blocksize {b}: the block area would overflow int64")
    n, c, h, w = t.shape

    def times(d: Dim, k: int, divide: bool) -> Dim:
        if not isinstance(d, int):
            return None
        return d // k if divide else d * k

    if into_space:
        shape: Shape = (n, times(c, b * b, True), times(h, b, False), times(w, b, False))
    else:
        shape = (n, times(c, b * b, False), times(h, b, True), times(w, b, True))
    ctx.set_tensor(0, t.elem, shape)


@rule("DepthToSpace")
def depth_to_space(ctx: NodeContext) -> None:
    _blocks(ctx, True)


@rule("SpaceToDepth")
def space_to_depth(ctx: NodeContext) -> None:
    _blocks(ctx, False)


def _given(ctx: NodeContext, i: int) -> bool:
    """Whether Resize's input ``i`` is given: present and not known to be empty. As onnx
    reads them, scales (input 2) is empty only as a stored tensor, sizes (input 3) also
    when its shape is ``[0]`` (a computed scales of shape ``[0]`` counts as given)."""
    if not ctx.has_input(i):
        return False
    v = ctx.value(i)
    if v is not None:
        return bool(v.size)
    if i == 2:
        return True
    return ctx.shape(i) != (0,)


@rule("Resize", "Upsample")
def resize(ctx: NodeContext) -> None:
    if ctx.node.op_type == "Resize" and ctx.opset >= 13 and _given(ctx, 2) == _given(ctx, 3):
        raise ctx.fail("either `sizes` or `scales` must be provided, but not both of them")
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    op = ctx.node.op_type
    if op == "Upsample":
        given = ctx.attrs.get("scales")
        scales = [float(x) for x in given.floats] if given is not None else None
        if ctx.opset >= 9:
            v = ctx.value(1)
            scales = [float(x) for x in v.reshape(-1)] if v is not None else None
        sizes = None
    else:
        scales_at, sizes_at = (2, 3) if ctx.opset >= 11 else (1, -1)
        v = ctx.value(scales_at) if ctx.has_input(scales_at) else None
        scales = [float(x) for x in v.reshape(-1)] if v is not None and v.size else None
        sizes = ctx.ints(sizes_at) if sizes_at > 0 and ctx.has_input(sizes_at) else None
        sizes = sizes or None  # an empty sizes tensor stands for "not given", as an empty scales
    chosen = ctx.attr_ints("axes") if op == "Resize" and ctx.opset >= 18 else None
    axes = [axis_in(a, rank) for a in chosen] if chosen else list(range(rank))
    dims: list[Dim] = list(t.shape)
    if sizes is not None:
        policy = ctx.attr_str("keep_aspect_ratio_policy", "stretch")
        if policy != "stretch":
            _keep_aspect_ratio(ctx, t.elem, dims, axes, sizes, policy == "not_larger")
            return
        for a, size in zip(axes, sizes, strict=False):
            dims[a] = size
    elif scales is not None:
        for a, scale in zip(axes, scales, strict=False):
            d = dims[a]
            dims[a] = math.floor(d * scale) if isinstance(d, int) else None
    elif op == "Resize" and ctx.opset >= 11 and ctx.has_input(3):
        for a in axes:  # sizes computed at run time: the other axes keep their size
            dims[a] = None
    else:
        dims = [None] * rank
    ctx.set_tensor(0, t.elem, tuple(dims))


def _keep_aspect_ratio(
    ctx: NodeContext, elem: int, dims: list[Dim], axes: list[int], sizes: list[int], not_larger: bool
) -> None:
    """Resize's ``sizes`` under ``keep_aspect_ratio_policy`` ``not_larger`` / ``not_smaller``
    (the operator's doc): one scale for every axis, the smallest / largest ``sizes[i] / in[d]``,
    and ``out[d] = round_int(scale * in[d])``, halfway cases rounded up."""
    known = [dims[a] for a in axes]
    if len(sizes) != len(axes) or not all(isinstance(d, int) and d > 0 for d in known):
        ctx.set_tensor(0, elem, _unknown(len(dims)))
        return
    ratios = [size / d for size, d in zip(sizes, known, strict=True) if isinstance(d, int)]
    scale = min(ratios) if not_larger else max(ratios)
    for a in axes:
        d = dims[a]
        dims[a] = math.floor(scale * d + 0.5) if isinstance(d, int) else None
    ctx.set_tensor(0, elem, tuple(dims))


@rule("CenterCropPad")
def center_crop_pad(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    sizes = ctx.ints(1)
    if sizes is None:
        ctx.set_tensor(0, t.elem, None)
        return
    axes = ctx.attr_ints("axes") or list(range(rank))
    dims: list[Dim] = list(t.shape)
    for k, a in enumerate(axes):
        dims[axis_in(a, rank)] = sizes[k] if sizes is not None else None
    ctx.set_tensor(0, t.elem, tuple(dims))


_ = _INT_MAX
