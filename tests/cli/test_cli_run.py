"""wirecodec run: inputs from files or declared types, every layout, --compare's table and exit code."""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.exports import Export
from wirecodec.cli import main
from wirecodec.cli.runner import Declared, compare, declared_inputs, feeds
from wirecodec.errors import TensorError
from wirecodec.helper import make_graph, make_model, make_node, make_opsetid, make_tensor_value_info

ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the models (test extra)")
FLOAT, INT64 = 1, 7


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, dict[str, Any]]:
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def _affine(scale: float, dims: list[Any]) -> ModelProto:
    """y = x * scale + shift (shift a 2 KiB initializer, so layouts move it), ids -> Identity."""
    shift = wirecodec.from_array(np.arange(512, dtype=np.float32) / 512, "shift")
    scale_t = wirecodec.from_array(np.array(scale, np.float32), "scale")
    graph = make_graph(
        [
            make_node("Mul", ["x", "scale"], ["scaled"]),
            make_node("Add", ["scaled", "shift"], ["y"]),
            make_node("Identity", ["ids"], ["same_ids"]),
        ],
        "affine",
        [make_tensor_value_info("x", FLOAT, [*dims, 512]), make_tensor_value_info("ids", INT64, dims)],
        [make_tensor_value_info("y", FLOAT, [*dims, 512]), make_tensor_value_info("same_ids", INT64, dims)],
        initializer=[scale_t, shift],
    )
    return make_model(graph, opset_imports=[make_opsetid("", 17)], ir_version=8)


