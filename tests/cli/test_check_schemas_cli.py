"""``wirecodec check``: operator schemas by default, ``--ir-only`` for the IR rules alone, skips said."""

from __future__ import annotations

import json
import pathlib

import pytest

from tests.support.reference import require_onnx
from wirecodec.cli import EXAMPLE, main


def _model(folder: pathlib.Path, *, alpha: bool, custom: bool) -> pathlib.Path:
    """A Relu given an attribute it does not have (when ``alpha``), and a node of a custom domain."""
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    nodes = [helper.make_node("Relu", ["x"], ["y"], **({"alpha": 0.5} if alpha else {}))]
    imports = [helper.make_opsetid("", 21)]
    if custom:
        nodes.append(helper.make_node("FusedThing", ["y"], ["z"], domain="com.example"))
        nodes.append(helper.make_node("OtherThing", ["z"], ["w"], domain="com.example"))
        imports.append(helper.make_opsetid("com.example", 1))
    last = nodes[-1].output[0]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", tp.FLOAT, [2])],
        [helper.make_tensor_value_info(last, tp.FLOAT, [2])],
    )
    path = folder / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=imports), path)
    return path


def test_schema_violations_are_found_by_default(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _model(tmp_path, alpha=True, custom=False)
    assert main(["check", str(path)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "graph.node[0].attribute[0].name: Relu (ai.onnx version 14) has no attribute 'alpha' "
        "[attribute-declared]",
        f"{path}: 1 violation of the IR rules and operator schemas "
        "(every node checked against its operator schema)",
    ]


def test_ir_only_keeps_the_ir_rules_alone(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _model(tmp_path, alpha=True, custom=False)
    assert main(["check", str(path), "--ir-only"]) == 0
    assert capsys.readouterr().out == (
        f"{path}: valid under the IR rules (--ir-only: 1 operator type not checked against schemas)\n"
    )
    assert main(["check", str(path), "--ir-only", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["valid"], result["schemas_checked"], result["violations"]) == (True, False, [])


def test_custom_domains_are_skipped_and_said(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _model(tmp_path, alpha=False, custom=True)
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out == (
        f"{path}: valid under the IR rules and operator schemas "
        "(no schemas for domains com.example (2 nodes): skipped as onnx skips them)\n"
    )
    assert main(["check", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["valid"], result["schemas_checked"], result["skipped_domains"]) == (
        True,
        True,
        {"com.example": 2},
    )


@pytest.mark.parametrize("flags", [[], ["--ir-only"], ["--json"], ["--ir-only", "--json"]])
def test_the_bundled_example_is_valid_either_way(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", str(EXAMPLE), *flags]) == 0
    assert "violation" not in capsys.readouterr().out.replace('"violations": []', "")
