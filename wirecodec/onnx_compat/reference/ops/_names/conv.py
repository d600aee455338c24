"""``onnx.reference.ops.op_conv``: the Conv operator and a function computing one Conv."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wirecodec.onnx_compat.reference.ops._names.operators import operator_class

Conv = operator_class("Conv")


def _conv_implementation(
    X: Any,  # noqa: N803  (onnx's keyword name)
    W: Any,  # noqa: N803  (onnx's keyword name)
    B: Any,  # noqa: N803  (onnx's keyword name)
    auto_pad: str,
    dilations: Sequence[int] | None,
    group: int,
    kernel_shape: Sequence[int] | None,
    pads: Sequence[int] | None,
    strides: Sequence[int] | None,
) -> Any:
    """Conv of ``X`` by ``W`` (+ ``B``) with these attributes: the evaluator's Conv, run once."""
    attributes: dict[str, Any] = {"auto_pad": auto_pad, "group": group}
    lists = (("dilations", dilations), ("kernel_shape", kernel_shape), ("pads", pads), ("strides", strides))
    for name, value in lists:
        if value is not None:
            attributes[name] = [int(v) for v in value]
    inputs = (X, W) if B is None else (X, W, B)
    return Conv.eval(*inputs, **attributes)
