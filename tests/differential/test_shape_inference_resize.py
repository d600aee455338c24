"""Resize's scales and sizes against onnx's inference: an empty tensor stands for one not
given, sizes win in version 11, and from 13 exactly one of them must be given. Both
stored as initializers; strict: both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, T = onnx.helper, onnx.TensorProto


def _model(version: int, scales: list[float] | None, sizes: list[int] | None) -> Any:
    inputs = [helper.make_tensor_value_info("x", T.INT32, (1, 3, 4, 5))]
    inputs.append(helper.make_tensor_value_info("roi", T.FLOAT, (0,)))
    initializers = []
    for name, values, elem in (("scales", scales, T.FLOAT), ("sizes", sizes, T.INT64)):
        if values is not None:
            initializers.append(helper.make_tensor(name, elem, (len(values),), values))
            inputs.append(helper.make_tensor_value_info(name, elem, (len(values),)))
    names = ["x", "roi", "scales" if scales is not None else "", "sizes" if sizes is not None else ""]
    while not names[-1]:
        names.pop()
    graph = helper.make_graph(
        [helper.make_node("Resize", names, ["y"])], "g", inputs, [], initializer=initializers
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])


@pytest.mark.quick
@pytest.mark.parametrize("version", [11, 13, 18, 19])
@pytest.mark.parametrize(
    ("scales", "sizes"),
    [
        ([2.0, 1.1, 2.3, 1.9], []),
        ([], [2, 3, 9, 9]),
        ([], []),
        ([2.0, 1.0, 1.0, 1.0], [2, 3, 4, 5]),
        (None, []),
        ([], None),
        ([2.0, 1.0, 1.0, 1.0], None),
        (None, [2, 3, 4, 5]),
    ],
)
def test_resize_scales_and_sizes_as_onnx(version: int, scales: Any, sizes: Any) -> None:
    assert_strict_inference_as_onnx(_model(version, scales, sizes))
