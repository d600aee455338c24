"""Issue 43, item 4: ``wirecodec run --engine {onnxruntime,reference}`` and
``--compare-engine``: the reference evaluator's outputs equal onnxruntime's on the bundled
example and on onnx backend-test models; without onnxruntime the reference evaluator runs,
with a one-line notice on standard error (never in --json output)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from tests.support.reference import CorpusItem, backend_corpus
from wirecodec.cli import main
from wirecodec.cli.common import EXAMPLE

ROOT = pathlib.Path(__file__).resolve().parents[2]

CASES = (
    "test_relu",
    "test_conv_with_strides_padding",
    "test_softmax_axis_1",
    "test_matmul_3d",
    "test_gemm_default_single_elem_vector_bias",
    "test_reduce_mean_default_axes_keepdims_example",
    "test_maxpool_2d_pads",
)


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


@pytest.mark.quick
def test_reference_engine_runs_the_example_like_onnxruntime(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime", reason="onnxruntime is the engine compared against")
    code, report = _json(
        capsys, ["run", str(EXAMPLE), "--engine", "reference", "--compare-engine", "onnxruntime"]
    )
    assert code == 0, report
    assert report["engine"] == "reference"
    assert report["compare"]["engine"] == "onnxruntime" and report["compare"]["same"] is True
    assert [row["name"] for row in report["compare"]["outputs"]] == ["y"]
    assert report["compare"]["outputs"][0]["max_abs"] <= 1e-6


def test_default_engine_is_onnxruntime_when_installed(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime", reason="the default depends on onnxruntime")
    code, report = _json(capsys, ["run", str(EXAMPLE)])
    assert code == 0 and report["engine"] == "onnxruntime"
    assert capsys.readouterr().err == ""


def test_compare_engine_text_table_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime", reason="onnxruntime is the engine compared against")
    assert main(["run", str(EXAMPLE), "--compare-engine", "reference"]) == 0
    out = capsys.readouterr().out
    assert "compared with engine reference (onnxruntime above):" in out
    assert "0 of 1 outputs differ" in out
    assert main(["run", str(EXAMPLE), "--compare", str(EXAMPLE), "--compare-engine", "reference"]) == 2
    assert "do not go together" in capsys.readouterr().err


def test_compare_engine_exit_code_is_one_when_engines_differ(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reference evaluator that is off by one: the table says DIFFERENT and the code is 1."""
    pytest.importorskip("onnxruntime", reason="onnxruntime is the engine compared against")
    from wirecodec.reference import ReferenceEvaluator

    honest = ReferenceEvaluator.run

    def off_by_one(self: Any, *args: Any, **kwargs: Any) -> Any:
        return [value + 1 for value in honest(self, *args, **kwargs)]

    monkeypatch.setattr(ReferenceEvaluator, "run", off_by_one)
    code, report = _json(capsys, ["run", str(EXAMPLE), "--compare-engine", "reference"])
    assert code == 1 and report["compare"]["same"] is False


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> dict[str, CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    wanted = tuple(f"node/{name}/" for name in CASES)
    return {item.name: item for item in backend_corpus(cache) if item.name.startswith(wanted)}


@pytest.mark.parametrize("case", CASES)
def test_reference_engine_equals_onnxruntime_on_backend_models(
    case: str, corpus: dict[str, CorpusItem], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("onnxruntime", reason="onnxruntime is the engine compared against")
    onnx = pytest.importorskip("onnx", reason="onnx reads the backend test data")
    from onnx import numpy_helper

    base = f"node/{case}"
    model_path = tmp_path / "model.onnx"
    model_path.write_bytes(corpus[f"{base}/model.onnx"].data)
    model = onnx.load_model_from_string(corpus[f"{base}/model.onnx"].data)
    argv = [
        "run",
        str(model_path),
        "--engine",
        "reference",
        "--compare-engine",
        "onnxruntime",
        "--atol",
        "1e-5",
    ]
    for j, info in enumerate(model.graph.input):
        tensor = onnx.TensorProto.FromString(corpus[f"{base}/test_data_set_0/input_{j}.pb"].data)
        path = tmp_path / f"input_{j}.npy"
        np.save(path, numpy_helper.to_array(tensor))
        argv += ["--input", f"{info.name}={path}"]
    code, report = _json(capsys, argv)
    assert code == 0, report["compare"]
    assert report["compare"]["same"] is True and report["compare"]["outputs"]
    expected = numpy_helper.to_array(
        onnx.TensorProto.FromString(corpus[f"{base}/test_data_set_0/output_0.pb"].data)
    )
    assert report["outputs"][model.graph.output[0].name]["shape"] == list(expected.shape)


_HIDDEN = (
    "import sys; sys.modules['onnxruntime'] = None; "  # import onnxruntime now fails
    "from wirecodec.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _without_onnxruntime(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", _HIDDEN, *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_without_onnxruntime_the_reference_engine_runs_with_a_notice() -> None:
    done = _without_onnxruntime("run", str(EXAMPLE), "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)  # the notice is not in the JSON
    assert report["engine"] == "reference" and report["outputs"]["y"]["shape"] == [1, 3]
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "onnxruntime is not installed" in lines[0] and "reference" in lines[0]
    asked = _without_onnxruntime("run", str(EXAMPLE), "--engine", "reference")
    assert asked.returncode == 0 and asked.stderr == ""  # asked for: no notice
    refused = _without_onnxruntime("run", str(EXAMPLE), "--engine", "onnxruntime")
    assert refused.returncode == 1 and "pip install wirecodec[ort]" in refused.stderr
