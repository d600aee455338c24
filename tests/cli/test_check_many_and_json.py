"""Issue 45, item 4: ``check`` of several models or a directory (each checked, one summary
line, rc 1 if any fails) and ``--json`` on extract, merge and draw, as docs/cli.md shows."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest

from tests.support import odd_models
from wirecodec import save
from wirecodec.cli import EXAMPLE, main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _folder(tmp_path: pathlib.Path) -> pathlib.Path:
    folder = tmp_path / "models"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(EXAMPLE, folder / "good.onnx")
    save(odd_models.unsorted_model(), folder / "sub" / "unsorted.onnx")
    (folder / "page.onnx").write_text("<!DOCTYPE html><html></html>")
    (folder / "notes.txt").write_text("not looked at")
    return folder


@pytest.mark.quick
def test_check_of_several_models_ends_with_one_summary(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _folder(tmp_path)
    code, out, _ = _run(capsys, "check", str(EXAMPLE), str(EXAMPLE))
    assert code == 0
    assert out.splitlines()[-1] == "2 models checked: 2 valid, 0 invalid"
    code, out, _ = _run(capsys, "check", str(EXAMPLE), str(folder / "sub" / "unsorted.onnx"))
    assert code == 1
    assert out.splitlines()[-1] == "2 models checked: 1 valid, 1 invalid"


def test_check_of_a_directory(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    code, out, err = _run(capsys, "check", str(folder))
    assert code == 1
    assert out.splitlines()[-1] == "3 models checked: 1 valid, 1 invalid, 1 unreadable"
    assert f"{folder / 'good.onnx'}: valid" in out
    assert (
        err == f"wirecodec check: {folder / 'page.onnx'}: not an ONNX model: this looks like an HTML page\n"
    )


def test_check_of_several_as_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _folder(tmp_path)
    code, out, _ = _run(capsys, "check", str(folder), "--json")
    assert code == 1
    report = json.loads(out)
    assert {k: report[k] for k in ("version", "checked", "valid", "invalid", "unreadable")} == {
        "version": 1,
        "checked": 3,
        "valid": 1,
        "invalid": 1,
        "unreadable": 1,
    }
    by_model = {pathlib.Path(m["model"]).name: m for m in report["models"]}
    assert by_model["good.onnx"]["valid"] is True
    assert by_model["unsorted.onnx"]["valid"] is False and by_model["unsorted.onnx"]["violations"]
    assert "HTML" in by_model["page.onnx"]["error"]


def test_one_model_reports_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", str(EXAMPLE), "--json")
    assert code == 0
    assert set(json.loads(out)) == {
        "version",
        "model",
        "valid",
        "schemas_checked",
        "skipped_domains",
        "violations",
    }


def test_extract_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "cut.onnx"
    code, out, _ = _run(capsys, "extract", str(EXAMPLE), str(out_path), "--outputs", "a", "--json")
    assert code == 0
    assert json.loads(out) == {
        "version": 1,
        "model": str(EXAMPLE),
        "out": str(out_path),
        "nodes": 2,
        "source_nodes": 3,
        "initializers": 2,
        "inputs": ["x"],
        "outputs": ["a"],
    }


def test_merge_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_path = tmp_path / "two.onnx"
    args = ["merge", str(EXAMPLE), str(EXAMPLE), str(out_path), "--io-map", "y:x", "--prefix2", "b/"]
    code, out, _ = _run(capsys, *args, "--json")
    assert code == 0
    assert json.loads(out) == {
        "version": 1,
        "models": [str(EXAMPLE), str(EXAMPLE)],
        "out": str(out_path),
        "nodes": 6,
        "initializers": 8,
        "inputs": ["x"],
        "outputs": ["b/y"],
    }


def test_draw_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "draw", str(EXAMPLE), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["format"] == "dot" and report["output"] is None and report["dot"].startswith("digraph")
    assert report["bytes"] == len(report["dot"].encode())
    code, out, _ = _run(capsys, "draw", str(EXAMPLE), "-o", str(tmp_path / "g.dot"), "--json")
    assert code == 0
    assert json.loads(out) == {
        "version": 1,
        "model": str(EXAMPLE),
        "output": str(tmp_path / "g.dot"),
        "format": "dot",
        "bytes": (tmp_path / "g.dot").stat().st_size,
    }
