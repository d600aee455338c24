"""Resize whose scales or sizes are not stored (graph inputs: their values unknown), against
onnx's strict inference: an input whose shape says it is empty (``[0]``) stands for one not
given, any other shape (``[4]``, unknown) for one given; from version 13 exactly one of the
two must be given. Both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, T = onnx.helper, onnx.TensorProto

_SHAPES = {"empty": (0,), "four": (4,), "unknown": None}


def _model(version: int, scales: str | None, sizes: str | None) -> Any:
    """Resize of x with its scales and sizes as graph inputs of the named shapes (None: left out)."""
    inputs = [
        helper.make_tensor_value_info("x", T.FLOAT, (1, 3, 4, 5)),
        helper.make_tensor_value_info("roi", T.FLOAT, (0,)),
    ]
    names = ["x", "roi", "", ""]
    for at, (name, shape, elem) in enumerate((("scales", scales, T.FLOAT), ("sizes", sizes, T.INT64)), 2):
        if shape is not None:
            inputs.append(helper.make_tensor_value_info(name, elem, _SHAPES[shape]))
            names[at] = name
    while not names[-1]:
        names.pop()
    graph = helper.make_graph([helper.make_node("Resize", names, ["y"])], "g", inputs, [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])


@pytest.mark.quick
@pytest.mark.parametrize("version", [13, 19])
@pytest.mark.parametrize(
    ("scales", "sizes"),
    [
        ("empty", "four"),
        ("four", "empty"),
        ("empty", "unknown"),
        ("unknown", "empty"),
        ("empty", "empty"),
        ("four", "four"),
        (None, "four"),
        ("four", None),
        ("empty", None),
    ],
)
def test_a_computed_scales_or_sizes_of_shape_zero_is_not_given_as_onnx(
    version: int, scales: str | None, sizes: str | None
) -> None:
    assert_strict_inference_as_onnx(_model(version, scales, sizes))
