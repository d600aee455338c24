"""Recent operators: linear and flex attention, causal convolution with state, rotary
embedding, SwiGLU, and the signal operators (DFT, STFT, windows, mel weights)."""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim
from wirecodec.shape_inference.ops._util import FLOAT, axis_in


@rule("RotaryEmbedding")
def same_as_first(ctx: NodeContext) -> None:
    t = ctx.tensor(0)
    if t is not None:
        ctx.set_tensor(0, t.elem, t.shape)


@rule("SwiGLU")
def swiglu(ctx: NodeContext) -> None:
    """Y has the shape A and B share (no broadcasting): the two merged, a size over a symbol."""
    a, b = ctx.tensor(0), ctx.tensor(1)
    if a is None:
        return
    x, y = a.shape, ctx.shape(1) if b is not None else None
    if x is None or y is None:
        ctx.set_tensor(0, a.elem, None)  # onnx claims no shape unless it knows both
        return
    if len(x) != len(y):
        raise ctx.fail(f"A and B must have one shape: ranks {len(x)} and {len(y)}")
    merged: list[Dim] = []
    for axis, (p, q) in enumerate(zip(x, y, strict=True)):
        if isinstance(p, int) and isinstance(q, int) and p != q:
            raise ctx.fail(f"A and B must have one shape: axis {axis} is {p} and {q}")
        merged.append(p if isinstance(p, int) else q if isinstance(q, int) else p if p is not None else q)
    ctx.set_tensor(0, a.elem, tuple(merged))


# update_rule -> (needs decay, needs beta), from the operator's description
_UPDATE_RULES = {
    "linear": (False, False),
    "gated": (True, False),
    "delta": (False, True),
    "gated_delta": (True, True),
}


@rule("LinearAttention")
def linear_attention(ctx: NodeContext) -> None:
    """output: (B, T, q_heads * d_v); present_state: (B, kv_heads, d_k, d_v). The attributes
    and the optional inputs' ranks and sizes are checked as the operator describes them."""
    q_heads, kv_heads = ctx.attr_int("q_num_heads", 0), ctx.attr_int("kv_num_heads", 0)
    if q_heads <= 0 or kv_heads <= 0 or q_heads % kv_heads:
        raise ctx.fail(f"q_num_heads ({q_heads}) must be a positive multiple of kv_num_heads ({kv_heads})")
    update = ctx.attr_str("update_rule", "gated_delta")
    if update not in _UPDATE_RULES:
        raise ctx.fail(f"update_rule {update!r} is not one of {', '.join(_UPDATE_RULES)}")
    needs_decay, needs_beta = _UPDATE_RULES[update]
    has_decay, has_beta = ctx.has_input(4), ctx.has_input(5)
    if (needs_decay and not has_decay) or (needs_beta and not has_beta):
        raise ctx.fail(
            f"update_rule {update!r} needs the {'decay' if needs_decay and not has_decay else 'beta'} input"
        )
    if (has_decay and not needs_decay) or (has_beta and not needs_beta):
        raise ctx.fail(
            f"update_rule {update!r} forbids the {'decay' if has_decay and not needs_decay else 'beta'} input"
        )
    shapes = [ctx.shape(i) if ctx.has_input(i) else None for i in range(6)]
    for i, name, rank in (
        (0, "query", 3),
        (1, "key", 3),
        (2, "value", 3),
        (3, "past_state", 4),
        (4, "decay", 3),
        (5, "beta", 3),
    ):
        given = shapes[i]
        if given is not None and len(given) != rank:
            raise ctx.fail(f"{name} must have rank {rank}, got rank {len(given)}")
    q, k, v, past, decay, beta = shapes
    if q is not None and isinstance(q[2], int) and q[2] % q_heads:
        raise ctx.fail(f"the query's last dimension ({q[2]}) is not a multiple of q_num_heads ({q_heads})")

    def per_head(d: Dim, heads: int) -> Dim:
        return d // heads if isinstance(d, int) else None

    def first(*dims: Dim) -> Dim:
        known = [d for d in dims if d is not None]
        return next((d for d in known if isinstance(d, int)), known[0] if known else None)

    from_query = per_head(q[2], q_heads) if q is not None else None
    from_key = per_head(k[2], kv_heads) if k is not None else None
    if isinstance(from_query, int) and isinstance(from_key, int) and from_query != from_key:
        raise ctx.fail(f"d_k from the query ({from_query}) and from the key ({from_key}) differ")
    d_k = first(from_key, from_query, past[2] if past is not None else None)
    d_v = first(per_head(v[2], kv_heads) if v is not None else None, past[3] if past is not None else None)
    known_decay = decay is not None and isinstance(decay[2], int) and isinstance(d_k, int)
    if known_decay and decay is not None and decay[2] not in (kv_heads, kv_heads * (d_k or 0)):
        raise ctx.fail(f"decay's last dimension ({decay[2]}) is neither kv_num_heads nor kv_num_heads * d_k")
    if beta is not None and isinstance(beta[2], int) and beta[2] not in (kv_heads, 1):
        raise ctx.fail(f"beta's last dimension ({beta[2]}) is neither kv_num_heads nor 1")
    elem = ctx.elem(0)
    rank3 = [t for t in (q, k, v, decay, beta) if t is not None]
    batch = first(*(t[0] for t in rank3), past[0] if past is not None else None)
    steps = first(*(t[1] for t in rank3))
    ctx.set_tensor(0, elem, (batch, steps, q_heads * d_v if isinstance(d_v, int) else None))
    if ctx.has_output(1):
        ctx.set_tensor(1, ctx.elem(3) if ctx.has_input(3) else elem, (batch, kv_heads, d_k, d_v))


