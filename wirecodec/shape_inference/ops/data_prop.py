"""``data_prop``: the values of small integer tensors that compute shapes.

Each propagator returns output 0's values (sizes, symbols or unknowns) from its inputs'
values: a ``Shape`` gives the input's dimensions, and Gather, Concat, Slice, Squeeze,
Unsqueeze, Cast, Size and Add/Sub/Mul carry them on (from the opsets
where onnx's schemas do), so a ``Reshape`` or an
``Expand`` fed by such a chain learns its target shape. Stored integer tensors
(initializers, ``Constant``) count as values too.
"""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import propagator
from wirecodec.shape_inference._types import Dim

_INTEGER_TYPES = {2, 3, 4, 5, 6, 7, 12, 13}

# the first opset whose schema of each op propagates values (Shape and Gather: all of them)
SINCE = {"Add": 14, "Sub": 14, "Mul": 14, "Cast": 13, "Concat": 13, "Size": 13, "Slice": 13}
SINCE.update(Squeeze=13, Unsqueeze=13)


@propagator("Shape")
def shape(ctx: NodeContext) -> tuple[Dim, ...] | None:
    s = ctx.shape(0)
    if s is None:
        return None
    rank = len(s)

    def clamp(v: int) -> int:
        return min(max(v + rank if v < 0 else v, 0), rank)

    return s[clamp(ctx.attr_int("start", 0)) : clamp(ctx.attr_int("end", rank))]


@propagator("Squeeze", "Unsqueeze")
def same_values(ctx: NodeContext) -> tuple[Dim, ...] | None:
    # a 0-D or 1-D value list is the same list after adding or removing a unit axis
    rank = ctx.rank(0)
    if rank is not None and rank > 1:
        return None
    return ctx.dims_of(0)


@propagator("Cast")
def cast(ctx: NodeContext) -> tuple[Dim, ...] | None:
    if ctx.attr_int("to", 0) not in _INTEGER_TYPES:
        return None
    return ctx.dims_of(0)


@propagator("Size")
def size(ctx: NodeContext) -> tuple[Dim, ...] | None:
    s = ctx.shape(0)
    if s is None or not all(isinstance(d, int) for d in s):
        return None
    total = 1
    for d in s:
        assert isinstance(d, int)
        total *= d
    return (total,)


@propagator("Concat")
def concat(ctx: NodeContext) -> tuple[Dim, ...] | None:
    values: list[Dim] = []
    for i in range(ctx.n_inputs):
        part = ctx.dims_of(i)
        if part is None:
            # a part without values still has a length: that many unknown values
            s = ctx.shape(i)
            if s is None or len(s) > 1 or (s and not isinstance(s[0], int)):
                return None
            part = tuple(None for _ in range(s[0] if s else 1))  # type: ignore[arg-type]
        values.extend(part)
    return tuple(values)


@propagator("Gather")
def gather(ctx: NodeContext) -> tuple[Dim, ...] | None:
    data, indices = ctx.dims_of(0), ctx.ints(1)
    if data is None or indices is None or ctx.attr_int("axis", 0) != 0 or (ctx.rank(0) or 1) > 1:
        return None
    n = len(data)
    if any(not -n <= i < n for i in indices):
        return None
    return tuple(data[i] for i in indices)


@propagator("Slice")
def slice_(ctx: NodeContext) -> tuple[Dim, ...] | None:
    data = ctx.dims_of(0)
    starts, ends = ctx.ints(1), ctx.ints(2)
    steps = ctx.ints(4) if ctx.has_input(4) else [1]
    axes = ctx.ints(3) if ctx.has_input(3) else [0]
    if data is None or starts is None or ends is None or steps is None or axes is None:
        return None
    if len(starts) != 1 or len(ends) != 1 or len(steps) != 1 or axes not in ([0], [-1]) or steps[0] == 0:
        return None
    return tuple(list(data)[slice(starts[0], ends[0], steps[0])])


def _arith(op: str, a: Dim, b: Dim) -> Dim:
    if not isinstance(a, int) or not isinstance(b, int):
        return None
    if op == "Add":
        return a + b
    if op == "Sub":
        return a - b
    return a * b


@propagator("Add", "Sub", "Mul")
def arithmetic(ctx: NodeContext) -> tuple[Dim, ...] | None:
    a, b = ctx.dims_of(0), ctx.dims_of(1)
    if a is None or b is None:
        return None
    if len(a) == 1 and len(b) != 1:
        a = a * len(b)
    elif len(b) == 1 and len(a) != 1:
        b = b * len(a)
    if len(a) != len(b):
        return None
    return tuple(_arith(ctx.node.op_type, x, y) for x, y in zip(a, b, strict=True))
