"""Strings, detection and image operators, Unique, Col2Im, AffineGrid, Det; ai.onnx.preview.training
operators (ai.onnx.ml: ``ml``)."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import MAX_RANK, Dim
from wirecodec.shape_inference.ops._util import BOOL, FLOAT, INT64, STRING, UINT8, axis_in, broadcast, product


@rule("NonMaxSuppression")
def non_max_suppression(ctx: NodeContext) -> None:
    ctx.set_tensor(0, INT64, (None, 3))


@rule("ImageDecoder")
def image_decoder(ctx: NodeContext) -> None:
    ctx.set_tensor(0, UINT8, (None, None, None))


@rule("Unique")
def unique(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is None:
        return
    if not ctx.has_attr("axis"):
        ctx.set_tensor(0, t.elem, (None,))
    elif t.shape is None:
        ctx.set_tensor(0, t.elem, None)
    else:
        a = axis_in(ctx.attr_int("axis", 0), len(t.shape))
        ctx.set_tensor(0, t.elem, (*t.shape[:a], None, *t.shape[a + 1 :]))
    for out in (1, 2, 3):
        if ctx.has_output(out):
            ctx.set_tensor(out, INT64, (None,))


@rule("TfIdfVectorizer")
def tfidf(ctx: NodeContext) -> None:
    indexes = ctx.attr_ints("ngram_indexes") or []
    width: Dim = max(indexes) + 1 if indexes else None
    s = ctx.shape(0)
    if s is None:
        ctx.set_tensor(0, FLOAT, None)
    elif len(s) == 1:
        ctx.set_tensor(0, FLOAT, (width,))
    else:
        ctx.set_tensor(0, FLOAT, (s[0], width))


@rule("StringSplit")
def string_split(ctx: NodeContext) -> None:
    s = ctx.shape(0)
    ctx.set_tensor(0, STRING, None if s is None else (*s, None))
    if ctx.has_output(1):
        ctx.set_tensor(1, INT64, s)


@rule("StringConcat")
def string_concat(ctx: NodeContext) -> None:
    ctx.set_tensor(0, STRING, broadcast([ctx.shape(0), ctx.shape(1)]))


@rule("RegexFullMatch")
def regex_full_match(ctx: NodeContext) -> None:
    ctx.set_tensor(0, BOOL, ctx.shape(0))


@rule("Det")
def det(ctx: NodeContext) -> None:
    s = ctx.shape(0)
    ctx.set_tensor(0, ctx.elem(0), None if s is None or len(s) < 2 else s[:-2])


@rule("Col2Im")
def col2im(ctx: NodeContext) -> None:
    x = ctx.shape(0)
    image, block = ctx.ints(1), ctx.ints(2)
    n_spatial = image and len(image)
    if n_spatial is None or not n_spatial:
        given = ctx.shape(1)
        n_spatial = given[0] if given is not None and len(given) == 1 and isinstance(given[0], int) else None
    if x is None or n_spatial is None or n_spatial > MAX_RANK:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    channels: Dim = None
    size = product(block) if block is not None else None
    if isinstance(size, int) and size >= 1 << 63:
        raise ctx.fail(f"the block shape's size ({size}) would overflow int64")
    if isinstance(x[1], int) and isinstance(size, int) and size:
        channels = x[1] // size
    spatial: tuple[Dim, ...] = tuple(image) if image is not None else tuple(None for _ in range(n_spatial))
    ctx.set_tensor(0, ctx.elem(0), (x[0], channels, *spatial))


@rule("AffineGrid")
def affine_grid(ctx: NodeContext) -> None:
    theta = ctx.shape(0)
    size = ctx.ints(1)
    elem = ctx.elem(0)
    if size is not None:
        spatial: tuple[Dim, ...] = tuple(size[2:])
        ctx.set_tensor(0, elem, (size[0], *spatial, len(spatial)))
    elif theta is not None and len(theta) == 3 and isinstance(theta[1], int):
        n = theta[1]
        ctx.set_tensor(0, elem, (*(None for _ in range(n + 1)), n))
    else:
        ctx.set_tensor(0, elem, None)


# -- ai.onnx.preview.training ----------------------------------------------------------

_GROUPS = {"Momentum": 3, "Adagrad": 3, "Adam": 4}


@rule("Momentum", "Adagrad", "Adam", domain="ai.onnx.preview.training")
def optimizer(ctx: NodeContext) -> None:
    """Each new tensor has the type of the tensor it replaces (X, then the optimizer's state)."""
    groups = _GROUPS[ctx.node.op_type]
    n = (ctx.n_inputs - 2) // groups
    for out in range(ctx.n_outputs):
        group, k = divmod(out, n) if n else (0, 0)
        source = 2 + (0 if group == 0 else group + 1) * n + k
        t = ctx.tensor(source)
        if t is not None:
            ctx.set_tensor(out, t.elem, t.shape)
