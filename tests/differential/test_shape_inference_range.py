"""Range against onnx's inference: the length is computed from stored start, limit and delta
of float, double, int32 and int64 only; of other types (float16, bfloat16, int16) it stays
unknown, as onnx leaves it. Strict: both refuse, or both give the same bytes."""

from __future__ import annotations

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, T = onnx.helper, onnx.TensorProto


@pytest.mark.quick
@pytest.mark.parametrize("elem", [T.FLOAT, T.DOUBLE, T.INT16, T.INT32, T.INT64, T.FLOAT16, T.BFLOAT16])
@pytest.mark.parametrize("values", [(1, 5, 2), (5, 1, -1), (0, 7, 3)])
def test_range_length_as_onnx(elem: int, values: tuple[int, int, int]) -> None:
    names = ("start", "limit", "delta")
    stored = [helper.make_tensor(n, elem, (), (v,)) for n, v in zip(names, values, strict=True)]
    graph = helper.make_graph(
        [helper.make_node("Range", list(names), ["y"])],
        "g",
        [helper.make_tensor_value_info(n, elem, ()) for n in names],
        [],
        initializer=stored,
    )
    assert_strict_inference_as_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))
