"""Issue 45, item 4: ``--json`` of the verbs that write a model (convert, edit,
infer-shapes): one object per verb, with the keys docs/cli.md lists, true to what was
written (read back here, not taken from the verb)."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import numpy as np
import pytest

import wirecodec
from wirecodec.cli import main
from wirecodec.cli.common import EXAMPLE

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _documented(verb: str) -> list[str]:
    """The keys of ``verb``'s row in docs/cli.md's table of --json objects."""
    row = re.search(rf"^\| `{re.escape(verb)}` \| `\{{([^}}]*)\}}`", DOCS, re.M)
    assert row is not None, f"docs/cli.md has no --json row for {verb}"
    return [key.strip().strip('"') for key in row.group(1).split(",")]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    captured = capsys.readouterr()
    report: dict[str, Any] = json.loads(captured.out)
    return report


@pytest.mark.quick
def test_convert_json_says_what_was_written(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "split.onnx"
    report = _json(capsys, ["convert", str(EXAMPLE), str(out), "--to", "external", "--all-tensors"])
    assert list(report) == _documented("convert")
    assert report["out"] == str(out) and report["bytes"] == out.stat().st_size
    assert report["layout"] == "external" and report["data_files"] == ["split.onnx.data"]
    model = wirecodec.load(EXAMPLE)
    assert report["tensors_moved"] == len(model.graph.initializer) and report["weights_inline"] == 0
    sizes = sum(wirecodec.numpy_helper.to_array(t).nbytes for t in model.graph.initializer)
    assert report["bytes_moved"] == sizes == (tmp_path / "split.onnx.data").stat().st_size
    single = _json(capsys, ["convert", str(out), str(tmp_path / "one.onnx"), "--to", "single"])
    assert single["layout"] == "single" and single["tensors_moved"] == 0 and single["data_files"] == []
    assert single["bytes"] == (tmp_path / "one.onnx").stat().st_size


def test_infer_shapes_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "typed.onnx"
    report = _json(capsys, ["infer-shapes", str(EXAMPLE), str(out)])
    assert list(report) == _documented("infer-shapes")
    written = wirecodec.load(out)
    assert (
        report["out"] == str(out) and report["bytes"] == out.stat().st_size and report["layout"] == "single"
    )
    assert report["values_typed"] == len(written.graph.value_info) > 0
    assert report["values_typed_before"] == len(wirecodec.load(EXAMPLE).graph.value_info)
    assert report["nodes"] == len(written.graph.node)
    assert report["data_files_written"] == [] and report["data_files_kept"] == []


def test_edit_json(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    split = tmp_path / "split.onnx"
    main(["convert", str(EXAMPLE), str(split), "--to", "external", "--all-tensors"])
    capsys.readouterr()
    out = tmp_path / "other" / "edited.onnx"
    out.parent.mkdir()
    report = _json(
        capsys,
        ["edit", str(split), "-o", str(out), "--set-metadata", "license=MIT", "--set-dim-value", "x:0=2"],
    )
    assert [k for k in report if k != "folded"] == _documented("edit")
    assert (
        report["out"] == str(out) and report["bytes"] == out.stat().st_size and report["layout"] == "external"
    )
    assert report["changes"][1] == "metadata 'license' = 'MIT'" and len(report["changes"]) == 2
    assert report["data_files_written"] == ["edited.onnx.data"] and report["data_files_kept"] == []
    written = wirecodec.load(out)
    assert report["nodes"] == report["nodes_before"] == len(written.graph.node)
    assert report["initializers"] == report["initializers_before"] == len(written.graph.initializer)
    assert report["data_files_unused"] == [] and report["notes"] == []
    assert written.graph.input[0].type.tensor_type.shape.dim[0].dim_value == 2
    np.testing.assert_array_equal(
        wirecodec.numpy_helper.to_array(written.graph.initializer[0]),
        wirecodec.numpy_helper.to_array(wirecodec.load(EXAMPLE).graph.initializer[0]),
    )
