"""``check_type``: values that one type variable of the operator names must agree.

From the generated table (``_shared_types.py``): inputs that share a type variable ("T")
must have one element type, and an output sharing one with an input must have that input's.
onnx's check also tests each type against the variable's allowed types; that needs the
operator schemas as data and is not done here.
"""

from __future__ import annotations

from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._shared_types import SHARED
from wirecodec.shape_inference._types import InferenceError, TensorType, Type


def _elem(t: Type | None) -> int:
    return t.elem if isinstance(t, TensorType) else 0


def check_shared_types(key: tuple[str, str], ctx: NodeContext) -> None:
    """Raise :class:`InferenceError` where ``ctx``'s node breaks a shared type variable."""
    entry = SHARED.get(key)
    if entry is None:
        return
    pairs, groups, variadic_in, variadic_out = entry

    def actual_inputs(formal: int) -> range:
        return range(formal, ctx.n_inputs) if formal == variadic_in else range(formal, formal + 1)

    def actual_outputs(formal: int) -> range:
        return range(formal, ctx.n_outputs) if formal == variadic_out else range(formal, formal + 1)

    for group in groups:
        seen: dict[int, int] = {}
        for formal in group:
            for j in actual_inputs(formal):
                elem = _elem(ctx.input_type(j))
                if elem:
                    seen.setdefault(elem, j)
        if len(seen) > 1:
            (a, first), (b, second) = list(seen.items())[:2]
            raise InferenceError(
                f"inputs {first} and {second} share a type variable but have element types {a} and {b}"
            )
    for out, formal_in in pairs:
        source = _elem(ctx.input_type(formal_in))
        for i in actual_outputs(out):
            elem = _elem(ctx.outputs[i] if i < ctx.n_outputs else None)
            if source and elem and elem != source:
                raise InferenceError(
                    f"output {i} shares a type variable with input {formal_in} but has element type "
                    f"{elem}, not {source}"
                )
