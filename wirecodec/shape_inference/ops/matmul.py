"""Matrix products: MatMul (numpy rules), Gemm, MatMulInteger, QLinearMatMul, Einsum."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim, InferenceError, Shape
from wirecodec.shape_inference.ops._util import INT32, broadcast


def matmul_shape(a: Shape, b: Shape) -> Shape:
    """The shape of ``a @ b`` as numpy computes it (1-D operands promoted, then dropped)."""
    if a is None or b is None:
        return None
    if not a or not b:
        raise InferenceError("MatMul inputs must not be scalars")
    left = (1, *a) if len(a) == 1 else a
    right = (*b, 1) if len(b) == 1 else b
    k1, k2 = left[-1], right[-2]
    if isinstance(k1, int) and isinstance(k2, int) and k1 != k2:
        raise InferenceError(f"MatMul inner dimensions differ: {k1} and {k2}")
    batch = broadcast([left[:-2], right[:-2]])
    assert batch is not None
    out: list[Dim] = list(batch)
    if len(a) != 1:
        out.append(left[-2])
    if len(b) != 1:
        out.append(right[-1])
    return tuple(out)


@rule("MatMul")
def matmul(ctx: NodeContext) -> None:
    if ctx.tensor(0) is None:
        return
    ctx.set_tensor(0, ctx.elem(0), matmul_shape(ctx.shape(0), ctx.shape(1)))


@rule("MatMulInteger")
def matmul_integer(ctx: NodeContext) -> None:
    ctx.set_tensor(0, INT32, matmul_shape(ctx.shape(0), ctx.shape(1)))


@rule("QLinearMatMul")
def qlinear_matmul(ctx: NodeContext) -> None:
    ctx.set_tensor(0, ctx.elem(7), matmul_shape(ctx.shape(0), ctx.shape(3)))


@rule("Gemm")
def gemm(ctx: NodeContext) -> None:
    if ctx.tensor(0) is None:
        return
    a, b = ctx.shape(0), ctx.shape(1)
    if a is not None and b is not None and ctx.opset >= 6:
        # From Gemm 6 both operands must be matrices; from Gemm 13 their inner sizes must agree.
        for i, shape in enumerate((a, b)):
            if len(shape) != 2:
                raise InferenceError(f"Gemm input {i} must have rank 2, not {len(shape)}")
    if a is None or b is None or len(a) != 2 or len(b) != 2:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    trans_a, trans_b = ctx.attr_int("transA", 0), ctx.attr_int("transB", 0)
    k_a, k_b = a[0 if trans_a else 1], b[1 if trans_b else 0]
    if ctx.opset >= 13 and isinstance(k_a, int) and isinstance(k_b, int) and k_a != k_b:
        raise InferenceError(f"Gemm inner dimensions differ: {k_a} and {k_b}")
    m = a[1] if trans_a else a[0]
    n = b[0] if trans_b else b[1]
    ctx.set_tensor(0, ctx.elem(0), (m, n))


@rule("Einsum")
def einsum(ctx: NodeContext) -> None:
    """Dimensions follow the letters of the equation; every ellipsis stands for as many axes."""
    equation = ctx.attr_str("equation", "").replace(" ", "")
    elem = ctx.elem(0)
    left, arrow, right = equation.partition("->")
    terms = left.split(",")
    if len(terms) != ctx.n_inputs:
        raise InferenceError(f"Einsum equation has {len(terms)} terms for {ctx.n_inputs} inputs")
    sizes: dict[str, Dim] = {}
    ell: tuple[Dim, ...] | None = None  # the ellipsis' axes, as the first term with one gives them
    first = 0
    for i, term in enumerate(terms):
        shape = ctx.shape(i)
        if shape is None:
            ctx.set_tensor(0, elem, None)
            return
        letters = term.replace("...", "")
        if "..." in term:
            n_ell = len(shape) - len(letters)
            at = term.index("...")
            axes = shape[at : at + n_ell]
            if ell is None:
                ell, first = axes, i
            elif len(axes) != len(ell):
                raise InferenceError(
                    f"Ellipsis for input {i} represents {len(axes)} dimensions, "
                    f"but ellipsis for input {first} represents {len(ell)} dimensions."
                )
            else:  # a size of 1 gives way to a later size; anything else stays (as onnx)
                ell = tuple(
                    new if old == 1 and isinstance(new, int) else old
                    for old, new in zip(ell, axes, strict=True)
                )
            shape = shape[:at] + shape[at + n_ell :]
        elif len(letters) != len(shape):
            raise InferenceError(f"Einsum term {term!r} does not match rank {len(shape)}")
        for letter, d in zip(letters, shape, strict=False):
            known = sizes.get(letter)
            if letter not in sizes or (known is None or (isinstance(d, int) and d != 1)):
                sizes[letter] = (
                    d if letter not in sizes or not (isinstance(known, int) and known != 1) else known
                )
    if not arrow:
        seen = [c for c in left.replace("...", "").replace(",", "")]
        once = sorted(c for c in set(seen) if seen.count(c) == 1)
        right = ("..." if ell is not None else "") + "".join(once)
    out: list[Dim] = []
    i = 0
    while i < len(right):
        if right.startswith("...", i):
            out.extend(ell or ())
            i += 3
        else:
            out.append(sizes.get(right[i]))
            i += 1
    ctx.set_tensor(0, elem, tuple(out))
