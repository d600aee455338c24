"""DFT against onnx's inference over opsets 17 (axis attribute) and 20 (axis input): the
axis range (-rank <= axis < rank - 1, not -1), one-sided transforms of real input and
inverse one-sided ones of complex input, and dft_length. Both refuse in strict mode,
or both give the same bytes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper = onnx.helper


def _model(
    opset: int, shape: Any, axis: int | None, onesided: int | None, inverse: int | None, length: Any
) -> Any:
    attributes = {k: v for k, v in (("onesided", onesided), ("inverse", inverse)) if v is not None}
    names = ["x", "n" if length is not None else ""]
    initializer = []
    if length is not None:
        initializer.append(onnx.numpy_helper.from_array(np.array(length, np.int64), "n"))
    if axis is not None and opset >= 20:
        names.append("a")
        initializer.append(onnx.numpy_helper.from_array(np.array(axis, np.int64), "a"))
    elif axis is not None:
        attributes["axis"] = axis
    while not names[-1]:
        names.pop()
    graph = helper.make_graph(
        [helper.make_node("DFT", names, ["y"], **attributes)],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, shape)],
        [],
        initializer=initializer,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("opset", [17, 20])
@pytest.mark.parametrize("shape", [(3, 5, 6, 1), (3, 5, 6, 2), (3, 5, 6, 3), (2, 5), (3, None, 6, 1)])
@pytest.mark.parametrize("axis", [None, 0, 1, 2, -2, 3, -1])
@pytest.mark.parametrize("onesided", [None, 1])
@pytest.mark.parametrize("inverse", [None, 1])
@pytest.mark.parametrize("length", [None, 42])
def test_dft_as_onnx(opset: int, shape: Any, axis: Any, onesided: Any, inverse: Any, length: Any) -> None:
    model = _model(opset, shape, axis, onesided, inverse, length)
    assert_strict_inference_as_onnx(model)
