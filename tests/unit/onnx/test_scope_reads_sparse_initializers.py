"""What a graph reads from outside (GraphScope.reads, outer_reads: extract_model's implicit
inputs, draw's dashed edges) leaves out what the graph gives itself before its first node:
its inputs, its initializers, and its sparse initializers, in the main graph and in bodies."""

from __future__ import annotations

import numpy as np
import pytest

from schema_dsl.onnx import GraphProto, SparseTensorProto, TensorProto
from wirecodec import helper
from wirecodec.graphs.scopes import given_names, outer_reads, root_scope
from wirecodec.numpy_helper import from_array


def _sparse(name: str) -> SparseTensorProto:
    values = from_array(np.array([1.0], np.float32), name)
    indices = from_array(np.array([0], np.int64), f"{name}_indices")
    return helper.make_sparse_tensor(values, indices, [2])


def _body() -> GraphProto:
    out = helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("Add", ["outer", "s"], ["u"]),
        helper.make_node("Add", ["u", "t"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "body", [], [out], initializer=[from_array(np.zeros(2, np.float32), "t")]
    )
    graph.sparse_initializer.append(_sparse("s"))
    return graph


@pytest.mark.quick
def test_a_body_reading_its_own_sparse_initializer_reads_only_the_outer_value() -> None:
    body = _body()
    assert given_names(body) == {"s", "t"}
    assert outer_reads(body) == {"outer"}
    x = helper.make_tensor_value_info("outer", TensorProto.FLOAT, [2])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    node = helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=_body())
    graph = helper.make_graph([node], "main", [cond, x], [y])
    (then_scope, else_scope) = root_scope(graph).inner()
    assert then_scope.reads() == else_scope.reads() == {"outer"}


def test_the_main_graph_reading_a_sparse_initializer_reads_nothing_from_outside() -> None:
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Identity", ["s"], ["y"])], "main", [], [y])
    graph.sparse_initializer.append(_sparse("s"))
    assert outer_reads(graph) == set()
