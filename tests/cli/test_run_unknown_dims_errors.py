"""Issue 45, item 6: ``run`` on a model whose unknown dimensions were set to 1 and then
fail says which input, the shape it ran with, and the --shape that sets them; the error
is printed once (onnxruntime's own log line of it is turned down)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import helper, numpy_helper, save
from wirecodec.cli import main

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _conv(path: pathlib.Path) -> None:
    """A 1-D Conv of kernel 5 over [batch, 1, samples] (openWakeWord's melspectrogram front)."""
    weight = numpy_helper.from_array(np.ones((4, 1, 5), np.float32), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 1, "samples"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph([helper.make_node("Conv", ["x", "w"], ["y"])], "g", [x], [y], [weight])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), path)


def test_a_failure_after_guessed_dims_names_them_once(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("onnxruntime")
    path = tmp_path / "conv.onnx"
    _conv(path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "wirecodec", "run", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 3, done.stderr  # the error once, what was chosen, the hint
    assert lines[0].startswith(f"wirecodec run: {path}: onnxruntime: ") and "Conv" in lines[0]
    assert lines[1] == (
        "  input 'x' FLOAT[batch,1,samples] has unknown dims (batch, samples): "
        "ran as [1,1,1] (1 for each unknown)"
    )
    assert lines[2] == "  hint: --shape x=N,1,N sets them (or --dim NAME=N)"


def test_the_hint_is_true(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime")
    path = tmp_path / "conv.onnx"
    _conv(path)
    assert main(["run", str(path), "--shape", "x=1,1,400"]) == 0
    assert "y  float32[1,4,396]" in capsys.readouterr().out
    assert main(["run", str(path), "--dim", "samples=400"]) == 0


def test_sizes_given_are_not_blamed(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("onnxruntime")
    path = tmp_path / "conv.onnx"
    _conv(path)
    assert main(["run", str(path), "--shape", "x=1,1,3"]) == 1  # too short for the kernel, but given
    err = capsys.readouterr().err
    assert "onnxruntime" in err and "unknown dims" not in err and "hint" not in err
