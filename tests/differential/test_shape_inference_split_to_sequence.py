"""SplitToSequence against onnx's inference: a stored split of equal pieces gives their size,
of several sizes an unknown one; a scalar split that is not positive, or an empty one, is
refused (it divided by zero before). Strict: both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, T = onnx.helper, onnx.TensorProto


def _model(shape: Any, split: Any, split_shape: Any = None, **attrs: Any) -> Any:
    import numpy as np

    inputs = [helper.make_tensor_value_info("x", T.FLOAT, shape)]
    initializers = []
    names = ["x"]
    if split is not None:
        values = np.array(split, dtype=np.int64)
        initializers.append(helper.make_tensor("s", T.INT64, values.shape, values.reshape(-1).tolist()))
        inputs.append(helper.make_tensor_value_info("s", T.INT64, values.shape))
        names.append("s")
    elif split_shape is not None:
        inputs.append(helper.make_tensor_value_info("s", T.INT64, split_shape))
        names.append("s")
    graph = helper.make_graph(
        [helper.make_node("SplitToSequence", names, ["y"], **attrs)],
        "g",
        inputs,
        [],
        initializer=initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])


@pytest.mark.quick
@pytest.mark.parametrize(
    ("shape", "split", "split_shape", "attrs"),
    [
        ((6, 4), [2, 4], None, {}),
        ((6, 4), [3, 3], None, {}),
        ((6, 4), [2, 2, 2], None, {}),
        ((6, 4), [2, 2], None, {"axis": 1}),
        ((6, 4), [[2, 4]], None, {}),
        ((6, 4), [], None, {}),
        ((6, 4), 0, None, {}),
        ((6, 4), -1, None, {}),
        ((6, 4), 2, None, {}),
        ((6, 4), 4, None, {}),
        ((6, 4), 3, None, {"keepdims": 0}),
        ((0, 4), 2, None, {}),
        (("N", 4), 3, None, {}),
        (("N", 4), [1, 2], None, {}),
        ((6, 4), None, None, {}),
        ((6, 4), None, None, {"keepdims": 0}),
        ((6, 4), None, (2,), {}),
        ((6, 4), None, (), {}),
    ],
)
def test_split_to_sequence_as_onnx(shape: Any, split: Any, split_shape: Any, attrs: dict[str, Any]) -> None:
    assert_strict_inference_as_onnx(_model(shape, split, split_shape, **attrs))
