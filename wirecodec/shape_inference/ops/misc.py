"""Operators of their own kind: losses, recurrent networks, strings, windows, signal."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference.ops._util import STRING


@rule("StringNormalizer")
def string_normalizer(ctx: NodeContext) -> None:
    s = ctx.shape(0)
    if s is None:
        ctx.set_tensor(0, STRING, None)
    elif len(s) == 1:
        ctx.set_tensor(0, STRING, (None,))
    else:
        ctx.set_tensor(0, STRING, (1, None))
