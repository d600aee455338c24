"""``check --full`` runs strict shape inference with type checks, as onnx's ``full_check`` does:
the verdicts equal ``onnx.checker.check_model(m, full_check=True)``'s."""

from __future__ import annotations

import pathlib

import pytest

import wirecodec
from schema_dsl.onnx import TensorProto
from wirecodec import helper
from wirecodec.cli import main

onnx = pytest.importorskip("onnx")

FLOAT = TensorProto.FLOAT


def _add(shape_a: list[int], shape_b: list[int], out: list[int]) -> wirecodec.ModelProto:
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["c"], name="add")],
        "g",
        [
            helper.make_tensor_value_info("a", FLOAT, shape_a),
            helper.make_tensor_value_info("b", FLOAT, shape_b),
        ],
        [helper.make_tensor_value_info("c", FLOAT, out)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.parametrize(
    ("shapes", "valid"),
    [
        (([2, 3], [2, 3], [2, 3]), True),
        (([2, 3], [3], [2, 3]), True),
        (([2, 3], [4, 5], [2, 3]), False),  # shapes that cannot broadcast
        (([2, 3], [2, 3], [7, 7]), False),  # an output declared unlike what the node makes
    ],
)
def test_check_full_agrees_with_onnx_full_check(
    shapes: tuple[list[int], list[int], list[int]],
    valid: bool,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = _add(*shapes)
    path = tmp_path / "m.onnx"
    wirecodec.save(model, path)
    try:
        onnx.checker.check_model(onnx.load(str(path)), full_check=True)
        theirs = True
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        theirs = False
    assert theirs == valid
    assert main(["check", str(path)]) == 0  # the rules without inference accept it either way
    capsys.readouterr()
    assert main(["check", "--full", str(path)]) == (0 if valid else 1)
    out = capsys.readouterr().out
    assert ("[shape-inference]" in out) == (not valid)
