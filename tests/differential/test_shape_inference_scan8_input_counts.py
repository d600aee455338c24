"""Scan-8's first input is ``sequence_lens`` (empty when absent), then the loop state
variables, then the ``num_scan_inputs`` scan inputs: onnx refuses a num_scan_inputs that
leaves no room for sequence_lens (num_scan_inputs + 1 above the input count). Strict
inference by both, num_scan_inputs from 1 to past the inputs: the same bytes, or both
refuse; not strict, the same bytes (onnx then infers nothing for a refused node)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper = onnx.helper


def _model(num_scan_inputs: int) -> Any:
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["s_in"], ["s_out"]),
            helper.make_node("Identity", ["x_in"], ["y_out"]),
        ],
        "body",
        [helper.make_tensor_value_info("s_in", 1, None), helper.make_tensor_value_info("x_in", 1, None)],
        [helper.make_tensor_value_info("s_out", 1, None), helper.make_tensor_value_info("y_out", 1, None)],
    )
    scan = helper.make_node(
        "Scan", ["", "s", "x"], ["s_final", "y"], body=body, num_scan_inputs=num_scan_inputs
    )
    graph = helper.make_graph(
        [scan],
        "g",
        [helper.make_tensor_value_info("s", 1, [1, 2]), helper.make_tensor_value_info("x", 1, [1, 3, 2])],
        [helper.make_tensor_value_info("s_final", 1, None), helper.make_tensor_value_info("y", 1, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)], ir_version=3)


@pytest.mark.parametrize("num_scan_inputs", [1, 2, 3, 4])
def test_scan_8_num_scan_inputs_beside_sequence_lens_as_onnx(num_scan_inputs: int) -> None:
    assert_strict_inference_as_onnx(_model(num_scan_inputs))


@pytest.mark.parametrize("num_scan_inputs", [2, 3])
def test_scan_8_not_strict_infers_what_onnx_infers(num_scan_inputs: int) -> None:
    import wirecodec
    from wirecodec.protobuf.codec import encode
    from wirecodec.shape_inference import infer_shapes

    model = _model(num_scan_inputs)
    theirs = onnx.shape_inference.infer_shapes(model).SerializeToString()
    assert encode(infer_shapes(wirecodec.load(model.SerializeToString()))) == theirs


@pytest.mark.quick
def test_scan_8_without_room_for_sequence_lens_is_refused_by_its_count() -> None:
    import wirecodec
    from wirecodec.shape_inference import InferenceError, infer_shapes

    loaded = wirecodec.load(_model(3).SerializeToString())
    with pytest.raises(InferenceError, match=r"num_scan_inputs \(3\) and the sequence_lens input"):
        infer_shapes(loaded, strict_mode=True)
