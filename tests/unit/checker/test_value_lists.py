"""The checker reads each graph's input, output and value_info lists once (walk.ModelSites.values).

Every rule family used to iterate these lists itself, building a view per value each time
(a value_info per intermediate is as many values as nodes). Now the first read is held in
the walk's sites and the next families get the same views; these tests pin that and the
findings that depend on reading the right list.
"""

from __future__ import annotations

import pytest

from schema_dsl.onnx import ModelProto
from wirecodec import helper
from wirecodec.checker import violations, walk

FLOAT = 1


def _model(*, value_info_names: tuple[str, ...] = ("t",), output: str = "y") -> ModelProto:
    nodes = [
        helper.make_node("Relu", ["x"], ["t"], name="a"),
        helper.make_node("Relu", ["t"], ["y"], name="b"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", FLOAT, [2])],
        [helper.make_tensor_value_info(output, FLOAT, [2])],
        value_info=[helper.make_tensor_value_info(name, FLOAT, [2]) for name in value_info_names],
    )
    model: ModelProto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    return model


@pytest.mark.quick
def test_each_list_is_read_once_and_is_the_graphs_own() -> None:
    model = _model()
    sites = walk(model)
    graph = model.graph
    first = sites.values("graph", graph, "value_info")
    assert sites.values("graph", graph, "value_info") is first
    assert [v.name for v in first] == ["t"]
    assert [v.name for v in sites.values("graph", graph, "input")] == ["x"]
    assert [v.name for v in sites.values("graph", graph, "output")] == ["y"]
    # The held views are the graph's live elements: a write through one is the model's.
    first[0].name = "renamed"
    assert graph.value_info[0].name == "renamed"


def test_another_graph_at_the_same_path_is_not_given_the_held_list() -> None:
    one, other = _model(), _model(value_info_names=("t", "u"))
    sites = walk(one)
    assert len(sites.values("graph", one.graph, "value_info")) == 1
    assert [v.name for v in sites.values("graph", other.graph, "value_info")] == ["t", "u"]


def test_findings_that_read_each_list() -> None:
    found = violations(_model(value_info_names=("t", "t")))
    assert [(v.path, v.rule) for v in found] == [("graph.value_info[1].name", "value-info-unique")]
    found = violations(_model(output="nowhere"))
    assert [(v.path, v.rule) for v in found] == [("graph.output[0].name", "undefined-output")]
    model = _model()
    model.graph.value_info[0].type.tensor_type.ClearField("elem_type")
    found = violations(model)
    assert [(v.path, v.rule) for v in found] == [
        ("graph.value_info[0].type.tensor_type.elem_type", "type-elem-type")
    ]
    model = _model()
    model.ir_version = 7
    model.graph.value_info[0].type.optional_type.elem_type.tensor_type.elem_type = FLOAT
    found = violations(model)
    assert ("graph.value_info[0].type.optional_type", "ir-version-feature") in [
        (v.path, v.rule) for v in found
    ]
