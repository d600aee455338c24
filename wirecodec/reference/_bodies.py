"""Function bodies that depend on the node: built from its attributes and its inputs' types.

Some operators' schemas carry no fixed function body but one built per node (onnx builds
them in C++; ``wirecodec.defs`` records only the versions that have one:
``context_dependent_function_opset_versions``). An ``OpRunExpand`` asks for the body
instead of the implementation, so the evaluator builds it here, on the first run of each
combination of input types, as a ``FunctionProto`` in the operator's domain at the node's
opset. Each builder is written from the operator's definition (docs/reference-evaluator.md):

- ``CastLike``: one ``Cast`` to the element type of ``target_type`` (``saturate`` and
  ``round_mode`` passed on where the node's opset has them);
- ``SpaceToDepth`` and ``DepthToSpace``: ``Reshape`` to six dimensions, ``Transpose`` by
  the mode's permutation, ``Reshape`` back, the shapes computed from ``Shape`` of the
  input (``allowzero=1``: a dimension of size 0 stays 0);
- ``CausalConvWithState``: ``past_state`` (or zeros of ``k - 1`` steps) concatenated before
  ``input``, a depthwise ``Conv`` (``group`` = the channels, read off ``input``: the one
  size a body here depends on, so it is built once per channel count too), SiLU in float32
  when asked, and the last ``k - 1`` steps as ``present_state``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wirecodec import helper

# builder(attributes, input element types (None: not a tensor), opset) -> FunctionProto
Builder = Callable[[dict[str, Any], Sequence[int | None], int], Any]


def _constant(name: str, values: list[int]) -> Any:
    return helper.make_node("Constant", [], [name], value_ints=values)


def _function(name: str, inputs: list[str], outputs: list[str], nodes: list[Any], opset: int) -> Any:
    return helper.make_function("", name, inputs, outputs, nodes, [helper.make_opsetid("", opset)])


def _cast_like(attrs: dict[str, Any], types: Sequence[int | None], opset: int) -> Any:
    to = types[1]
    if to is None:
        raise ValueError("CastLike's target_type is not a tensor")
    options: dict[str, Any] = {"to": to}
    if opset >= 19:
        options["saturate"] = attrs.get("saturate", 1)
    if opset >= 25 and "round_mode" in attrs:
        options["round_mode"] = attrs["round_mode"]
    node = helper.make_node("Cast", ["input"], ["output"], **options)
    return _function("CastLike", ["input", "target_type"], ["output"], [node], opset)


def _dimensions() -> list[Any]:
    """N, C, H, W of ``input`` (each a 1-element int64 tensor)."""
    nodes = [helper.make_node("Shape", ["input"], ["shape"])]
    for index, name in enumerate("NCHW"):
        nodes.append(_constant(f"at_{name}", [index]))
        nodes.append(helper.make_node("Gather", ["shape", f"at_{name}"], [name]))
    return nodes


def _rearranged(
    op: str, six: list[str], perm: list[int], four: list[str], extra: list[Any], opset: int
) -> Any:
    """``input`` reshaped to ``six``, transposed by ``perm``, reshaped to ``four``."""
    nodes = [
        *_dimensions(),
        *extra,
        helper.make_node("Concat", six, ["shape6"], axis=0),
        helper.make_node("Reshape", ["input", "shape6"], ["blocks"], allowzero=1),
        helper.make_node("Transpose", ["blocks"], ["moved"], perm=perm),
        helper.make_node("Concat", four, ["shape4"], axis=0),
        helper.make_node("Reshape", ["moved", "shape4"], ["output"], allowzero=1),
    ]
    return _function(op, ["input"], ["output"], nodes, opset)


def _space_to_depth(attrs: dict[str, Any], types: Sequence[int | None], opset: int) -> Any:
    b = int(attrs["blocksize"])
    extra = [
        _constant("B", [b]),
        _constant("BB", [b * b]),
        helper.make_node("Div", ["H", "B"], ["Hb"]),
        helper.make_node("Div", ["W", "B"], ["Wb"]),
        helper.make_node("Mul", ["C", "BB"], ["CBB"]),
    ]
    # DCR: the block offsets lead the channels; CRD: the channels lead
    perm = [0, 1, 3, 5, 2, 4] if attrs.get("mode", "DCR") == "CRD" else [0, 3, 5, 1, 2, 4]
    six = ["N", "C", "Hb", "B", "Wb", "B"]
    return _rearranged("SpaceToDepth", six, perm, ["N", "CBB", "Hb", "Wb"], extra, opset)


def _depth_to_space(attrs: dict[str, Any], types: Sequence[int | None], opset: int) -> Any:
    b = int(attrs["blocksize"])
    extra = [
        _constant("B", [b]),
        _constant("BB", [b * b]),
        helper.make_node("Div", ["C", "BB"], ["Cd"]),
        helper.make_node("Mul", ["H", "B"], ["Hm"]),
        helper.make_node("Mul", ["W", "B"], ["Wm"]),
    ]
    if attrs.get("mode", "DCR") == "CRD":
        six, perm = ["N", "Cd", "B", "B", "H", "W"], [0, 1, 4, 2, 5, 3]
    else:
        six, perm = ["N", "B", "B", "Cd", "H", "W"], [0, 3, 4, 1, 5, 2]
    return _rearranged("DepthToSpace", six, perm, ["N", "Cd", "Hm", "Wm"], extra, opset)


def _causal_conv_with_state(
    attrs: dict[str, Any], types: Sequence[int | None], opset: int, sizes: tuple[int, ...]
) -> Any:
    (channels,) = sizes
    activation = attrs.get("activation", "none")
    if activation not in ("none", "silu", "swish"):
        raise ValueError(f"CausalConvWithState's activation {activation!r} is not none, silu or swish")
    has_bias = len(types) > 2 and types[2] is not None
    has_past = len(types) > 3 and types[3] is not None
    nodes = [
        _constant("One1D", [1]),
        helper.make_node("Shape", ["weight"], ["KernelSize"], start=2, end=3),
        helper.make_node("Sub", ["KernelSize", "One1D"], ["Km1"]),
    ]
    if has_past:
        nodes.append(helper.make_node("Concat", ["past_state", "input"], ["PaddedInput"], axis=2))
    else:
        nodes += [
            helper.make_node("Shape", ["input"], ["BatchDim"], start=0, end=1),
            helper.make_node("Shape", ["input"], ["ChannelDim"], start=1, end=2),
            helper.make_node("Concat", ["BatchDim", "ChannelDim", "Km1"], ["ZeroPadShape"], axis=0),
            helper.make_node("ConstantOfShape", ["ZeroPadShape"], ["ZeroPad"]),
            helper.make_node("CastLike", ["ZeroPad", "input"], ["ZeroPadCast"]),
            helper.make_node("Concat", ["ZeroPadCast", "input"], ["PaddedInput"], axis=2),
        ]
    conv_inputs = ["PaddedInput", "weight", "bias"] if has_bias else ["PaddedInput", "weight"]
    nodes.append(helper.make_node("Conv", conv_inputs, ["ConvOut"], group=channels))
    if activation == "none":
        nodes.append(helper.make_node("Identity", ["ConvOut"], ["output"]))
    else:  # SiLU in float32 whatever the input's type, as the operator's implementation
        nodes += [
            helper.make_node("Cast", ["ConvOut"], ["ConvOutFloat"], to=1),
            helper.make_node("Sigmoid", ["ConvOutFloat"], ["ConvSigmoid"]),
            helper.make_node("Mul", ["ConvOutFloat", "ConvSigmoid"], ["MulOutFloat"]),
            helper.make_node("CastLike", ["MulOutFloat", "ConvOut"], ["output"]),
        ]
    nodes += [
        helper.make_node("Shape", ["PaddedInput"], ["PadLen"], start=2, end=3),
        helper.make_node("Sub", ["PadLen", "Km1"], ["StartIdx"]),
        _constant("SliceAxes", [2]),
        helper.make_node("Slice", ["PaddedInput", "StartIdx", "PadLen", "SliceAxes"], ["present_state"]),
    ]
    inputs = ["input", "weight", "bias", "past_state"]
    return _function("CausalConvWithState", inputs, ["output", "present_state"], nodes, opset)


def _channels(args: Sequence[Any]) -> tuple[int, ...]:
    """The channel count of ``input`` (N, C, L): Conv's ``group`` in the body."""
    return (int(args[0].shape[1]),)


# (domain, op_type) -> its builder
BUILDERS: dict[tuple[str, str], Builder] = {
    ("", "CastLike"): _cast_like,
    ("", "SpaceToDepth"): _space_to_depth,
    ("", "DepthToSpace"): _depth_to_space,
}

# Bodies that depend on sizes too, not only on element types: (domain, op_type) ->
# (the sizes read off the input values, builder(attributes, types, opset, sizes))
SizedBuilder = Callable[[dict[str, Any], Sequence[int | None], int, tuple[int, ...]], Any]
SIZED: dict[tuple[str, str], tuple[Callable[[Sequence[Any]], tuple[int, ...]], SizedBuilder]] = {
    ("", "CausalConvWithState"): (_channels, _causal_conv_with_state),
}
