"""A subgraph sees the initializers of the graphs around it (IR.md: Names Within a Graph, the
lexical scope), whether or not they are also graph inputs: an If branch or a Loop body that
reads a weight of its holding graph is valid, as onnx's checker says. The checker's names
rules take each body's scope from what the one walk read of the enclosing graphs (their
inputs, initializers and node outputs, ``checker.names``), so an initializer left out of
that scope makes every such read an ``undefined-input``; a name defined nowhere stays one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wirecodec
from tests.support.reference import require_onnx
from wirecodec import checker

onnx = require_onnx()
helper, numpy_helper = onnx.helper, onnx.numpy_helper


def _branch(name: str, reads: str, out: str) -> Any:
    return helper.make_graph(
        [helper.make_node("Add", ["x", reads], [out])], name, [], [helper.make_tensor_value_info(out, 1, [2])]
    )


def _if(reads: str, inner: Any | None = None) -> Any:
    then = _branch("then", reads, "t") if inner is None else inner
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])], "else", [], [helper.make_tensor_value_info("e", 1, [2])]
    )
    return helper.make_node("If", ["c"], ["t" if inner is None else "n"], then_branch=then, else_branch=other)


def _model(node: Any, *, sparse: bool = False) -> Any:
    weight = numpy_helper.from_array(np.ones((2,), np.float32), "w")
    dense = [] if sparse else [weight]
    sparse_weights = []
    if sparse:
        values = numpy_helper.from_array(np.ones((2,), np.float32), "w")
        indices = numpy_helper.from_array(np.array([0, 1], np.int64), "w_indices")
        sparse_weights = [helper.make_sparse_tensor(values, indices, [2])]
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", 1, [2]),
        ],
        [helper.make_tensor_value_info(node.output[0], 1, [2])],
        initializer=dense,
        sparse_initializer=sparse_weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _nested(reads: str) -> Any:
    """An If whose then branch holds another If whose then branch reads ``reads``."""
    inner = _if(reads)
    inner.output[0] = "n"
    outer_then = helper.make_graph([inner], "outer_then", [], [helper.make_tensor_value_info("n", 1, [2])])
    return _if(reads, outer_then)


def _verdicts(model: Any) -> tuple[bool, list[tuple[str, str]]]:
    try:
        onnx.checker.check_model(model)
        onnx_valid = True
    except onnx.checker.ValidationError:
        onnx_valid = False
    found = checker.violations(wirecodec.load(model.SerializeToString()))
    return onnx_valid, [(v.rule, v.path) for v in found]


@pytest.mark.quick
def test_an_if_branch_reading_an_initializer_of_its_holding_graph_is_valid() -> None:
    assert _verdicts(_model(_if("w"))) == (True, [])


def test_a_branch_two_levels_down_reading_a_main_graph_initializer_is_valid() -> None:
    assert _verdicts(_model(_nested("w"))) == (True, [])


def test_a_branch_reading_a_sparse_initializer_of_its_holding_graph_is_valid() -> None:
    assert _verdicts(_model(_if("w"), sparse=True)) == (True, [])


def test_a_branch_reading_a_name_defined_nowhere_is_an_undefined_input() -> None:
    assert _verdicts(_model(_if("nowhere"))) == (
        False,
        [("undefined-input", "graph.node[0].attribute[1].g.node[0].input[1]")],
    )
