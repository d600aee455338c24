"""BatchNormalization's scale, bias, mean and variance are vectors (one value per channel):
from version 14, onnx's inference refuses any of the four of another rank than 1 (each
checked alone); before 14 it does not look. Strict inference by both, input by input and
version by version: the same bytes, or both refuse."""

from __future__ import annotations

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper = onnx.helper
_NAMES = ("x", "scale", "b", "input_mean", "input_var")


@pytest.mark.parametrize("opset", [9, 14, 15])
@pytest.mark.parametrize("wrong", [None, 1, 2, 3, 4])
def test_batch_norm_statistics_of_rank_two_as_onnx(opset: int, wrong: int | None) -> None:
    shapes = {i: [3] for i in range(1, 5)}
    if wrong is not None:
        shapes[wrong] = [1, 3]
    inputs = [helper.make_tensor_value_info("x", 1, [2, 3, 4])]
    inputs += [helper.make_tensor_value_info(_NAMES[i], 1, shapes[i]) for i in range(1, 5)]
    graph = helper.make_graph(
        [helper.make_node("BatchNormalization", list(_NAMES), ["y"])],
        "g",
        inputs,
        [helper.make_tensor_value_info("y", 1, None)],
    )
    assert_strict_inference_as_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]))


@pytest.mark.quick
def test_batch_norm_15_refuses_a_variance_of_rank_two() -> None:
    from wirecodec.shape_inference import InferenceError, infer_shapes

    inputs = [helper.make_tensor_value_info("x", 1, [2, 3, 4])]
    inputs += [helper.make_tensor_value_info(_NAMES[i], 1, [3] if i < 4 else [1, 3]) for i in range(1, 5)]
    graph = helper.make_graph(
        [helper.make_node("BatchNormalization", list(_NAMES), ["y"])],
        "g",
        inputs,
        [helper.make_tensor_value_info("y", 1, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)])
    import wirecodec

    with pytest.raises(InferenceError, match="input 4 must have rank 1, not 2"):
        infer_shapes(wirecodec.load(model.SerializeToString()), strict_mode=True)
