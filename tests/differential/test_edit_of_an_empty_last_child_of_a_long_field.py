"""Differential: an edit of an empty sub-message that is the last thing inside the last
element of a long repeated field (a scalar output, ``shape {}``, last of ``graph.output``)
starts exactly where the field's records end. The encoder of changed elements
(wirecodec.protobuf.origin.reuse_field) must see that change, not copy the field's
source bytes: the result is onnx's bytes after the same edit."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto
from tests.support.reference import require_onnx

onnx = require_onnx()


def _graph(outputs: int) -> Any:
    helper = onnx.helper
    # names long enough that no element waits (every one is decoded, the field keeps a span)
    values = [helper.make_tensor_value_info(f"an output named at length {i}", 1, [2]) for i in range(outputs)]
    values[-1] = helper.make_tensor_value_info("the last output, a scalar", 1, [])  # shape {}
    nodes = [helper.make_node("Relu", ["x"], [v.name]) for v in values]
    return helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", 1, [2])], values)


@pytest.mark.parametrize("outputs", [2, 3, 8])
def test_a_dim_added_to_the_last_outputs_empty_shape_is_encoded(outputs: int) -> None:
    data = bytes(_graph(outputs).SerializeToString())
    ours, theirs = wirecodec.decode(GraphProto, data), onnx.GraphProto.FromString(data)
    assert ours.output._records is not None  # the field's own span: re-emitted around changes
    for graph in (ours, theirs):
        graph.output[-1].type.tensor_type.shape.dim.add().dim_value = 1
    assert wirecodec.encode(ours) == theirs.SerializeToString()


def test_the_same_edit_inside_a_model_survives_a_save(tmp_path: Any) -> None:
    model = onnx.helper.make_model(_graph(4))
    data = bytes(model.SerializeToString())
    ours, theirs = wirecodec.decode(ModelProto, data), onnx.ModelProto.FromString(data)
    for m in (ours, theirs):
        m.graph.output[-1].type.tensor_type.shape.dim.add().dim_value = 1
    wirecodec.save(ours, tmp_path / "m.onnx")
    again = onnx.load(str(tmp_path / "m.onnx"))
    assert [d.dim_value for d in again.graph.output[-1].type.tensor_type.shape.dim] == [1]
    assert again.SerializeToString() == theirs.SerializeToString()