@rule("FlexAttention", domain="ai.onnx.preview")
def flex_attention(ctx: NodeContext) -> None:
    """(B, Hq, L, Dv) from Q (B, Hq, L, Dqk), K (B, Hkv, S, Dqk), V (B, Hkv, S, Dv): all three
    of rank 4 (an unknown rank is refused, as onnx does), the sizes they share equal, Hq a
    multiple of Hkv; the batch is the three inputs' batch sizes merged."""
    q, k, v = ctx.shape(0), ctx.shape(1), ctx.shape(2)
    if q is None or k is None or v is None or len(q) != 4 or len(k) != 4 or len(v) != 4:
        raise ctx.fail(
            "FlexAttention requires rank-4 inputs: Q (B, Hq, L, Dqk), K (B, Hkv, S, Dqk), V (B, Hkv, S, Dv)"
        )

    def differ(a: Dim, b: Dim) -> bool:
        return isinstance(a, int) and isinstance(b, int) and a != b

    if differ(q[3], k[3]):
        raise ctx.fail("query and key must share the same embedding dimension")
    if differ(k[1], v[1]):
        raise ctx.fail("key and value must share the same head dimension")
    if differ(k[2], v[2]):
        raise ctx.fail("key and value must share the same sequence length")
    q_heads, kv_heads = q[1], k[1]
    known = isinstance(q_heads, int) and isinstance(kv_heads, int)
    if known and q_heads != kv_heads and (kv_heads == 0 or int(q_heads or 0) % int(kv_heads or 1)):
        raise ctx.fail("q_num_heads must be a multiple of kv_num_heads when they differ")
    batch = q[0]
    for other in (k[0], v[0]):
        if differ(batch, other):
            raise ctx.fail(f"the batch sizes differ: {batch} and {other}")
        if not isinstance(batch, int) and isinstance(other, int):
            batch = other
    ctx.set_tensor(0, ctx.elem(0), (batch, q[1], q[2], v[3]))


@rule("CausalConvWithState")
def causal_conv_with_state(ctx: NodeContext) -> None:
    """output: the input's shape; present_state: (B, C, k - 1)."""
    activation = ctx.attr_str("activation", "none")
    if activation not in ("silu", "swish", "none"):
        raise ctx.fail(f"activation {activation!r} is not one of 'silu', 'swish', 'none'")
    x, w = ctx.shape(0), ctx.shape(1)
    for name, given in (("input", x), ("weight", w)):
        if given is not None and len(given) != 3:
            raise ctx.fail(f"{name} must have rank 3, got rank {len(given)}")
    if w is not None and isinstance(w[2], int) and w[2] < 1:
        raise ctx.fail(f"the kernel size (weight's last dimension) must be positive, got {w[2]}")
    elem = ctx.elem(0)
    ctx.set_tensor(0, elem, x)
    if ctx.has_output(1):
        kernel = w[2] if w is not None else None
        channels = x[1] if x is not None else w[0] if w is not None else None
        state: tuple[Dim, ...] = (
            x[0] if x is not None else None,
            channels,
            kernel - 1 if isinstance(kernel, int) else None,
        )
        ctx.set_tensor(1, elem, state)


