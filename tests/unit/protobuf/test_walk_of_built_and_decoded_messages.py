"""The walk finds the same things in a message built in memory as in the same message
decoded: a built message holds its lists as stored containers (their presence bits set),
a decoded one may leave them waiting, and the walk's per-class mask of the fields toward
its targets must let both in."""

from __future__ import annotations

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec import helper
from wirecodec.protobuf.walk import walk


def _model() -> ModelProto:
    weight = helper.make_tensor("w", TensorProto.FLOAT, [2], [1.0, 2.0])
    body = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["z"])], "body", [], [helper.make_tensor_value_info("z", 1, [2])]
    )
    nodes = [
        helper.make_node("Add", ["x", "w"], ["y"]),
        helper.make_node("If", ["c"], ["z"], then_branch=body, else_branch=body),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", 1, [2]), helper.make_tensor_value_info("c", 9, [])],
        [helper.make_tensor_value_info("y", 1, [2])],
        [weight],
    )
    return helper.make_model(graph)


@pytest.mark.quick
@pytest.mark.parametrize("targets", [(TensorProto,), (NodeProto,), (GraphProto, TensorProto)], ids=str)
def test_a_built_model_is_walked_as_its_decoded_twin(targets: tuple[type, ...]) -> None:
    built = _model()
    decoded = wirecodec.decode(ModelProto, wirecodec.encode(built))
    paths = [site.path for site in walk(built, targets)]
    assert paths == [site.path for site in walk(decoded, targets)]
    assert any(".node[" in path or ".initializer[" in path for path in paths)


def test_a_built_graph_lists_its_initializer_and_nodes() -> None:
    paths = [site.path for site in walk(_model(), (TensorProto,))]
    assert "graph.initializer[0]" in paths and "graph.node[0]" in paths
