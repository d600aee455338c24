"""``bench/version_converter.py --export DIR``, the run behind issue 44's 2.3 GB figure, on
a small stand-in of the export (a model with external data and per-node metadata, opset
18): the verb's row says the data file was untouched and the references kept, onnx's two
rows are measured, and a data file that changes is reported as a failure."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

onnx = pytest.importorskip("onnx", reason="the stand-in export is written by onnx, as torch writes it")
from onnx import TensorProto, helper  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _stand_in(folder: pathlib.Path) -> None:
    import numpy as np

    weight = helper.make_tensor(
        "w", TensorProto.FLOAT, [64, 64], np.arange(64 * 64, dtype=np.float32).tobytes(), raw=True
    )
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    matmul = helper.make_node("MatMul", ["x", "w"], ["h"], name="node_matmul")
    matmul.metadata_props.add(key="pkg.torch.onnx.stack_trace", value="model.py:12")
    reduce = helper.make_node("ReduceMean", ["h", "axes"], ["y"], name="node_mean")
    graph = helper.make_graph(
        [matmul, reduce],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [weight, axes],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    onnx.save(model, str(folder / "model.onnx"), save_as_external_data=True, location="model.onnx.data",
              size_threshold=1024)  # fmt: skip


def _bench(folder: pathlib.Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, str(ROOT / "bench" / "version_converter.py"), "--export", str(folder), *extra]
    return subprocess.run(command, capture_output=True, text=True, env=env, check=False, timeout=300)


def test_export_run_on_a_stand_in(tmp_path: pathlib.Path) -> None:
    _stand_in(tmp_path)
    data_before = (tmp_path / "model.onnx.data").stat()
    done = _bench(tmp_path, "--runs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "opset 18" in out and out.count("wirecodec convert-opset 18 -> 21") == 2, out
    assert "wirecodec convert-opset: " in out and "(2 runs)" in out
    assert (
        "data file model.onnx.data: inode, size and mtime unchanged: True; new files: ['model-opset21.onnx']"
        in out
    )
    assert "external initializers 1 of 1 (references as given: True); node metadata_props 1 of 1" in out
    assert "onnx: load, convert_version, save (external data) 18 -> 21" in out
    assert "onnx: load_external_data=False, convert_version, save 18 -> 21" in out
    after = (tmp_path / "model.onnx.data").stat()
    assert (after.st_ino, after.st_mtime_ns) == (data_before.st_ino, data_before.st_mtime_ns)
    converted = onnx.load(str(tmp_path / "model-opset21.onnx"), load_external_data=False)
    assert converted.opset_import[0].version == 21
    # onnx's whole-model copy (its own data file) removed, its graph-only result kept to look at
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("onnx-")) == ["onnx-opset21.onnx"]


def test_export_run_fails_when_the_verb_fails(tmp_path: pathlib.Path) -> None:
    """A model the verb refuses (an operator with no opset-21 path) makes the run exit 1."""
    _stand_in(tmp_path)
    model = onnx.load(str(tmp_path / "model.onnx"), load_external_data=False)
    model.graph.node[1].op_type = "Frobnicate"
    onnx.save(model, str(tmp_path / "model.onnx"))
    done = _bench(tmp_path, "--runs", "1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAILED" in done.stdout


def test_export_run_leaves_other_files_alone(tmp_path: pathlib.Path) -> None:
    """A file of the user's in the folder is neither removed nor taken for a new file; a graph
    without its data file is refused rather than replaced by a fresh export."""
    _stand_in(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    done = _bench(tmp_path, "--runs", "1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "new files: ['model-opset21.onnx']" in done.stdout
    assert (tmp_path / "notes.txt").read_text() == "mine"
    (tmp_path / "model.onnx.data").unlink()
    done = _bench(tmp_path, "--runs", "1")
    assert done.returncode == 2 and "model.onnx.data is not" in done.stderr
    assert (tmp_path / "notes.txt").exists() and (tmp_path / "model.onnx").exists()
