"""An edit of an empty sub-message that is the last field of its parent is kept on
re-encoding. Such a child starts where its parent (and maybe its parent's parent) ends: a
scalar's ``shape {}`` is the last field of its ``tensor_type``, of its ``type`` and, with
no doc string, of its value info. wirecodec re-emits an unchanged message's source bytes,
so the change must count as inside every message whose payload ends where the child
starts, or a dim given to a scalar output is silently lost on save. onnx (protobuf)
makes the same edit and judges the bytes.
"""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, T = onnx.helper, onnx.TensorProto


def _scalar_output_model() -> bytes:
    node = helper.make_node("ReduceSum", ["x"], ["y"], keepdims=0)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [3])],
        [helper.make_tensor_value_info("y", T.FLOAT, [])],  # shape {}: empty, and last
    )
    data: bytes = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    return data


def _give_a_dim(model: Any) -> None:
    model.graph.output[0].type.tensor_type.shape.dim.add().dim_value = 1


@pytest.mark.quick
def test_a_dim_given_to_a_scalar_output_is_written() -> None:
    data = _scalar_output_model()
    theirs = onnx.load_model_from_string(data)
    _give_a_dim(theirs)
    mine = wirecodec.decode(ModelProto, data)
    _give_a_dim(mine)
    assert wirecodec.encode(mine) == theirs.SerializeToString() != data


def test_an_edit_of_the_empty_shape_makes_its_holders_unequal_to_the_source() -> None:
    data = _scalar_output_model()
    before = wirecodec.decode(ModelProto, data)
    after = wirecodec.decode(ModelProto, data)
    _give_a_dim(after)
    assert before.graph.output[0] != after.graph.output[0]
    assert before.graph != after.graph
