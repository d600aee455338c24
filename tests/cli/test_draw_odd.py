"""Issue 35, items 3-4: ``draw`` keeps the main graph of a model whose body sits in an If,
finds ``--around`` names at any depth, and keeps edges of nodes out of topological order."""

from __future__ import annotations

import pathlib
import re

import pytest

from tests.support import odd_models
from wirecodec import save
from wirecodec.cli import main
from wirecodec.graphs.draw import to_dot

_OP = re.compile(r"^\s*(n\d+) \[label=<<b>([^<]+)</b>(?:<br/><font point-size='9'>([^<]*)</font>)?")
_EDGE = re.compile(r"^\s*(\w+) -> (\w+)")


def _ops(text: str) -> dict[str, tuple[str, str]]:
    """DOT id -> (op_type, node name) of every operator box."""
    found = {}
    for line in text.splitlines():
        match = _OP.match(line)
        if match:
            found[match.group(1)] = (match.group(2), match.group(3) or "")
    return found


def _id(text: str, name: str) -> str:
    return next(ident for ident, (_, node) in _ops(text).items() if node == name)


def _edges(text: str) -> set[tuple[str, str]]:
    return {(m.group(1), m.group(2)) for m in map(_EDGE.match, text.splitlines()) if m}


def _dot(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], model: object, *options: str) -> str:
    path = tmp_path / "m.onnx"
    save(model, path)  # type: ignore[arg-type]
    assert main(["draw", str(path), *options]) == 0
    return capsys.readouterr().out


def test_the_main_graph_of_an_if_wrapped_model_is_drawn(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = odd_models.if_wrapped_model(branch_nodes=300)  # 602 nodes, past the 500 default
    text = _dot(tmp_path, capsys, model)
    names = {node for _, node in _ops(text).values()}
    assert {"If_0", "Identity_0"} <= names
    assert 'label="y"' in text and 'label="x\\nfloat[N]"' in text and 'label="cond\\nbool[]"' in text
    assert "nodes, collapsed" in text and "bodies collapsed: If_0." in text
    assert len(_ops(text)) <= 500
    everything = _dot(tmp_path, capsys, model, "--expand-bodies")
    assert len(_ops(everything)) == 602 and "left out" not in everything


def test_a_body_that_fits_is_expanded(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = _dot(tmp_path, capsys, odd_models.if_wrapped_model(branch_nodes=10))
    assert len(_ops(text)) == 22 and "collapsed" not in text


def test_around_finds_the_if_and_nodes_inside_its_branches(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = odd_models.if_wrapped_model(branch_nodes=300)
    text = _dot(tmp_path, capsys, model, "--around", "If_0")
    assert "If_0" in {node for _, node in _ops(text).values()}
    text = _dot(tmp_path, capsys, model, "--around", "else/Neg_150", "--depth", "1")
    drawn = sorted(node for _, node in _ops(text).values())
    assert drawn == ["else/Neg_149", "else/Neg_150", "else/Neg_151"]
    assert "inside If_0.else_branch" in text
    path = tmp_path / "m.onnx"
    assert main(["draw", str(path), "--around", "nowhere"]) == 2


def test_edges_survive_nodes_out_of_topological_order(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = odd_models.unsorted_model()
    text = _dot(tmp_path, capsys, model, "--around", "matmul0", "--depth", "2")
    assert (_id(text, "graph_input_cast0"), _id(text, "matmul0")) in _edges(text)
    whole = to_dot(model)
    assert not re.search(r"^\s*x\d+ \[", whole, re.M), "a drawn producer must not become a stub"
    assert (_id(whole, "matmul0"), _id(whole, "add0")) in _edges(whole)
