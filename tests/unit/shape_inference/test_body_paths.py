"""Shape inference names a finding inside a body by the body's path from the one scope walk
(issue 47, item 5): the path of the body of the node that holds it, at any place in its
graph and at any depth, one ``fieldpath.resolve`` reads back."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec import helper
from wirecodec.protobuf.fieldpath import resolve
from wirecodec.shape_inference import InferenceError, infer_shapes

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _vi(name: str, elem: int = F) -> object:
    return helper.make_tensor_value_info(name, elem, [2])


def _wrong_add(out: str) -> GraphProto:
    """A branch adding the float ``x`` of the enclosing graph to an int64 constant."""
    return helper.make_graph(
        [helper.make_node("Add", ["x", "k"], [out])],
        "wrong",
        [],
        [_vi(out)],
        initializer=[helper.make_tensor("k", I64, [2], [1, 2])],
    )


def _fine(out: str) -> GraphProto:
    return helper.make_graph([helper.make_node("Identity", ["x"], [out])], "fine", [], [_vi(out)])


def _if(cond: str, out: str, then: GraphProto, other: GraphProto) -> object:
    return helper.make_node("If", [cond], [out], then_branch=then, else_branch=other)


def _model(nodes: list[object]) -> ModelProto:
    graph = helper.make_graph(nodes, "g", [_vi("x"), helper.make_tensor_value_info("c", B, [])], [_vi("y")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _where(model: ModelProto) -> str:
    with pytest.raises(InferenceError) as caught:
        infer_shapes(model, check_type=True, strict_mode=True)
    return caught.value.node.split(" ")[0]


@pytest.mark.quick
def test_a_type_error_in_the_branch_of_a_later_node_names_that_branch() -> None:
    model = _model(
        [
            _if("c", "a", _fine("t0"), _fine("e0")),
            helper.make_node("Relu", ["x"], ["r"]),
            _if("c", "y", _wrong_add("t1"), _fine("e1")),
        ]
    )
    where = _where(model)
    assert where == "graph.node[2].attribute[1].g.node[0]"  # make_node sorts: else_branch, then_branch
    assert resolve(model, where).op_type == "Add"


def test_a_type_error_two_bodies_deep_names_both() -> None:
    inner = _if("c", "t1", _wrong_add("u"), _fine("v"))
    outer_then = helper.make_graph([inner], "then", [], [_vi("t1")])
    model = _model([helper.make_node("Relu", ["x"], ["r"]), _if("c", "y", outer_then, _fine("e"))])
    where = _where(model)
    assert where == "graph.node[1].attribute[1].g.node[0].attribute[1].g.node[0]"
    assert resolve(model, where).op_type == "Add"
