"""Issue 43: ``wirecodec run`` on a model of ai.onnx.ml operators, onnxruntime's own
``logreg_iris.onnx`` (``logreg-iris`` of bench/models_people_have.py: LinearClassifier,
Normalizer, ZipMap), gives onnxruntime's outputs with the reference evaluator."""

from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import Any

import pytest

from wirecodec.cli import main


def _logreg_iris() -> pathlib.Path:
    pytest.importorskip("onnxruntime", reason="the model ships in onnxruntime's package and is its oracle")
    spec = importlib.util.find_spec("onnxruntime")
    assert spec is not None and spec.submodule_search_locations
    path = pathlib.Path(next(iter(spec.submodule_search_locations))) / "datasets" / "logreg_iris.onnx"
    if not path.exists():
        pytest.skip("this onnxruntime does not ship datasets/logreg_iris.onnx")
    return path


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.quick
def test_logreg_iris_runs_on_the_reference_engine_as_on_onnxruntime(
    capsys: pytest.CaptureFixture[str],
) -> None:
    model = _logreg_iris()
    code, report = _json(
        capsys, ["run", str(model), "--engine", "reference", "--compare-engine", "onnxruntime"]
    )
    assert code == 0, report
    assert report["engine"] == "reference"
    rows = {row["name"]: row for row in report["compare"]["outputs"]}
    assert set(rows) == {"label", "probabilities"}
    assert rows["label"]["same"] and rows["label"]["max_abs"] == 0
    assert rows["probabilities"]["same"] and rows["probabilities"]["max_abs"] <= 1e-6
    assert report["compare"]["same"] is True


def test_logreg_iris_given_inputs_gives_onnxruntimes_labels_and_probabilities(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np
    import onnxruntime as ort

    model = _logreg_iris()
    x = np.random.default_rng(3).normal(size=(3, 2)).astype(np.float32) * 3
    np.save(tmp_path / "x.npy", x)
    want = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"]).run(None, {"float_input": x})
    from wirecodec.reference import ReferenceEvaluator

    got = ReferenceEvaluator(str(model)).run(None, {"float_input": x})
    assert got[0].tolist() == want[0].tolist()
    assert len(set(want[0].tolist())) > 1  # the rows are not all one class
    for g, w in zip(got[1], want[1], strict=True):
        assert sorted(g) == sorted(w) == [0, 1, 2]
        assert [g[k] for k in w] == pytest.approx([w[k] for k in w], abs=1e-6)
    code = main(["run", str(model), "--engine", "reference", "--input", f"float_input={tmp_path / 'x.npy'}"])
    assert code == 0
    out = capsys.readouterr().out
    assert "label" in out and "probabilities" in out
