"""One scope walk (wirecodec/graphs/scopes.py): every tool sees the same bodies — ``g`` when set and
every ``graphs`` element, whatever the attribute's ``type`` says — with the same paths."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, TensorProto
from wirecodec import compose, helper
from wirecodec.checker import violations
from wirecodec.files.opener import open_model
from wirecodec.graphs.draw import to_dot
from wirecodec.graphs.scopes import body_scopes, named_bodies, walk_bodies, walk_graphs
from wirecodec.protobuf.codec import encode
from wirecodec.protobuf.fieldpath import resolve

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


# -- the walk itself: If, Loop, Scan, nested bodies and a GRAPHS attribute -------------------


def _nested_model_graph() -> GraphProto:
    """main: x -> Relu a; If(cond) with a then_branch holding a Loop whose body reads ``a``;
    a Scan after it; a custom node with a GRAPHS attribute of two bodies; Neg last (``late``)."""
    loop_body = helper.make_graph(
        [helper.make_node("Add", ["v", "a"], ["v2"]), helper.make_node("Identity", ["c"], ["c2"])],
        "loop_body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v", FLOAT, [1]),
        ],
        [
            helper.make_tensor_value_info("c2", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v2", FLOAT, [1]),
        ],
    )
    then_branch = helper.make_graph(
        [
            helper.make_node("Identity", ["a"], ["t0"]),
            helper.make_node("Loop", ["", "cond", "t0"], ["t1"], body=loop_body),
        ],
        "then",
        [],
        [helper.make_tensor_value_info("t1", FLOAT, [1])],
    )
    scan_body = helper.make_graph(
        [helper.make_node("Add", ["s", "e"], ["s2"]), helper.make_node("Identity", ["s2"], ["o"])],
        "scan_body",
        [helper.make_tensor_value_info("s", FLOAT, [1]), helper.make_tensor_value_info("e", FLOAT, [1])],
        [helper.make_tensor_value_info("s2", FLOAT, [1]), helper.make_tensor_value_info("o", FLOAT, [1])],
    )
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("If", ["cond"], ["b"], then_branch=then_branch, else_branch=_branch("a", "e0")),
        helper.make_node("Scan", ["b", "x"], ["s_end", "ys"], body=scan_body, num_scan_inputs=1),
        helper.make_node(
            "Custom", ["b"], ["c"], domain="x", many=[_branch("b", "m0"), _branch("late", "m1")]
        ),
        helper.make_node("Neg", ["c"], ["late"]),
    ]
    return helper.make_graph(
        nodes,
        "main",
        [
            helper.make_tensor_value_info("x", FLOAT, [1]),
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("late", FLOAT, [1])],
        [helper.make_tensor(name="w", data_type=FLOAT, dims=[1], vals=[1.0])],
    )


@pytest.mark.quick
def test_walk_graphs_gives_every_body_with_its_scope() -> None:
    model = ModelProto(graph=_nested_model_graph())
    graph = model.graph
    scopes = {s.path: s for s in walk_graphs(graph)}
    then = "graph.node[1].attribute[1].g"  # make_node sorts attributes: else_branch, then_branch
    loop = f"{then}.node[1].attribute[0].g"
    many = ["graph.node[3].attribute[0].graphs[0]", "graph.node[3].attribute[0].graphs[1]"]
    assert list(scopes) == [
        "graph",
        "graph.node[1].attribute[0].g",
        then,
        loop,
        "graph.node[2].attribute[0].g",
        *many,
    ]
    for path, scope in scopes.items():  # every path reads back to its graph
        assert resolve(model, path) is scope.graph
    assert [scopes[p].depth for p in scopes] == [0, 1, 1, 2, 1, 1, 1]
    assert scopes[loop].holder is scopes[then].graph.node[1] and scopes[loop].holder_path == f"{then}.node[1]"
    assert scopes[loop].parent is scopes[then] and scopes[then].parent is scopes["graph"]
    assert [s.path for s in scopes[loop].chain()] == [loop, then, "graph"]
    assert [scopes[p].label for p in many] == ["many[0]", "many[1]"]
    assert [p for p in scopes if scopes[p].in_graphs] == many
    # before: what is visible where the body is held, with the nearest definition
    assert scopes[loop].before == {
        "x": "graph.input[0].name",
        "cond": "graph.input[1].name",
        "w": "graph.initializer[0].name",
        "a": "graph.node[0].output[0]",
        "t0": f"{then}.node[0].output[0]",
    }
    assert "b" not in scopes[then].before and "b" in scopes[many[0]].before  # b is the If's own output
    assert "b" in scopes[then].later and "b" not in scopes[many[0]].later  # ... made by the holder itself
    # later: what an enclosing node at or after the holder produces
    assert scopes[many[1]].later == {"c", "late"} and "late" in scopes[loop].later
    assert "a" not in scopes[loop].later
    # outer: every name of the enclosing graphs, whatever its position
    assert {"late", "ys", "t0", "t1"} <= scopes[loop].outer and "v2" not in scopes[loop].outer
    # what a body defines and what it reads from outside
    assert scopes[loop].defines() == {
        "i": f"{loop}.input[0].name",
        "c": f"{loop}.input[1].name",
        "v": f"{loop}.input[2].name",
        "v2": f"{loop}.node[0].output[0]",
        "c2": f"{loop}.node[1].output[0]",
    }
    assert scopes[loop].reads() == {"a"} and scopes[then].reads() == {"a", "cond"}
    assert scopes[many[1]].reads() == {"late"}
    assert [s.path for s in scopes["graph"].inner(3)] == many
    assert [s.path for s in scopes["graph"].inner()] == [p for p in scopes if scopes[p].depth == 1]


def test_walk_graphs_outer_names_and_function_bodies() -> None:
    graph = _nested_model_graph()
    root, *_ = walk_graphs(graph, "training_info[0].algorithm", {"q": "graph.input[0].name"})
    assert root.before == {"q": "graph.input[0].name"} and root.outer == {"q"}
    inner = root.inner(1)[0]
    assert inner.path == "training_info[0].algorithm.node[1].attribute[0].g"
    assert inner.before["q"] == "graph.input[0].name"
    given = {"x": "functions[0].input[0]"}
    found = [(s.path, s.depth) for s in walk_bodies(graph.node, "functions[0]", given)]
    assert found[:3] == [
        ("functions[0].node[1].attribute[0].g", 1),
        ("functions[0].node[1].attribute[1].g", 1),
        ("functions[0].node[1].attribute[1].g.node[1].attribute[0].g", 2),
    ]
    assert body_scopes(graph.node, "functions[0]", given, 1)[0].before == {
        "x": "functions[0].input[0]",
        "a": "functions[0].node[0].output[0]",
    }


def test_walk_graphs_sees_renames_made_before_a_body_comes() -> None:
    graph = _nested_model_graph()
    walk = walk_graphs(graph)
    next(walk)
    graph.node[0].output[0] = "renamed"
    assert "renamed" in next(walk).before


def test_draw_takes_bodies_and_outer_reads_from_the_walk() -> None:
    """Every body is a cluster, GRAPHS elements included; a body's outer read is an edge from
    the enclosing graph's producer; ``around`` finds a name inside a GRAPHS body."""
    model = ModelProto(graph=_nested_model_graph())
    dot = to_dot(model, expand_bodies=True)
    for label in (
        "If.then_branch",
        "If.else_branch",
        "Loop.body",
        "Scan.body",
        "Custom.many[0]",
        "Custom.many[1]",
    ):
        assert f'label="{label}"' in dot, label
    inside = to_dot(model, around="m1")
    assert "inside Custom.many[1]" in inside and '"late"' in inside  # the outer read, a stub
    folded = to_dot(model, max_nodes=5)
    assert "many[1]: 1 nodes, collapsed" in folded
    # a collapsed body's outer reads are dashed edges into its node: a, a, cond, b, late
    assert folded.count("style=dashed") == 5 and 'n7 -> n6 [label="float[1]", style=dashed];' in folded
