"""Which opset a node is checked at, at the edges onnx's checker defines: a domain imported
twice (the last import counts), a model without imports (IR < 3: opset 1 implied; from IR 3
the import is required, and nothing is implied), and the default domain imported as
'ai.onnx'. Verdicts against ``onnx.checker.check_model`` on small built models; only the
schema rules are compared where the IR rules say more (opset-duplicate-domain is ours)."""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.differential.test_checker_schemas import onnx_refusal
from tests.reference import require_onnx
from wirecodec import decode
from wirecodec.checker import schemas, violations

onnx = require_onnx()
_SCHEMA_RULES = {rule.id for rule in schemas.RULES}


def _model(op_type: str, opsets: list[tuple[str, int]], ir: int = 10, **attributes: Any) -> bytes:
    helper, float_ = onnx.helper, onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        [helper.make_node(op_type, ["x"], ["y"], **attributes)],
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
    (
        "'ai.onnx' 13 imported, a '' node checked",
        _model("Relu", [("ai.onnx", 13)], bogus=1),
        True,
        {"attribute-declared"},
    ),
    ("'ai.onnx' 13 imported, Gelu unknown there", _model("Gelu", [("ai.onnx", 13)]), True, {"op-registered"}),
]


@pytest.mark.parametrize(("name", "data", "refused", "rules"), CASES, ids=[case[0] for case in CASES])
def test_the_opset_a_node_is_checked_at(name: str, data: bytes, refused: bool, rules: set[str]) -> None:
    assert (onnx_refusal(data) is not None) == refused
    found = {v.rule for v in violations(decode(ModelProto, data))}
    assert found - {"opset-duplicate-domain"} == rules
