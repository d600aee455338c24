"""Issue 35, items 9, 11 (value_info left stale) and 13: edit --toposort and
--clear-value-info, and extract's short answer on a model that fails check."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from tests.support import odd_models
from wirecodec import load, save
from wirecodec.checker import violations
from wirecodec.cli import main
from wirecodec.helper import make_node, make_tensor_value_info


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_extract_on_an_unsorted_model_is_short_and_hints(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "u.onnx"
    save(odd_models.unsorted_model(), path)
    found = violations(path)
    assert len(found) == 4 and {v.rule for v in found} == {"topological-order"}
    code, _, err = _run(capsys, "extract", str(path), str(tmp_path / "e.onnx"), "--outputs", "y")
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 6, err  # summary, 3 violations, how many more, the hint
    assert "fails the IR check (4 violations)" in lines[0]
    assert "--toposort" in lines[-1] and "--no-check" in lines[-1]


def test_toposort_makes_the_model_valid_and_runs_the_same(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ort = pytest.importorskip("onnxruntime")
    path, out = tmp_path / "u.onnx", tmp_path / "sorted.onnx"
    save(odd_models.unsorted_model(), path)
    code, printed, _ = _run(capsys, "edit", str(path), "-o", str(out), "--toposort")
    assert code == 0 and "4 nodes moved into topological order" in printed
    assert violations(out) == []
    code, _, err = _run(capsys, "extract", str(out), str(tmp_path / "e.onnx"), "--outputs", "y")
    assert code == 0, err
    feed = {"x_in": np.random.default_rng(0).standard_normal((2, 8))}
    results = [
        ort.InferenceSession(str(p), providers=["CPUExecutionProvider"]).run(None, feed)[0]
        for p in (path, out)
    ]
    np.testing.assert_array_equal(results[0], results[1])


def test_toposort_leaves_a_sorted_model_as_it_was(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, out = tmp_path / "m.onnx", tmp_path / "same.onnx"
    save(odd_models.if_wrapped_model(branch_nodes=5), path)
    code, printed, _ = _run(capsys, "edit", str(path), "-o", str(out), "--toposort")
    assert code == 0 and "already in topological order" in printed
    assert out.read_bytes() == path.read_bytes()


def test_toposort_follows_what_a_body_reads_and_sorts_bodies(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = odd_models.if_wrapped_model(branch_nodes=3)
    graph = model.graph
    # The branches read "x2", made by a node listed after the If: an implicit input.
    for i in range(2):
        branch = graph.node[0].attribute[i].g
        branch.node[0].input[0] = "x2"
        nodes = [branch.node[j] for j in range(len(branch.node))]
        del branch.node[:]
        branch.node.extend(reversed(nodes))
    graph.node.append(make_node("Neg", ["x"], ["x2"], name="make_x2"))
    path, out = tmp_path / "b.onnx", tmp_path / "sorted.onnx"
    save(model, path)
    assert violations(path)
    assert _run(capsys, "edit", str(path), "-o", str(out), "--toposort")[0] == 0
    assert violations(out) == []
    assert load(out).graph.node[0].name == "make_x2"


def test_a_cycle_is_refused(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = odd_models.weights_model(width=4, layers=2)
    model.graph.node[0].input[0] = "y"  # matmul0 reads the last Add's output
    path = tmp_path / "c.onnx"
    save(model, path)
    code, _, err = _run(capsys, "edit", str(path), "-o", str(tmp_path / "o.onnx"), "--toposort")
    assert code == 2 and "cycle" in err and not (tmp_path / "o.onnx").exists()


def test_set_dim_value_says_value_info_is_stale_and_clear_removes_it(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = odd_models.weights_model(width=4, layers=3)
    model.graph.value_info.extend(make_tensor_value_info(f"h{i}", 1, ["N", 4]) for i in range(2))
    path, out = tmp_path / "m.onnx", tmp_path / "o.onnx"
    save(model, path)
    code, printed, _ = _run(capsys, "edit", str(path), "-o", str(out), "--set-dim-value", "x:1=4")
    assert (
        code == 0
        and "2 value_info entries still record shapes" in printed
        and "--clear-value-info" in printed
    )
    code, printed, _ = _run(
        capsys, "edit", str(path), "-o", str(out), "--set-dim-value", "x:1=4", "--clear-value-info"
    )
    assert code == 0 and "2 value_info entries removed" in printed and "still record" not in printed
    assert len(load(out).graph.value_info) == 0