@rule("DFT")
def dft(ctx: NodeContext) -> None:
    """Real or complex (last axis 1 or 2); a one-sided transform halves the transformed axis."""
    t = ctx.tensor(0)
    if t is None:
        return
    if t.shape is None:
        ctx.set_tensor(0, t.elem, None)
        return
    rank = len(t.shape)
    inverse, onesided = ctx.attr_int("inverse", 0), ctx.attr_int("onesided", 0)
    components = t.shape[-1] if rank else None
    if onesided and isinstance(components, int):
        if not inverse and components != 1:
            raise ctx.fail("one-sided DFT requires real input (last dimension must be 1)")
        if inverse and components != 2:
            raise ctx.fail("inverse one-sided DFT requires complex input (last dimension must be 2)")
    last = 1 if inverse and onesided else 2
    dims: list[Dim] = [*t.shape[:-1], last]
    if ctx.opset >= 20:
        given = ctx.ints(2) if ctx.has_input(2) else [-2]
        axis = given[0] if given is not None and len(given) == 1 else None
    else:
        axis = ctx.attr_int("axis", 1)
    length = ctx.ints(1) if ctx.has_input(1) else None
    if axis is None:
        if onesided or ctx.has_input(1):
            dims = [*(None for _ in range(rank - 1)), last]
        ctx.set_tensor(0, t.elem, tuple(dims))
        return
    if not -rank <= axis < rank - 1 or axis == -1:
        raise ctx.fail(
            f"axis {axis} is invalid for a tensor of rank {rank}: -rank <= axis < rank - 1, not -1"
        )
    a = axis_in(axis, rank)
    n: Dim = length[0] if length is not None and len(length) == 1 else (None if ctx.has_input(1) else dims[a])
    if onesided and inverse and length is not None:
        pass  # an inverse one-sided transform of a given length yields that many values
    elif onesided and isinstance(n, int):
        n = (n - 1) * 2 if inverse else n // 2 + 1
    elif onesided:
        n = None
    dims[a] = n
    ctx.set_tensor(0, t.elem, tuple(dims))


@rule("STFT")
def stft(ctx: NodeContext) -> None:
    """(batch, frames, bins, 2): frames from the signal's length, the frame length (the
    frame_length input, else the window's length) and the step; bins the frame length,
    halved plus one when one-sided."""
    elem = ctx.elem(0)
    signal, step = ctx.shape(0), ctx.ints(1)
    if signal is not None and len(signal) < 2:
        raise ctx.fail(f"the signal must have at least 2 dimensions, got rank {len(signal)}")
    if signal is None or len(signal) != 3 or not isinstance(signal[1], int) or not step:
        ctx.set_tensor(0, elem, None)
        return
    window = ctx.shape(2) if ctx.has_input(2) else None
    if window is not None and len(window) != 1:
        raise ctx.fail(f"the window must have rank 1, got rank {len(window)}")
    window_length = window[0] if window is not None and isinstance(window[0], int) else None
    frame_length_given = ctx.ints(3) if ctx.has_input(3) else None
    frame_length = frame_length_given[0] if frame_length_given else None
    if frame_length is not None and window_length is not None and frame_length != window_length:
        raise ctx.fail(f"the window's length ({window_length}) is not frame_length ({frame_length})")
    length = frame_length if frame_length is not None else window_length
    if length is None:
        ctx.set_tensor(0, elem, None)
        return
    if step[0] <= 0:
        raise ctx.fail(f"frame_step must be positive, got {step[0]}")
    frames = (signal[1] - length) // step[0] + 1
    bins = length // 2 + 1 if ctx.attr_int("onesided", 0) else length
    ctx.set_tensor(0, elem, (signal[0], frames, bins, 2))


def _scalar(ctx: NodeContext, i: int) -> int | None:
    values = ctx.ints(i) if ctx.has_input(i) else None
    return values[0] if values is not None and len(values) == 1 else None


@rule("HannWindow", "HammingWindow", "BlackmanWindow")
def window(ctx: NodeContext) -> None:
    """(size,): the value of the size input."""
    size = _scalar(ctx, 0)
    ctx.set_tensor(0, ctx.attr_int("output_datatype", FLOAT), None if size is None else (size,))


@rule("MelWeightMatrix")
def mel_weight_matrix(ctx: NodeContext) -> None:
    """(dft_length // 2 + 1, num_mel_bins)."""
    bins, dft_length = _scalar(ctx, 0), _scalar(ctx, 1)
    shape = None if bins is None or dft_length is None else (dft_length // 2 + 1, bins)
    ctx.set_tensor(0, ctx.attr_int("output_datatype", FLOAT), shape)
