"""A rank read from a length (a shape input's) is taken only up to MAX_RANK, as onnx does:
a model declaring a shape input of 2**31 elements leaves the rank unknown instead of
making a tuple of 2**31 dims (it did: a MemoryError, found by onnx's own tests)."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import helper
from wirecodec.shape_inference import infer_shapes
from wirecodec.shape_inference._types import MAX_RANK


def _rank_after(op: str, length: int) -> int | None:
    graph = helper.make_graph(
        [helper.make_node(op, ["x", "shape"] if op != "ConstantOfShape" else ["shape"], ["y"])],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("shape", TensorProto.INT64, [length]),
        ]
        if op != "ConstantOfShape"
        else [helper.make_tensor_value_info("shape", TensorProto.INT64, [length])],
        [helper.make_empty_tensor_value_info("y")],
    )
    out = infer_shapes(helper.make_model(graph)).graph.output[0].type.tensor_type
    return len(out.shape.dim) if out.HasField("shape") else None


@pytest.mark.parametrize("op", ["ConstantOfShape", "Reshape"])
@pytest.mark.parametrize("length", [3, MAX_RANK, MAX_RANK + 1, 2**31, 2**63 - 1])
def test_a_rank_from_a_length_is_taken_up_to_max_rank(op: str, length: int) -> None:
    onnx = pytest.importorskip("onnx")
    from onnx import helper as oh
    from onnx import shape_inference

    inputs = [oh.make_tensor_value_info("shape", onnx.TensorProto.INT64, [length])]
    if op != "ConstantOfShape":
        inputs.insert(0, oh.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3]))
    node = oh.make_node(op, [i.name for i in inputs], ["y"])
    graph = oh.make_graph([node], "g", inputs, [oh.make_empty_tensor_value_info("y")])
    theirs = shape_inference.infer_shapes(oh.make_model(graph)).graph.output[0].type.tensor_type
    expected = len(theirs.shape.dim) if theirs.HasField("shape") else None
    assert _rank_after(op, length) == expected
    if length > MAX_RANK:
        assert expected is None
