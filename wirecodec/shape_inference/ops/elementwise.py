"""Elementwise operators: unary (same type and shape), broadcasting binary and variadic ones,
comparisons and logic (boolean results), Where."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import TensorType
from wirecodec.shape_inference.ops._util import BOOL, FLOAT, axis_in, broadcast, same_as_input

_SAME = [
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Ceil",
    "Cos",
    "Cosh",
    "Elu",
    "Erf",
    "Exp",
    "Floor",
    "HardSigmoid",
    "HardSwish",
    "LeakyRelu",
    "Log",
    "Mish",
    "Neg",
    "Reciprocal",
    "Relu",
    "Round",
    "Selu",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Tan",
    "Tanh",
    "ThresholdedRelu",
    "Celu",
    "Shrink",
    "Gelu",
    "Swish",
    "BitwiseNot",
    "Not",
    "LpNormalization",
    "Clip",
    "CumSum",
    "CumProd",
    "LRN",
    "ReverseSequence",
    "Trilu",
    "Scatter",
    "ScatterElements",
    "ScatterND",
    "PRelu",
    "TensorScatter",
]


@rule(*_SAME)
def same_type_and_shape(ctx: NodeContext) -> None:
    """Output 0 is input 0's type and shape (the element type follows the shared constraint T)."""
    t = ctx.tensor(0)
    if t is not None:
        ctx.set(0, TensorType(ctx.known_elem(0), t.shape))


@rule("Softmax", "LogSoftmax", "Hardmax")
def softmax_family(ctx: NodeContext) -> None:
    """Same type and shape; from opset 11 the axis must be one of the input's."""
    t = ctx.tensor(0)
    if t is None:
        return
    if ctx.opset >= 11 and t.shape is not None:
        axis_in(ctx.attr_int("axis", -1 if ctx.opset >= 13 else 1), len(t.shape))
    ctx.set(0, TensorType(t.elem, t.shape))


@rule("Identity")
def identity(ctx: NodeContext) -> None:
    same_as_input(ctx)


@rule("IsNaN", "IsInf")
def is_special(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is not None:
        ctx.set_tensor(0, BOOL, t.shape)


@rule("Dropout")
def dropout(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is not None:
        ctx.set_tensor(0, t.elem, t.shape)
        if ctx.has_output(1) and ctx.opset >= 10:  # before 10 onnx leaves the mask untyped
            ctx.set_tensor(1, BOOL, t.shape)


_ARITH = ["Add", "Sub", "Mul", "Div", "Pow", "Mod", "BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor"]
_LOGIC = ["And", "Or", "Xor", "Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]


@rule(*_ARITH)
def arithmetic(ctx: NodeContext) -> None:
    """Broadcasting binary arithmetic: the element type of A (shared constraint T)."""
    if ctx.tensor(0) is None:
        return
    ctx.set_tensor(0, ctx.known_elem(0), broadcast([ctx.shape(0), ctx.shape(1)]))


@rule(*_LOGIC)
def logic(ctx: NodeContext) -> None:
    """Comparisons and logic: a boolean broadcast of both inputs."""
    ctx.set_tensor(0, BOOL, broadcast([ctx.shape(0), ctx.shape(1)]))


@rule("Max", "Min", "Sum", "Mean")
def variadic(ctx: NodeContext) -> None:
    """The broadcast of every input, with their shared element type."""
    if ctx.tensor(0) is None:
        return
    ctx.set_tensor(0, ctx.elem(0), broadcast([ctx.shape(i) for i in range(ctx.n_inputs)]))


@rule("Where")
def where(ctx: NodeContext) -> None:
    """Where(C, X, Y): X's element type, the broadcast of all three."""
    if ctx.tensor(1) is None:
        return
    ctx.set_tensor(0, ctx.elem(1), broadcast([ctx.shape(0), ctx.shape(1), ctx.shape(2)]))


@rule("Bernoulli", "RandomUniformLike", "RandomNormalLike", "EyeLike")
def like(ctx: NodeContext) -> None:
    """Input 0's shape; the ``dtype`` attribute's element type, else input 0's."""
    t = ctx.tensor(0)
    elem = ctx.attr_int("dtype", 0) or (t.elem if t is not None else 0)
    if elem:
        ctx.set_tensor(0, elem, t.shape if t is not None else None)


@rule("RandomUniform", "RandomNormal")
def random(ctx: NodeContext) -> None:
    shape = ctx.attr_ints("shape")
    ctx.set_tensor(0, ctx.attr_int("dtype", FLOAT), tuple(shape) if shape is not None else None)


@rule("MeanVarianceNormalization")
def mean_variance_normalization(ctx: NodeContext) -> None:
    """Input 0's type. onnx infers it through its function body: version 9's keeps the
    shape; from version 13 the body's reductions read ``axes`` from the call, so the shape
    is kept only when ``axes`` is given and each axis is one of the input's (else the
    element type alone)."""
    t = ctx.tensor(0)
    if t is None:
        return
    if ctx.opset < 13:
        ctx.set(0, TensorType(t.elem, t.shape))
        return
    axes = ctx.attr_ints("axes")
    rank = len(t.shape) if t.shape is not None else None
    kept = axes is not None and rank is not None and all(-rank <= a < rank for a in axes)
    ctx.set_tensor(0, t.elem, t.shape if kept else None)


@rule("Multinomial")
def multinomial(ctx: NodeContext) -> None:
    """(batch, sample_size) samples, int32 unless ``dtype`` says otherwise."""
    s = ctx.shape(0)
    batch = s[0] if s is not None and len(s) == 2 else None
    ctx.set_tensor(0, ctx.attr_int("dtype", 6), (batch, ctx.attr_int("sample_size", 1)))
