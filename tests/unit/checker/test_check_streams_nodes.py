"""The checker's node and attribute rules run as the one walk meets each node
(wirecodec.checker.walk's ``rules``), so a long graph's node views die as the walk goes on,
and they find exactly what the rule families find looking at the listed sites, in the
same order.

Each seeded model of the checker's tests, and a long graph (past the size where the
decoder keeps records) that breaks a node rule of every family at several places, are
checked both ways.
"""

from __future__ import annotations

import gc
import pathlib
import weakref

import pytest

from schema_dsl.onnx import AttributeProto, ModelProto, NodeProto, StringStringEntryProto
from tests.unit.checker.test_check import SEEDS, Seed, _broken, bases, corpus  # noqa: F401 (fixtures)
from wirecodec import decode, encode, helper
from wirecodec.checker import _model_and_data, _NodeRules, _run_rules, examine
from wirecodec.checker.violation import Report, Violation
from wirecodec.checker.walk import AttributeSite, GraphSite, NodeSite, walk

F = 1


def _listed(model: ModelProto, folder: pathlib.Path | None = None, full: bool = False) -> list[Violation]:
    """The families over the listed sites (the walk without rules), as before the stream."""
    proto, data = _model_and_data(model, folder)
    return _run_rules(proto, walk(proto), Report(), data, full, False)


def _long(n: int = 3000, ir: int = 10) -> ModelProto:
    nodes = [helper.make_node("Relu", [f"x{i}"], [f"x{i + 1}"]) for i in range(n)]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x0", F, [1])],
        [helper.make_tensor_value_info(f"x{n}", F, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    model.ir_version = ir
    return model


def _break_every_family(model: ModelProto) -> None:
    """Node rules of each family broken at two places of the long graph."""
    nodes = model.graph.node
    for at in (10, 2500):
        nodes[at].op_type = ""  # required: node-op-type
        nodes[at + 1].attribute.extend(
            [
                AttributeProto(name="alpha", type=AttributeProto.FLOAT, f=1.0),
                AttributeProto(name="alpha", type=AttributeProto.FLOAT, f=2.0),
            ]
        )  # attributes: attribute-unique; schemas: attribute-declared
        nodes[at + 2].domain = "nowhere"  # opsets: opset-undeclared-domain
        nodes[at + 3].metadata_props.append(StringStringEntryProto(key="k", value="v"))  # ir feature
        nodes[at + 4].op_type = "NoSuchOp"  # schemas: op-registered
        nodes[at + 5].attribute.append(AttributeProto(name="", type=AttributeProto.INT, i=1))
        del nodes[at + 6].output[:]  # required: node-output
        nodes[at + 7].input[0] = "undefined"  # names: undefined-input
        nodes[at + 8].attribute.append(AttributeProto(name="x", type=AttributeProto.INT))  # no i


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.id)
def test_streamed_rules_find_what_listed_sites_find(
    seed: Seed,
    bases: dict[str, bytes],  # noqa: F811
    tmp_path: pathlib.Path,
) -> None:
    broken = _broken(seed, bases, tmp_path)
    listed = _listed(broken.model, broken.folder, seed.full)
    assert listed, seed.id
    found = examine(broken.model, base_dir=broken.folder, full=seed.full).violations
    assert found == listed


@pytest.mark.quick
@pytest.mark.parametrize("ir", [10, 9])
def test_a_long_graph_breaking_every_family_the_same_both_ways(ir: int) -> None:
    model = _long(ir=ir)
    _break_every_family(model)
    decoded = decode(ModelProto, encode(model))  # records and views
    listed = _listed(decoded)
    rules = {v.rule for v in listed}
    assert {"node-op-type", "node-output", "attribute-unique", "opset-undeclared-domain"} <= rules
    assert {"op-registered", "attribute-name", "attribute-declared", "undefined-input"} <= rules
    assert "attribute-value" in rules
    assert ("ir-version-feature" in rules) == (ir < 10)
    assert examine(decoded).violations == listed
    assert examine(model).violations == listed
    skipped = examine(decoded).skipped_domains
    assert skipped == {}


def test_node_views_die_as_the_walk_goes_on() -> None:
    """A node's view is not kept past its rules: at any time few are alive (listing them all
    kept 3000; a held view costs every later collection)."""
    decoded = decode(ModelProto, encode(_long()))
    seen: list[weakref.ref[NodeProto]] = []
    alive: list[int] = []

    class Looking:
        def node(self, site: NodeSite) -> None:
            seen.append(weakref.ref(site.node))
            if len(seen) % 500 == 0:
                gc.collect()
                alive.append(sum(ref() is not None for ref in seen))

        def attribute(self, site: AttributeSite) -> None:
            pass

        def graph(self, site: GraphSite) -> None:
            pass

    sites = walk(decoded, Looking())
    assert len(seen) == 3000 and sites.nodes == [] and sites.attributes == []
    assert alive and max(alive) <= 2, alive
    listed = walk(decoded)
    assert len(listed.nodes) == 3000  # without rules, every node is listed (and held)


def test_function_nodes_are_listed_and_handed_to_the_rules() -> None:
    model = _long(10)
    function = helper.make_function(
        "local", "f", ["a"], ["b"], [helper.make_node("Relu", ["a"], ["b"])], [helper.make_opsetid("", 21)]
    )
    model.functions.append(function)
    model.graph.node.append(helper.make_node("f", ["x10"], ["y"], domain="local"))
    model.opset_import.append(helper.make_opsetid("local", 1))
    handed: list[str] = []

    class Counting:
        def node(self, site: NodeSite) -> None:
            handed.append(site.path)

        def attribute(self, site: AttributeSite) -> None:
            pass

        def graph(self, site: GraphSite) -> None:
            pass

    sites = walk(model, Counting())
    assert [site.path for site in sites.nodes] == ["functions[0].node[0]"]
    assert len(handed) == 12 and "functions[0].node[0]" in handed and "graph.node[10]" in handed
    rules = _NodeRules(model, False)
    walk(model, rules)
    assert rules.operators == {"Relu": 11, "local::f": 1}
    assert examine(model).violations == _listed(model) == []


def _body_reading(name: str) -> ModelProto:
    """A long graph whose node 5 is an If with a branch reading ``name``."""
    model = _long()
    then = helper.make_graph(
        [helper.make_node("Identity", [name], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, [1])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x0"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, [1])],
    )
    model.graph.input.append(helper.make_tensor_value_info("c", 9, []))
    model.graph.node.insert(5, helper.make_node("If", ["c"], ["held"], then_branch=then, else_branch=other))
    return model


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("held", "topological-order"),
        ("x9", "topological-order"),
        ("x5", None),
        ("nowhere", "undefined-input"),
    ],
)
def test_a_body_sees_its_holders_scope_from_what_the_walk_read(name: str, rule: str | None) -> None:
    """The names rules check a body from names the walk read: its holder's own output and
    what later nodes make are produced later; what earlier nodes made is visible."""
    decoded = decode(ModelProto, encode(_body_reading(name)))
    found = examine(decoded).violations
    assert found == _listed(decoded)
    at = "graph.node[5].attribute[1].g.node[0].input[0]"  # (then_branch: attributes by name)
    assert [v.rule for v in found if v.path == at] == ([rule] if rule else [])
