"""What the families share: element type numbers, broadcasting, axes, dimension arithmetic."""

from __future__ import annotations

from collections.abc import Sequence

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._types import Dim, InferenceError, Shape

# TensorProto.DataType numbers the rules name
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL = 1, 2, 3, 4, 5, 6, 7, 8, 9
FLOAT16, DOUBLE, UINT32, UINT64 = 10, 11, 12, 13


def broadcast(shapes: Sequence[Shape]) -> Shape:
    """The shape of a multidirectional (numpy-style) broadcast of ``shapes``.

    Per axis: a size other than 1 wins (two different ones are an error); when all sizes
    are 1 or absent, one symbol (or one unknown) is kept, several different ones give unknown.
    """
    if any(s is None for s in shapes):
        return None
    known = [s for s in shapes if s is not None]
    rank = max((len(s) for s in known), default=0)
    out: list[Dim] = []
    for axis in range(rank):
        value = 1
        symbols: list[Dim] = []
        for s in known:
            i = axis - (rank - len(s))
            if i < 0:
                continue
            d = s[i]
            if isinstance(d, int):
                if d != 1:
                    if value != 1 and d != value:
                        raise InferenceError(
                            f"incompatible dimensions {value} and {d} at axis {axis} in broadcast"
                        )
                    value = d
            elif not symbols or d != symbols[0]:
                symbols.append(d)
        if value != 1 or not symbols:
            out.append(value)
        elif len(symbols) == 1:
            out.append(symbols[0])
        else:
            out.append(None)
    return tuple(out)


def axis_in(axis: int, rank: int, what: str = "axis") -> int:
    """``axis`` (which may count from the end) as a position in ``range(rank)``."""
    if not -rank <= axis < rank:
        raise InferenceError(f"{what} {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def product(dims: Sequence[Dim]) -> Dim:
    """The product of sizes, or None when one is not a known size."""
    result = 1
    for d in dims:
        if not isinstance(d, int):
            return None
        result *= d
    return result


def same_as_input(ctx: NodeContext, i: int = 0, out: int = 0) -> None:
    """Output ``out`` has input ``i``'s type (tensor or not)."""
    t = ctx.input_type(i)
    if t is not None:
        ctx.set(out, t)
