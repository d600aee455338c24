"""Operators of their own kind: losses, recurrent networks, strings, windows, signal."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim, InferenceError, Shape
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


@rule("NegativeLogLikelihoodLoss")
def nll_loss(ctx: NodeContext) -> None:
    """A scalar, or with ``reduction="none"`` the target's shape; the input's element type."""
    elem = ctx.elem(0)
    _nll_shapes_agree(ctx.shape(0), ctx.shape(1), ctx.shape(2) if ctx.has_input(2) else None)
    if ctx.shape(0) is None or ctx.shape(1) is None:
        ctx.set_tensor(0, elem, None)
    elif ctx.attr_str("reduction", "mean") == "none":
        x = ctx.shape(0)
        assert x is not None
        ctx.set_tensor(0, elem, (x[0], *x[2:]))  # the input's sizes (N, d1, ...), as onnx
    else:
        ctx.set_tensor(0, elem, ())


def _nll_shapes_agree(x: Shape, target: Shape, weight: Shape) -> None:
    """As onnx: input (N, C, d1...), target (N, d1...), weight of rank 1; known sizes agree."""

    def differ(a: Dim, b: Dim) -> bool:
        return isinstance(a, int) and isinstance(b, int) and a != b

    if x is not None and target is not None:
        if len(x) < 2 or len(target) != len(x) - 1:
            raise InferenceError(
                f"NegativeLogLikelihoodLoss: target of rank {len(target)} for input of rank {len(x)}"
            )
        if differ(x[0], target[0]) or any(differ(a, b) for a, b in zip(x[2:], target[1:], strict=True)):
            raise InferenceError("NegativeLogLikelihoodLoss: input and target shapes differ")
    if weight is not None and len(weight) != 1:  # (its size is not checked, as in onnx)
        raise InferenceError(f"NegativeLogLikelihoodLoss: weight of rank {len(weight)}, not 1")


@rule("SoftmaxCrossEntropyLoss")
def softmax_cross_entropy(ctx: NodeContext) -> None:
    elem = ctx.elem(0)
    if ctx.attr_str("reduction", "mean") == "none":
        ctx.set_tensor(0, elem, ctx.shape(1))
    else:
        ctx.set_tensor(0, elem, ())
    if ctx.has_output(1):
        ctx.set_tensor(1, elem, ctx.shape(0))


def _heads(shape: tuple[Dim, ...], heads: int) -> tuple[Dim, Dim, Dim, Dim]:
    """(batch, heads, sequence, head size) of a 4-D input, or of a 3-D one split into heads."""
    if len(shape) == 4:
        return shape[0], shape[1], shape[2], shape[3]
    hidden = shape[2]
    size = hidden // heads if isinstance(hidden, int) and heads else None
    return shape[0], heads or None, shape[1], size


def _attention_25_refusals(ctx: NodeContext, q: tuple[Dim, ...] | None) -> None:
    """What Attention-25's schema refuses: window sizes below -1, half a key/value cache (in
    or out), ``nonpad_kv_seqlen`` with a cache, head counts given for 4-D inputs."""
    for name in ("left_window_size", "right_window_size"):
        size = ctx.attr_int(name, -1)
        if size < -1:
            raise InferenceError(f"{name} must be -1 or nonnegative, got {size}")
    if ctx.has_input(4) != ctx.has_input(5):
        raise InferenceError("past_key and past_value must be provided together.")
    if ctx.has_output(1) != ctx.has_output(2):
        raise InferenceError("present_key and present_value must be requested together.")
    cached = ctx.has_input(4) or ctx.has_input(5) or ctx.has_output(1) or ctx.has_output(2)
    if ctx.has_input(6) and cached:
        raise InferenceError("nonpad_kv_seqlen cannot be combined with past or present cache tensors.")
    if q is not None and len(q) == 4 and ("q_num_heads" in ctx.attrs or "kv_num_heads" in ctx.attrs):
        raise InferenceError("q_num_heads and kv_num_heads must not be specified for 4D inputs.")


@rule("Attention")
def attention(ctx: NodeContext) -> None:
    """Y in Q's layout with V's head size; present key/value and the QK product in 4-D."""
    q, k, v = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if ctx.opset >= 25:
        _attention_25_refusals(ctx, q)
    elem = ctx.elem(0)
    if q is None or k is None or v is None or len(q) not in (3, 4):
        ctx.set_tensor(0, elem, None)
        return
    q_heads, kv_heads = ctx.attr_int("q_num_heads", 0), ctx.attr_int("kv_num_heads", 0)
    batch, qh, q_seq, _ = _heads(q, q_heads)
    _, kvh, kv_seq, head = _heads(k, kv_heads)
    _, _, _, v_head = _heads(v, kv_heads)
    if len(q) == 4:
        ctx.set_tensor(0, elem, (batch, qh, q_seq, v_head))
    else:
        hidden = q_heads * v_head if isinstance(v_head, int) else None
        ctx.set_tensor(0, elem, (batch, q_seq, hidden))
    # As onnx: the present key and value are inferred only when both come from both past
    # tensors; the QK product's last axis is the total length then, else K's.
    total: Dim = kv_seq
    if ctx.has_input(4) and ctx.has_input(5) and ctx.has_output(1) and ctx.has_output(2):
        past_key, past_value = ctx.shape(4), ctx.shape(5)
        if past_key is not None and past_value is not None and len(past_key) == 4:
            total = past_key[2] + kv_seq if isinstance(past_key[2], int) and isinstance(kv_seq, int) else None
            ctx.set_tensor(1, ctx.elem(1), (batch, kvh, total, head))
            ctx.set_tensor(2, ctx.elem(2), (batch, kvh, total, v_head))
        else:
            ctx.set_tensor(1, ctx.elem(1), None)
            ctx.set_tensor(2, ctx.elem(2), None)
    if ctx.has_output(3):
        ctx.set_tensor(3, elem, (batch, qh, q_seq, total))


@rule("RNN", "GRU", "LSTM")
def recurrent(ctx: NodeContext) -> None:
    """Y: (seq, directions, batch, hidden) or, with ``layout=1``, (batch, seq, directions, hidden);
    the last hidden (and cell) state without the sequence axis."""
    x = ctx.shape(0)
    if x is not None and len(x) != 3:
        raise InferenceError(f"{ctx.node.op_type}: input X must have rank 3, not {len(x)}")
    elem = ctx.elem(0)
    layout = ctx.attr_int("layout", 0)
    seq: Dim = None
    batch: Dim = None
    if x is not None and len(x) == 3:
        seq, batch = (x[1], x[0]) if layout else (x[0], x[1])
    directions = 2 if ctx.attr_str("direction", "forward") == "bidirectional" else 1
    hidden: Dim = ctx.attr_int("hidden_size", 0) or None
    if layout:
        ctx.set_tensor(0, elem, (batch, seq, directions, hidden))
        state: tuple[Dim, ...] = (batch, directions, hidden)
    else:
        ctx.set_tensor(0, elem, (seq, directions, batch, hidden))
        state = (directions, batch, hidden)
    for out in range(1, ctx.n_outputs):
        ctx.set_tensor(out, elem, state)
