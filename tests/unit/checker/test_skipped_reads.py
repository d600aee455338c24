"""What the checker no longer reads, and why the verdict stays the same.

* The IR-version feature rules read no node, attribute, tensor or value of a model whose
  IR version has every feature (opsets.VALUE_FEATURES_UNTIL, opsets._NEWEST_FEATURE):
  one IR version older, every feature they look for is still found.
* The names rules look for bodies only in the graphs and function bodies the one walk
  found bodies in (names.body_holders): with or without that, the same findings.
"""

from __future__ import annotations

import pytest

from schema_dsl.onnx import (
    ModelProto,
    StringStringEntryProto,
    TensorProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec import helper
from wirecodec.checker import examine, names, opsets
from wirecodec.checker.violation import Report
from wirecodec.checker.walk import walk

F = 1


def _vi(name: str) -> ValueInfoProto:
    return helper.make_tensor_value_info(name, F, [1])


def _featured(ir: int, data_type: int) -> ModelProto:
    """A model using, at its newest, each feature the IR-version rules know of."""
    node = helper.make_node("Relu", ["x"], ["y"])
    node.metadata_props.append(StringStringEntryProto(key="k", value="v"))
    node.device_configurations.add()
    optional = TypeProto()
    optional.optional_type.elem_type.CopyFrom(_vi("x").type)
    value = ValueInfoProto(name="y", type=optional)
    value.metadata_props.append(StringStringEntryProto(key="k", value="v"))
    tensor = TensorProto(name="w", data_type=data_type, dims=[1], raw_data=b"\x00")
    graph = helper.make_graph([node], "g", [_vi("x")], [_vi("y")], initializer=[tensor], value_info=[value])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = ir
    return model


def _features(model: ModelProto) -> list[str]:
    return sorted(v.path for v in examine(model).violations if v.rule == "ir-version-feature")


@pytest.mark.quick
def test_newest_features_found_one_version_before_and_none_from_it() -> None:
    newest = max(opsets._TYPE_SINCE.values())
    f6 = int(TensorProto.FLOAT6E2M3)
    assert opsets._TYPE_SINCE[f6] == newest == opsets._NEWEST_FEATURE
    assert _features(_featured(newest - 1, f6)) == ["graph.initializer[0].data_type"]
    assert _features(_featured(newest, f6)) == []
    # a node's device_configurations are IR 11, a value's metadata IR 10: found just before
    found = _features(_featured(10, F))
    assert "graph.node[0].device_configurations" in found
    assert "graph.value_info[0].metadata_props" not in found
    found = _features(_featured(opsets.VALUE_FEATURES_UNTIL - 1, F))
    assert "graph.value_info[0].metadata_props" in found
    assert "graph.node[0].metadata_props" in found
    assert "graph.value_info[0].type.optional_type" not in found  # IR 8 is older than 9
    assert "graph.value_info[0].type.optional_type" in _features(_featured(7, F))


def _if(name: str, then_out: str, else_out: str) -> object:
    then = helper.make_graph([helper.make_node("Identity", ["x"], [then_out])], "t", [], [_vi(then_out)])
    other = helper.make_graph(
        [helper.make_node("Identity", ["nowhere"], [else_out])], "e", [], [_vi(else_out)]
    )
    return helper.make_node("If", ["c"], [name], then_branch=then, else_branch=other)


def _with_bodies() -> ModelProto:
    nodes = [helper.make_node("Relu", ["x"], ["r"]), _if("i", "r", "b")]  # 'r' shadows an outer name
    graph = helper.make_graph(nodes, "g", [_vi("x"), helper.make_tensor_value_info("c", 9, [])], [_vi("i")])
    function = helper.make_function(
        "local", "f", ["x", "c"], ["o"], [_if("o", "fx", "x")], [helper.make_opsetid("", 18)]
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
        functions=[function],
    )
    model.graph.node.append(helper.make_node("f", ["x", "c"], ["z"], domain="local"))
    return model


@pytest.mark.quick
def test_bodies_looked_for_only_where_the_walk_found_them() -> None:
    model = _with_bodies()
    sites = walk(model)
    holders = names.body_holders(s.path for s in sites.graphs if s.role == "subgraph")
    assert holders == {"graph", "functions[0]"}
    everywhere, where_found = Report(), Report()
    names.check_names(model, everywhere)
    names.check_names(model, where_found, None, holders)
    assert where_found.violations == everywhere.violations
    rules = {v.rule for v in everywhere.violations}
    assert {"ssa-outer-scope", "undefined-input"} <= rules
    assert any(v.path.startswith("functions[0].node[0].attribute") for v in everywhere.violations)
    # told that no graph holds bodies, the rules do not read them (and so miss what is there)
    none = Report()
    names.check_names(model, none, None, frozenset())
    assert not any(".attribute[" in v.path for v in none.violations)


def test_body_holders_of_nested_bodies() -> None:
    assert names.body_holders(
        ["graph.node[3].attribute[0].g", "graph.node[3].attribute[0].g.node[1].attribute[2].graphs[0]"]
    ) == {"graph", "graph.node[3].attribute[0].g"}