def test_random_inputs_follow_declared_types_and_dims(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "affine.onnx"
    wirecodec.save(_affine(2.0, ["batch", None]), path)
    code, report = _json(capsys, ["run", str(path), "--dim", "batch=3"])
    assert code == 0
    assert report["inputs"]["x"]["shape"] == [3, 1, 512] and report["inputs"]["x"]["source"] == "random"
    assert report["inputs"]["ids"]["dtype"] == "int64"
    assert report["outputs"]["y"]["shape"] == [3, 1, 512]
    ids = report["outputs"]["same_ids"]
    assert 0 <= ids["min"] <= ids["max"] <= 9
    # the same seed gives the same values, another seed others
    assert _json(capsys, ["run", str(path), "--dim", "batch=3"])[1] == report
    assert (
        _json(capsys, ["run", str(path), "--seed", "1", "--dim", "batch=3"])[1]["outputs"]
        != report["outputs"]
    )
    assert _json(capsys, ["run", str(path)])[1]["outputs"]["y"]["shape"] == [1, 1, 512]


def test_inputs_from_npy_files_give_onnxruntimes_answer(
    pytorch_exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for export in pytorch_exports:
        path = tmp_path / f"{export.name}.onnx"
        path.write_bytes(export.data)
        session = ort.InferenceSession(export.data, providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        argv = ["run", str(path)]
        for name, value in zip(names, export.inputs, strict=True):
            np.save(tmp_path / f"{export.name}-{len(argv)}.npy", value)
            argv += ["--input", f"{name}={tmp_path / f'{export.name}-{len(argv)}.npy'}"]
        code, report = _json(capsys, argv)
        assert code == 0, export.name
        expected = session.run(None, dict(zip(names, export.inputs, strict=True)))
        for output, value in zip(session.get_outputs(), expected, strict=True):
            facts = report["outputs"][output.name]
            assert facts["shape"] == list(value.shape), export.name
            assert facts["mean"] == pytest.approx(float(value.astype(np.float64).mean())), export.name


@pytest.mark.parametrize("layout", ["single", "external", "zip"])
def test_every_layout_compares_equal_to_the_single_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], layout: str
) -> None:
    single = tmp_path / "single.onnx"
    wirecodec.save(_affine(2.0, [2]), single)
    other = tmp_path / ("other.onnxz" if layout == "zip" else "other.onnx")
    wirecodec.convert(single, other, to=layout)  # type: ignore[arg-type]
    if layout == "external":
        assert (tmp_path / "other.onnx.data").exists()
    code, report = _json(capsys, ["run", str(other), "--compare", str(single)])
    assert code == 0
    assert report["compare"]["same"] and {row["max_abs"] for row in report["compare"]["outputs"]} == {0.0}


def test_a_difference_is_shown_and_exits_1(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    wirecodec.save(_affine(2.0, [2]), tmp_path / "a.onnx")
    wirecodec.save(_affine(2.001, [2]), tmp_path / "b.onnx")
    assert main(["run", str(tmp_path / "a.onnx"), "--compare", str(tmp_path / "b.onnx")]) == 1
    out = capsys.readouterr().out
    assert "y " in out and "DIFFERENT" in out and "1 of 2 outputs differ" in out
    code, report = _json(capsys, ["run", str(tmp_path / "a.onnx"), "--compare", str(tmp_path / "b.onnx")])
    assert code == 1
    rows = {row["name"]: row for row in report["compare"]["outputs"]}
    assert not rows["y"]["same"] and rows["same_ids"]["same"]
    assert 0 < rows["y"]["max_abs"] < 0.01 and rows["y"]["max_rel"] > 1e-4
    args = ["--atol", "0.01", "--rtol", "0.001"]
    assert main(["run", str(tmp_path / "a.onnx"), "--compare", str(tmp_path / "b.onnx"), *args]) == 0


def test_usage_errors_and_onnxruntime_errors(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "affine.onnx"
    wirecodec.save(_affine(2.0, [2]), path)
    np.save(tmp_path / "wrong.npy", np.zeros((5, 5), np.float32))
    cases = [
        (["--input", f"nope={tmp_path / 'wrong.npy'}"], 2, "has no input 'nope'"),
        (["--dim", "batch=x"], 2, "expected a non-negative integer"),
        (["--dim", "batch"], 2, "expected NAME=VALUE"),
        (["--input", f"x={tmp_path / 'missing.npy'}"], 1, "missing.npy"),
        (["--input", f"x={tmp_path / 'wrong.npy'}"], 1, "onnxruntime:"),
    ]
    for extra, code, message in cases:
        assert main(["run", str(path), *extra]) == code, extra
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, (extra, err)


def test_without_onnxruntime_one_line_names_the_extra(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "affine.onnx"
    wirecodec.save(_affine(2.0, [2]), path)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime now fails
    assert main(["run", str(path), "--engine", "onnxruntime"]) == 1  # without --engine: the reference one
    err = capsys.readouterr().err
    assert err == "wirecodec run: onnxruntime is not installed: pip install wirecodec[ort]\n"


def test_compare_rules() -> None:
    nan, inf = float("nan"), float("inf")
    a = np.array([1.0, nan, inf, 0.0], np.float32)
    rows = compare(["o"], [a], ["o"], [a.copy()], atol=0, rtol=0)
    assert rows[0].same and rows[0].max_abs == 0 and rows[0].max_rel == 0
    b = np.array([1.0, 2.0, inf, 0.5], np.float32)
    (row,) = compare(["o"], [a], ["o"], [b], atol=1, rtol=0)
    assert not row.same and row.max_abs == inf  # NaN against a number
    (row,) = compare(["o"], [np.zeros(2)], ["o"], [np.array([0.0, 1e-7])], atol=1e-6, rtol=0)
    assert row.same and row.max_rel == 1.0
    (row,) = compare(["o"], [np.zeros((2, 3))], ["o"], [np.zeros((3, 2))], atol=1, rtol=1)
    assert not row.same and row.note == "shapes differ"
    strings = np.array(["a", "b"], dtype=object)
    assert compare(["s"], [strings], ["s"], [strings.copy()], atol=0, rtol=0)[0].same
    rows = compare(["x", "y"], [np.ones(1), np.ones(1)], ["x", "z"], [np.ones(1), np.ones(1)], atol=0, rtol=0)
    assert [(r.name, r.same, r.note) for r in rows] == [
        ("x", True, ""),
        ("y", False, "only in the first model"),
        ("z", False, "only in the second model"),
    ]
    # no shared name: matched by position
    assert compare(["p"], [np.ones(2)], ["q"], [np.ones(2)], atol=0, rtol=0)[0].same


def test_feeds_refuse_what_they_cannot_make() -> None:
    model = _affine(1.0, ["batch"])
    specs = declared_inputs(model)
    assert [(s.name, s.describe()) for s in specs] == [("x", "FLOAT[batch,512]"), ("ids", "INT64[batch]")]
    values = feeds(specs, {}, {"batch": 4}, 0)
    assert values["x"].shape == (4, 512) and values["x"].dtype == np.float32
    assert values["ids"].dtype == np.int64
    with pytest.raises(TensorError, match="rank is not declared"):
        feeds([Declared("r", FLOAT, None, "tensor")], {}, {}, 0)
    with pytest.raises(TensorError, match="sequence_type value"):
        feeds([Declared("s", 0, None, "sequence_type")], {}, {}, 0)
    strings = feeds([Declared("t", 8, (3,), "tensor")], {}, {}, 0)["t"]
    assert strings.dtype == object and all(isinstance(s, str) and len(s) == 1 for s in strings)


def test_two_exporters_of_one_network_compare_by_position(
    pytorch_exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """TorchScript and dynamo name the inputs and outputs differently: matched by position."""
    by_name = {export.name: export for export in pytorch_exports}
    for network in ("mlp", "cnn", "embedding"):
        a, b = tmp_path / f"{network}-a.onnx", tmp_path / f"{network}-b.onnx"
        a.write_bytes(by_name[f"{network}-torchscript"].data)
        b.write_bytes(by_name[f"{network}-dynamo"].data)
        code, report = _json(capsys, ["run", str(a), "--compare", str(b), "--atol", "1e-5", "--rtol", "1e-4"])
        assert code == 0, (network, report["compare"])
        (row,) = report["compare"]["outputs"]
        assert row["max_abs"] < 1e-5, network


def test_a_model_on_standard_input_runs(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    path = tmp_path / "affine.onnx"
    wirecodec.save(_affine(2.0, [2]), path)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes())))
    code, report = _json(capsys, ["run", "-", "--compare", str(path)])
    assert code == 0 and report["compare"]["same"]
