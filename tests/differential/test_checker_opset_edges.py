"""Which opset a node is checked at, and how, at the edges onnx's checker defines: a domain
imported twice (the last import counts), a model without imports (IR < 3: opset 1 implied;
from IR 3 the import is required, and nothing is implied), the default domain imported as
'ai.onnx', an import of opset 0, an IR 1 attribute without a type (compared with the
schema's, as onnx's Verify does), skipped domains, and a function body's opset
compatibility. Verdicts against ``onnx.checker.check_model`` on small built models; only
the schema rules are compared where the IR rules say more (opset-duplicate-domain is ours)."""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.differential.test_checker_schemas import onnx_refusal
from tests.support.reference import require_onnx
from wirecodec import decode
from wirecodec.checker import schemas, skipped_domains, violations

onnx = require_onnx()
_SCHEMA_RULES = {rule.id for rule in schemas.RULES}


def _model(
    op_type: str, opsets: list[tuple[str, int]], ir: int = 10, untyped: Any = None, **attributes: Any
) -> bytes:
    helper, float_ = onnx.helper, onnx.TensorProto.FLOAT
    node = helper.make_node(op_type, ["x"], ["y"], **attributes)
    if untyped is not None:  # an AttributeProto without its type, as IR 1 allowed
        node.attribute.append(untyped)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", float_, [2])],
        [helper.make_tensor_value_info("y", float_, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    model.ir_version = ir
    if not opsets:
        del model.opset_import[:]
    return bytes(model.SerializeToString())


CASES = [
    # (name, model, onnx refuses?, the rules we report)
    ("'' at 1 then at 20: Gelu (20) is there", _model("Gelu", [("", 1), ("", 20)]), False, set()),
    ("'' at 20 then at 1: Gelu is not", _model("Gelu", [("", 20), ("", 1)]), True, {"op-registered"}),
    ("IR 3 without imports: nothing implied", _model("Gelu", [], ir=3), True, {"opset-import-required"}),
    ("IR 2 without imports: opset 1 implied", _model("Gelu", [], ir=2), True, {"op-registered"}),
    ("IR 2 without imports: Relu is in opset 1", _model("Relu", [], ir=2), False, set()),
    # onnx: "No Op registered for Relu with domain_version of 0"; we say it once, of the import.
    ("'' at opset 0: the import is at fault", _model("Relu", [("", 0)]), True, {"opset-version"}),
    (
        "IR 1: an untyped attribute is compared with its schema",
        _model("LeakyRelu", [], ir=1, untyped=onnx.AttributeProto(name="alpha", f=0.1)),
        True,
        {"attribute-schema-type"},
    ),
    (
        "'ai.onnx' 13 imported, a '' node checked",
        _model("Relu", [("ai.onnx", 13)], bogus=1),
        True,
        {"attribute-declared"},
    ),
    ("'ai.onnx' 13 imported, Gelu unknown there", _model("Gelu", [("ai.onnx", 13)]), True, {"op-registered"}),
    # Every built-in domain, not only the default one, refuses an operator it does not know
    # (issue 46: unknown operators of 'ai.onnx.ml' went unreported).
    (
        "'ai.onnx.ml' 3: an unknown operator",
        _model("NoSuchOp", [("", 18), ("ai.onnx.ml", 3)], domain="ai.onnx.ml"),
        True,
        {"op-registered"},
    ),
    (
        "'ai.onnx.ml' 3: a default-domain operator named there",
        _model("Relu", [("", 18), ("ai.onnx.ml", 3)], domain="ai.onnx.ml"),
        True,
        {"op-registered"},
    ),
    (
        "'ai.onnx.ml' 1: TreeEnsemble not yet there",
        _model("TreeEnsemble", [("", 18), ("ai.onnx.ml", 1)], domain="ai.onnx.ml"),
        True,
        {"op-registered"},
    ),
    (
        "'ai.onnx.training' 1: an unknown operator",
        _model("NoSuchOp", [("", 18), ("ai.onnx.training", 1)], domain="ai.onnx.training"),
        True,
        {"op-registered"},
    ),
    (
        "'ai.onnx.preview.training' 1: an unknown operator is skipped",
        _model("NoSuchOp", [("", 18), ("ai.onnx.preview.training", 1)], domain="ai.onnx.preview.training"),
        False,
        set(),
    ),
    (
        "a custom domain: an unknown operator is skipped",
        _model("NoSuchOp", [("", 18), ("com.example", 1)], domain="com.example"),
        False,
        set(),
    ),
]


@pytest.mark.parametrize(("name", "data", "refused", "rules"), CASES, ids=[case[0] for case in CASES])
def test_the_opset_a_node_is_checked_at(name: str, data: bytes, refused: bool, rules: set[str]) -> None:
    assert (onnx_refusal(data) is not None) == refused
    found = {v.rule for v in violations(decode(ModelProto, data))}
    assert found - {"opset-duplicate-domain"} == rules


def test_skipped_domains_counts_custom_domains_not_unknown_built_in_operators() -> None:
    # onnx skips a node of a domain it does not know, but refuses an unknown operator of
    # its own domains: only the first is "skipped".
    custom = onnx.ModelProto.FromString(_model("Relu", [("", 13), ("my.ops", 1)]))
    custom.graph.node[0].domain = "my.ops"
    unknown = _model("NoSuchOp", [("", 13)])
    assert onnx_refusal(custom.SerializeToString()) is None and onnx_refusal(unknown) is not None
    assert skipped_domains(decode(ModelProto, custom.SerializeToString())) == {"my.ops": 1}
    assert skipped_domains(decode(ModelProto, unknown)) == {}


def _function_model(body: list[Any]) -> bytes:
    """A model at opset 14 calling a function that imports opset 13 and holds ``body``."""
    helper, float_ = onnx.helper, onnx.TensorProto.FLOAT
    function = helper.make_function("my.fns", "Pick", ["c", "x"], ["y"], body, [helper.make_opsetid("", 13)])
    graph = helper.make_graph(
        [helper.make_node("Pick", ["c", "x"], ["y"], domain="my.fns")],
        "g",
        [
            helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", float_, [2]),
        ],
        [helper.make_tensor_value_info("y", float_, [2])],
    )
    opsets = [helper.make_opsetid("", 14), helper.make_opsetid("my.fns", 1)]
    return bytes(helper.make_model(graph, opset_imports=opsets, functions=[function]).SerializeToString())


def test_opset_compatibility_is_judged_for_a_function_body_s_own_nodes_only() -> None:
    # Relu is version 13 at opset 13 and 14 at opset 14: a function body's Relu is refused
    # (check_opset_compatibility), one inside an If branch of the body is not looked at
    # (onnx checks the body's nodes, not their subgraphs'); If is version 13 at both.
    helper, float_ = onnx.helper, onnx.TensorProto.FLOAT

    def branch(name: str) -> Any:
        relu = helper.make_node("Relu", ["x"], [name])
        return helper.make_graph([relu], name, [], [helper.make_tensor_value_info(name, float_, [2])])

    nested = _function_model(
        [helper.make_node("If", ["c"], ["y"], then_branch=branch("t"), else_branch=branch("e"))]
    )
    direct = _function_model([helper.make_node("Relu", ["x"], ["y"])])
    assert onnx_refusal(nested) is None and onnx_refusal(direct) is not None
    assert violations(decode(ModelProto, nested)) == []
    assert [v.rule for v in violations(decode(ModelProto, direct))] == ["function-opset-compatible"]
