"""Convolutions and pooling against onnx's inference: attribute checks (sizes, signs),
ranks of the input and the weight, explicit pads beside auto_pad, dilations by opset,
and a kernel of unknown size. Each one-node model is inferred by both in strict mode with
type checks (onnx's test helper's options); both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec import decode, encode
from wirecodec.shape_inference import InferenceError, infer_shapes

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT

X = (1, 1, 5, 5)
W = (1, 1, 3, 3)
K = {"kernel_shape": [3, 3]}


def _model(op: str, shapes: dict[str, Any], opset: int, **attributes: Any) -> Any:
    node = helper.make_node(op, list(shapes), ["y"], **attributes)
    inputs = [helper.make_tensor_value_info(name, F, shape) for name, shape in shapes.items()]
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _outcome_of_onnx(model: Any) -> bytes | None:
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True).SerializeToString()
    except onnx.shape_inference.InferenceError:
        return None


def _outcome_of_ours(model: Any) -> bytes | None:
    try:
        inferred = infer_shapes(
            decode(ModelProto, model.SerializeToString()), check_type=True, strict_mode=True
        )
    except InferenceError:
        return None
    return encode(inferred)


def _same(model: Any) -> None:
    theirs, ours = _outcome_of_onnx(model), _outcome_of_ours(model)
    assert (ours is None) == (theirs is None), f"onnx {'refuses' if theirs is None else 'infers'}; we do not"
    assert ours == theirs


ATTRIBUTE_CASES = {
    "none": {},
    "stride 0": {"strides": [0, 1]},
    "stride -1": {"strides": [-1, 1]},
    "strides too few": {"strides": [1]},
    "dilation 0": {"dilations": [0, 1]},
    "dilation -1": {"dilations": [-1, 1]},
    "dilations too many": {"dilations": [1, 1, 1]},
    "dilation 2": {"dilations": [2, 1]},
    "pad -1": {"pads": [-1, 0, 0, 0]},
    "pads too few": {"pads": [0, 0]},
    "pads beside SAME_UPPER": {"auto_pad": "SAME_UPPER", "pads": [0, 1, 1, 0]},
    "pads beside VALID": {"auto_pad": "VALID", "pads": [0, 1, 1, 0]},
    "SAME_LOWER, stride 2": {"auto_pad": "SAME_LOWER", "strides": [2, 2]},
    "kernel 0": {"kernel_shape": [0, 3]},
    "kernel -1": {"kernel_shape": [-1, 3]},
    "kernel too short": {"kernel_shape": [3]},
}


@pytest.mark.parametrize("opset", [1, 11, 22])
@pytest.mark.parametrize("op", ["Conv", "ConvTranspose"])
@pytest.mark.parametrize("case", sorted(ATTRIBUTE_CASES))
def test_convolution_attributes_as_onnx(op: str, opset: int, case: str) -> None:
    _same(_model(op, {"x": X, "w": W}, opset, **ATTRIBUTE_CASES[case]))


@pytest.mark.parametrize("opset", [1, 8, 10, 11, 18, 19, 22])
@pytest.mark.parametrize("op", ["MaxPool", "AveragePool", "LpPool"])
@pytest.mark.parametrize("case", sorted(ATTRIBUTE_CASES))
def test_pooling_attributes_as_onnx(op: str, opset: int, case: str) -> None:
    attributes = ATTRIBUTE_CASES[case]
    _same(_model(op, {"x": X}, opset, **{**K, **attributes}))


@pytest.mark.parametrize(
    ("x", "w", "attributes"),
    [
        ((1, 1), (1, 1, 3), {}),  # an input without spatial axes
        ((1,), (1, 1, 3), {}),
        ((1, 1), None, {}),
        (X, (1, 1, 3, 3, 3), {}),  # more kernel axes than the input has
        (X, (1, 1, 3, 3, 3), K),  # ... which kernel_shape makes moot
        (X, (), {}),
        (X, (3,), {}),
        (X, (1, 3), {}),
        (X, (1, 1, None, 3), {}),  # a kernel of unknown size: no output shape
        (X, (1, 1, None, 3), K),
        (X, None, {"strides": [0, 1]}),  # nothing to check against without the weight's shape
        (None, W, {"strides": [0, 1]}),
        ((1, 1, None, 5), W, {"strides": [0, 1]}),  # ... but an unknown axis is checked
        (X, (1, 1, 7, 7), {}),
    ],
)
@pytest.mark.parametrize("op", ["Conv", "ConvTranspose"])
def test_convolution_ranks_as_onnx(op: str, x: Any, w: Any, attributes: dict[str, Any]) -> None:
    _same(_model(op, {"x": x, "w": w}, 22, **attributes))


@pytest.mark.parametrize(
    "attributes",
    [
        {"output_padding": [-1, 0]},
        {"output_padding": [1]},
        {"output_padding": [1, 0], "strides": [2, 2]},
        {"output_shape": [-1, 6]},
        {"output_shape": [6]},
        {"output_shape": [1, 1, 6, 6]},
        {"output_shape": [6, 7]},
    ],
)
def test_conv_transpose_output_attributes_as_onnx(attributes: dict[str, Any]) -> None:
    _same(_model("ConvTranspose", {"x": X, "w": W}, 22, **attributes))


@pytest.mark.parametrize(
    ("x", "attributes"),
    [
        (X, {}),  # no kernel_shape
        (None, {}),
        ((1, 1), K),
        ((1, 1, None, 5), {**K, "strides": [0, 1]}),
        (X, {"kernel_shape": [7, 7]}),
        (X, {**K, "ceil_mode": 1, "strides": [2, 2]}),
    ],
)
@pytest.mark.parametrize("op", ["MaxPool", "AveragePool", "LpPool"])
def test_pooling_ranks_as_onnx(op: str, x: Any, attributes: dict[str, Any]) -> None:
    _same(_model(op, {"x": x}, 22, **attributes))


@pytest.mark.quick
@pytest.mark.parametrize(
    ("indices", "attributes"),
    [
        ((1, 1, 5, 5), {"kernel_shape": [2, 2], "strides": [2, 2]}),
        ((), {"kernel_shape": [2, 2]}),
        ((1, 1, 5, 5), {}),
    ],
)
def test_max_unpool_as_onnx(indices: Any, attributes: dict[str, Any]) -> None:
    node = helper.make_node("MaxUnpool", ["x", "i"], ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", F, X),
            helper.make_tensor_value_info("i", onnx.TensorProto.INT64, indices),
        ],
        [helper.make_tensor_value_info("y", F, None)],
    )
    _same(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]))
