"""Convolutions and pooling refuse an input of rank 2 or less (N x C and no spatial axis),
as onnx does, even where the weight's rank matches it; strict inference by both."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


def _model(op: str, shapes: dict[str, Any], **attributes: Any) -> Any:
    node = helper.make_node(op, list(shapes), ["y"], **attributes)
    inputs = [helper.make_tensor_value_info(name, F, shape) for name, shape in shapes.items()]
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", F, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 22)])


@pytest.mark.parametrize(
    ("x", "w"), [((1, 3), (2, 3)), ((4,), (2,)), ((1, 3), (2, 3, 1)), ((1, 3, 5), (2, 3, 3))]
)
@pytest.mark.parametrize("op", ["Conv", "ConvTranspose"])
def test_a_convolution_of_an_input_without_spatial_axes_as_onnx(op: str, x: Any, w: Any) -> None:
    assert_strict_inference_as_onnx(_model(op, {"x": x, "w": w}))


@pytest.mark.parametrize(("x", "kernel"), [((1, 3), []), ((1, 3), [2]), ((1, 3, 5), [2])])
@pytest.mark.parametrize("op", ["MaxPool", "AveragePool", "LpPool"])
def test_pooling_of_an_input_without_spatial_axes_as_onnx(op: str, x: Any, kernel: list[int]) -> None:
    model = _model(op, {"x": x})
    # an empty list's type cannot be guessed from its values: given
    ints = helper.make_attribute("kernel_shape", kernel, attr_type=onnx.AttributeProto.INTS)
    model.graph.node[0].attribute.append(ints)
    assert_strict_inference_as_onnx(model)
