"""One scope walk (wirecodec/_graphs.py): every tool sees the same bodies — ``g`` when set and
every ``graphs`` element, whatever the attribute's ``type`` says — with the same paths."""

from __future__ import annotations

from schema_dsl.onnx import AttributeProto, GraphProto, TensorProto
from wirecodec import compose, helper
from wirecodec._graphs import named_bodies, walk_graphs
from wirecodec.checker import violations
from wirecodec.files.opener import open_model
from wirecodec.protobuf.codec import encode

FLOAT = TensorProto.FLOAT


def _branch(reads: str, out: str) -> GraphProto:
    return helper.make_graph(
        [helper.make_node("Identity", [reads], [out])],
        "branch",
        [],
        [helper.make_tensor_value_info(out, FLOAT, [1])],
    )


def _untyped_if(reads: str) -> GraphProto:
    """A graph whose If holds its branches as ``g`` with the attribute's type left unset."""
    node = helper.make_node(
        "If", ["cond"], ["z"], then_branch=_branch(reads, "t"), else_branch=_branch(reads, "e")
    )
    for attribute in node.attribute:
        attribute.ClearField("type")
        assert attribute.HasField("g") and attribute.type == AttributeProto.UNDEFINED
    return helper.make_graph(
        [node],
        "g2",
        [
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            helper.make_tensor_value_info("y", FLOAT, [1]),
        ],
        [helper.make_tensor_value_info("z", FLOAT, [1])],
    )


def test_compose_renames_inside_a_body_held_under_an_untyped_attribute() -> None:
    """merge_graphs connects g1's ``x`` to g2's ``y``: the branches that read ``y`` must read
    ``x`` after it (compose looked at the attribute's type; the checker at ``g``)."""
    g1 = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["x"])],
        "g1",
        [
            helper.make_tensor_value_info("a", FLOAT, [1]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("x", FLOAT, [1]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
    )
    merged = compose.merge_graphs(g1, _untyped_if("y"), [("x", "y"), ("cond", "cond")])
    reads = {node.input[0] for scope in walk_graphs(merged) if scope.depth for node in scope.graph.node}
    assert reads == {"x"}
    model = helper.make_model(merged)
    found = violations(open_model(encode(model)))
    assert not [v for v in found if "'y'" in v.message]  # no body reads a name that is gone
    assert {v.rule for v in found} == {"attribute-type"}  # the untyped attributes, and nothing else


def test_walk_graphs_paths_depths_and_outer_names() -> None:
    graph = _untyped_if("y")
    scopes = list(walk_graphs(graph))
    assert [(s.path, s.depth) for s in scopes] == [
        ("graph", 0),
        ("graph.node[0].attribute[0].g", 1),
        ("graph.node[0].attribute[1].g", 1),
    ]
    assert scopes[1].outer == frozenset({"cond", "y", "z"}) and scopes[1].holder is graph.node[0]


def test_named_bodies_counts_g_and_graphs_alike() -> None:
    node = helper.make_node(
        "Custom", [], ["o"], domain="x", one=_branch("a", "b"), many=[_branch("c", "d")] * 2
    )
    assert [(name, path) for name, path, _ in named_bodies(node, "n")] == [
        ("many[0]", "n.attribute[0].graphs[0]"),
        ("many[1]", "n.attribute[0].graphs[1]"),
        ("one", "n.attribute[1].g"),
    ]
