"""run's inputs and its report (issue 35, items 10 and 15): run refuses a --dim no input
has, sets any axis with --shape, keeps onnxruntime's log down, reports latency, and does
not print an infinite relative difference where the reference holds zeros."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from tests.support import odd_models
from wirecodec import save
from wirecodec.cli import main
from wirecodec.cli.runner import compare
from wirecodec.helper import make_tensor_value_info
from wirecodec.numpy_helper import from_array

pytest.importorskip("onnxruntime")


@pytest.fixture
def model_path(tmp_path: pathlib.Path) -> pathlib.Path:
    model = odd_models.weights_model(width=4, layers=1)
    # An initializer no node reads: onnxruntime warns about it when the session is made.
    model.graph.initializer.append(from_array(np.zeros(3, np.float32), "unused"))
    path = tmp_path / "m.onnx"
    save(model, path)
    return path


def test_a_dim_no_input_has_is_refused(model_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(model_path), "--dim", "nosuch=3"]) == 2
    err = capsys.readouterr().err
    assert "no input has a dimension named 'nosuch'" in err and "N" in err
    assert main(["run", str(model_path), "--dim", "N=3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"]["x"]["shape"] == [3, 4]


def test_shape_sets_unnamed_axes(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = odd_models.weights_model(width=4, layers=1)
    del model.graph.input[:]
    model.graph.input.append(make_tensor_value_info("x", 1, [None, 4]))  # an unnamed "?" axis
    path = tmp_path / "q.onnx"
    save(model, path)
    assert main(["run", str(path), "--shape", "x=5,4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["inputs"]["x"]["shape"] == [5, 4] and report["outputs"]["y"]["shape"] == [5, 4]
    for bad, message in (("x=5,3", "axis 1 is fixed at 4"), ("x=5", "1 axes"), ("z=1,4", "no input 'z'")):
        assert main(["run", str(path), "--shape", bad]) == 2
        assert message in capsys.readouterr().err


def test_onnxruntime_warnings_stay_quiet_unless_asked(
    model_path: pathlib.Path, capfd: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(model_path)]) == 0
    assert "Removing initializer" not in capfd.readouterr().err
    assert main(["run", str(model_path), "--ort-log-level", "2"]) == 0
    assert "Removing initializer" in capfd.readouterr().err


def test_repeat_reports_latency(model_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(model_path), "--repeat", "4", "--json"]) == 0
    latency = json.loads(capsys.readouterr().out)["latency"]
    assert latency["runs"] == 4 and 0 < latency["min_ms"] <= latency["median_ms"] <= latency["max_ms"]
    assert main(["run", str(model_path), "--repeat", "3"]) == 0
    assert "latency over 3 runs: min " in capsys.readouterr().out
    assert main(["run", str(model_path), "--repeat", "-1"]) == 2


def test_a_zero_in_the_reference_gives_no_infinite_relative_difference() -> None:
    a = np.array([1e-9, 1.0, 2.0])
    b = np.array([0.0, 1.0, 2.0])
    (row,) = compare(["o"], [a], ["o"], [b], atol=1e-6, rtol=1e-5)
    assert row.same and row.max_abs == 1e-9 and row.max_rel is None
    (row,) = compare(["o"], [np.array([1e-9, 1.1])], ["o"], [np.array([0.0, 1.0])], atol=1e-6, rtol=0)
    assert not row.same and row.max_rel == pytest.approx(0.1)
