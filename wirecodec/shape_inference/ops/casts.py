"""Casts and constants: Cast, CastLike, Shape, Size, Constant, ConstantOfShape, quantization."""

from __future__ import annotations

from schema_dsl.onnx import AttributeProto
from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import MAX_RANK, Dim
from wirecodec.shape_inference.ops._util import FLOAT, INT64, UINT8

_A = AttributeProto.AttributeType


@rule("Cast")
def cast(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    ctx.set_tensor(0, ctx.attr_int("to", 0), t.shape if t is not None else None)


@rule("CastLike")
def cast_like(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    target = ctx.tensor(1)
    if target is not None:
        ctx.set_tensor(0, target.elem, t.shape if t is not None else None)


@rule("BitCast")
def bit_cast(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    ctx.set_tensor(0, ctx.attr_int("to", 0), t.shape if t is not None else None)


def _clamp(value: int, rank: int) -> int:
    if value < 0:
        value += rank
    return min(max(value, 0), rank)


@rule("Shape")
def shape(ctx: NodeContext) -> None:
    """A 1-D int64 tensor as long as the (start, end) slice of the input's rank."""
    rank = ctx.rank(0)
    if rank is None:
        ctx.set_tensor(0, INT64, (None,))
        return
    start = _clamp(ctx.attr_int("start", 0), rank)
    end = _clamp(ctx.attr_int("end", rank), rank)
    ctx.set_tensor(0, INT64, (max(end - start, 0),))


@rule("Size")
def size(ctx: NodeContext) -> None:
    ctx.set_tensor(0, INT64, ())


@rule("Constant")
def constant(ctx: NodeContext) -> None:
    """The type of whichever value attribute the node has."""
    for name, attr in ctx.attrs.items():
        if name == "value" and attr.HasField("t"):
            ctx.set_tensor(0, attr.t.data_type, tuple(int(d) for d in attr.t.dims))
        elif name == "sparse_value" and attr.HasField("sparse_tensor"):
            sp = attr.sparse_tensor
            # a dense tensor type, as onnx infers it (its output is declared as T, a tensor)
            ctx.set_tensor(0, sp.values.data_type, tuple(int(d) for d in sp.dims))
        elif name == "value_int":
            ctx.set_tensor(0, INT64, ())
        elif name == "value_ints":
            ctx.set_tensor(0, INT64, (len(attr.ints),))
        elif name == "value_float":
            ctx.set_tensor(0, FLOAT, ())
        elif name == "value_floats":
            ctx.set_tensor(0, FLOAT, (len(attr.floats),))
        elif name == "value_string":
            ctx.set_tensor(0, 8, ())
        elif name == "value_strings":
            ctx.set_tensor(0, 8, (len(attr.strings),))


@rule("ConstantOfShape")
def constant_of_shape(ctx: NodeContext) -> None:
    """The ``value`` attribute's element type (float by default); the shape its input gives."""
    value = ctx.attrs.get("value")
    elem = value.t.data_type if value is not None and value.HasField("t") else FLOAT
    stored = ctx.stored_type(0)
    if stored is not None and stored != INT64:  # (onnx reads the shape as int64 data only)
        raise ctx.fail(f"ConstantOfShape reads its shape as INT64 data, not data of type {stored}")
    dims = ctx.dims_of(0)
    if dims is not None:
        ctx.set_tensor(0, elem, tuple(dims))
        return
    given = ctx.shape(0)
    if given is not None and len(given) == 1 and isinstance(given[0], int) and given[0] <= MAX_RANK:
        ctx.set_tensor(0, elem, tuple(None for _ in range(given[0])))
    else:
        ctx.set_tensor(0, elem, None)


@rule("QuantizeLinear")
def quantize(ctx: NodeContext) -> None:
    """The zero point's element type (or ``output_dtype``, else uint8); the input's shape."""
    elem = ctx.elem(2) if ctx.has_input(2) else 0
    wanted = ctx.attr_int("output_dtype", 0)
    if elem and wanted and elem != wanted:
        raise ctx.fail(f"output_dtype {wanted} differs from the zero point's element type {elem}")
    elem = elem or wanted or UINT8
    t = ctx.tensor(0)
    ctx.set_tensor(0, elem, t.shape if t is not None else None)


@rule("DequantizeLinear")
def dequantize(ctx: NodeContext) -> None:
    """The scale's element type (or ``output_dtype``); the input's shape."""
    elem = ctx.attr_int("output_dtype", 0) or ctx.elem(1)
    t = ctx.tensor(0)
    if elem:
        ctx.set_tensor(0, elem, t.shape if t is not None else None)


@rule("DynamicQuantizeLinear")
def dynamic_quantize(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    ctx.set_tensor(0, UINT8, t.shape if t is not None else None)
    scalar: tuple[Dim, ...] = ()
    ctx.set_tensor(1, FLOAT, scalar)
    ctx.set_tensor(2, UINT8, scalar)
