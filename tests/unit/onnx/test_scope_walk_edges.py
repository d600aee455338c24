"""The one scope walk at its edges: a name produced twice is defined where it is first
produced; a ``g`` body nested in a ``graphs`` element is still in a ``graphs`` attribute; the
names a body sees, listed, are the same as the names it can look up (its holder's outputs
are neither); a field path with a negative index reads from the end, as a list does."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, ValueInfoProto
from wirecodec.graphs.scopes import GraphScope, definitions, walk_graphs
from wirecodec.protobuf.fieldpath import Step, parse, resolve

_G = AttributeProto.AttributeType


def _body(name: str) -> GraphProto:
    return GraphProto(name=name, node=[NodeProto(op_type="Identity", input=["x"], output=[f"{name}_out"])])


@pytest.mark.quick
def test_a_name_produced_twice_is_defined_by_its_first_producer() -> None:
    graph = GraphProto(
        node=[
            NodeProto(op_type="Relu", input=["x"], output=["y"]),
            NodeProto(op_type="Neg", input=["x"], output=["y"]),
        ]
    )
    assert definitions(graph, "graph")["y"] == "graph.node[0].output[0]"


def test_a_g_body_inside_a_graphs_element_is_in_graphs() -> None:
    inner_holder = NodeProto(
        op_type="If",
        input=["c"],
        output=["z"],
        attribute=[AttributeProto(name="then_branch", type=_G.GRAPH, g=_body("deep"))],
    )
    element = GraphProto(name="element", node=[inner_holder])
    holder = NodeProto(
        op_type="Custom",
        domain="custom",
        input=["x"],
        output=["y"],
        attribute=[AttributeProto(name="bodies", type=_G.GRAPHS, graphs=[element])],
    )
    scopes = {scope.graph.name: scope for scope in walk_graphs(GraphProto(name="main", node=[holder]))}
    assert scopes["element"].in_graphs
    assert scopes["deep"].path == "graph.node[0].attribute[0].graphs[0].node[0].attribute[0].g"
    assert scopes["deep"].in_graphs  # inherited: onnx's type inference enters neither
    assert not scopes["main"].in_graphs


def _body_scope() -> GraphScope:
    then = AttributeProto(name="then_branch", type=_G.GRAPH, g=_body("then"))
    graph = GraphProto(
        name="main",
        input=[ValueInfoProto(name="x")],
        node=[
            NodeProto(op_type="Relu", input=["x"], output=["before"]),
            NodeProto(op_type="If", input=["c"], output=["held_out"], attribute=[then]),
            NodeProto(op_type="Neg", input=["x"], output=["after"]),
        ],
    )
    return next(scope for scope in walk_graphs(graph) if scope.graph.name == "then")


def test_the_names_a_body_sees_listed_are_those_it_can_look_up() -> None:
    scope = _body_scope()
    listed = set(scope.before)
    assert listed == {"x", "before"}
    for name in listed:
        assert scope.before[name]
    with pytest.raises(KeyError):
        scope.before["held_out"]
    assert len(scope.before) == 2


@pytest.mark.quick
def test_a_field_path_with_a_negative_index_reads_from_the_end() -> None:
    assert parse("graph.node[-1].output[0]") == [Step("graph", None), Step("node", -1), Step("output", 0)]
    model = ModelProto(graph=_body_scope().parent.graph)  # type: ignore[union-attr]
    assert resolve(model, "graph.node[-1]").op_type == "Neg"
