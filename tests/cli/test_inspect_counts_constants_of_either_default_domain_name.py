"""inspect counts a Constant's value as a weight of the operator reading it whether the
node names the default domain ``""`` or ``"ai.onnx"`` (the same domain, as onnx reads it)."""

from __future__ import annotations

import json
import pathlib

import pytest

from wirecodec import helper, save
from wirecodec.cli import main


@pytest.mark.quick
@pytest.mark.parametrize("domain", ["", "ai.onnx"])
def test_a_constant_counts_for_its_reader_in_either_spelling_of_the_default_domain(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], domain: str
) -> None:
    value = helper.make_tensor("w", 1, [4, 3], [0.5] * 12)
    constant = helper.make_node("Constant", [], ["w"], domain=domain, value=value)
    matmul = helper.make_node("MatMul", ["x", "w"], ["y"])
    graph = helper.make_graph(
        [constant, matmul],
        "g",
        [helper.make_tensor_value_info("x", 1, [2, 4])],
        [helper.make_tensor_value_info("y", 1, [2, 3])],
    )
    path = tmp_path / "m.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    assert main(["inspect", "--json", str(path)]) == 0
    made = json.loads(capsys.readouterr().out)["make_up"]
    assert made["parameters_by_operator"] == {"MatMul": 12}
    assert made["precision"]["weights"] == "FLOAT"
