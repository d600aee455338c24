"""The operator counts one walk of the checker gives (``examine(...).operators``, what
``wirecodec check`` prints): an operator of another domain is counted under
``domain::op_type``, apart from the default domain's operator of the same name."""

from __future__ import annotations

import pytest

from wirecodec import checker, helper


@pytest.mark.quick
def test_operators_of_two_domains_with_one_name_are_counted_apart() -> None:
    nodes = [
        helper.make_node("Gelu", ["x"], ["a"]),
        helper.make_node("Gelu", ["a"], ["b"], domain="com.microsoft"),
        helper.make_node("Gelu", ["b"], ["c"], domain="com.microsoft"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", 1, [2])],
        [helper.make_tensor_value_info("c", 1, [2])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid("com.microsoft", 1)]
    )
    assert checker.examine(model).operators == {"Gelu": 1, "com.microsoft::Gelu": 2}
