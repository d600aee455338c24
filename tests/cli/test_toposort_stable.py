"""edit --toposort is stable: nodes that could run in any order keep the order they have
(a sorted model is left byte for byte; an unsorted one moves only what must move)."""

from __future__ import annotations

import pathlib

import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import helper, load, save
from wirecodec.cli import main

F = TensorProto.FLOAT


def _model(order: list[tuple[str, str, str]]) -> object:
    """Nodes (name, input, output) in the given order: five independent Relu of x, then
    a Sum of all five."""
    nodes = [helper.make_node("Relu", [source], [target], name=name) for name, source, target in order]
    nodes.append(helper.make_node("Sum", [t for _, _, t in order], ["y"], name="sum"))
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", F, [2])], [helper.make_tensor_value_info("y", F, [2])]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


_FIVE = [(f"r{i}", "x", f"v{i}") for i in range(5)]


def test_independent_nodes_already_in_order_stay_as_they_are(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out = tmp_path / "m.onnx", tmp_path / "same.onnx"
    save(_model(_FIVE), path)  # type: ignore[arg-type]
    assert main(["edit", str(path), "-o", str(out), "--toposort"]) == 0
    assert "already in topological order" in capsys.readouterr().out
    assert out.read_bytes() == path.read_bytes()


def test_only_what_must_move_moves(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # r3 reads v1 (made by r1, placed after it): r1 moves before r3; the rest keep their order.
    order = [("r0", "x", "v0"), ("r3", "v1", "v3"), ("r1", "x", "v1"), ("r2", "x", "v2"), ("r4", "x", "v4")]
    path, out = tmp_path / "m.onnx", tmp_path / "sorted.onnx"
    save(_model(order), path)  # type: ignore[arg-type]
    assert main(["edit", str(path), "-o", str(out), "--toposort"]) == 0
    assert [n.name for n in load(out).graph.node] == ["r0", "r1", "r3", "r2", "r4", "sum"]
