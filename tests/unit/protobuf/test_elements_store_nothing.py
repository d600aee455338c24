"""``lazy.elements`` of an unset repeated field gives an empty tuple and stores nothing (no
empty container on the message): the checker and the walks look at every node's
attributes, and a stored empty list per node is memory a long graph pays for (issue 48,
item 7). Seen through ``stored_fields``, which lists stored containers even when empty.
(The checker's attribute and schema rules still read ``node.attribute`` directly, storing
one empty list per node without attributes: not covered here, reported in docs/testing.md.)"""

from __future__ import annotations

import pytest

from schema_dsl.layout import stored_fields
from schema_dsl.onnx import ModelProto, NodeProto, TensorProto
from wirecodec import helper
from wirecodec.graphs.scopes import walk_graphs
from wirecodec.protobuf.lazy import elements
from wirecodec.protobuf.walk import walk


def _stored(message: object) -> list[str]:
    return [spec.name for spec, _ in stored_fields(message)]  # type: ignore[arg-type]


@pytest.mark.quick
def test_elements_of_an_unset_list_store_no_container() -> None:
    node = NodeProto(op_type="Relu", input=["x"], output=["y"])
    before = _stored(node)
    assert elements(node, "attribute") == ()
    assert _stored(node) == before == ["input", "output", "op_type"]


def test_elements_of_a_set_list_give_its_elements() -> None:
    node = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.5)
    (attribute,) = elements(node, "attribute")
    assert attribute.name == "alpha"


def test_a_walk_and_the_scope_walk_leave_nodes_without_empty_lists() -> None:
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("x", "y")]
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Neg", ["r"], ["y"])]
    model: ModelProto = helper.make_model(helper.make_graph(nodes, "g", info[:1], info[1:]))
    before = [_stored(node) for node in model.graph.node]
    assert sum(1 for _ in walk(model)) > len(nodes)
    assert [scope.path for scope in walk_graphs(model.graph)] == ["graph"]
    assert [_stored(node) for node in model.graph.node] == before
    assert all("attribute" not in names for names in before)
