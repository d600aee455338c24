"""``edit --set-opset, --add-output, --remove-metadata, --strip-doc-strings``, judged by onnx.

Each edit is made twice: by ``wirecodec edit`` and by hand on onnx's own classes; the
files must be byte-identical (wirecodec writes what protobuf writes). onnxruntime runs
a model with an added output and gives the intermediate value.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import pytest

from wirecodec.cli import main

onnx = pytest.importorskip("onnx", reason="onnx is the reference for the edited bytes")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _model() -> Any:
    w = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="mm", doc_string="multiplies"),
        helper.make_node("Relu", ["h"], ["y"], name="relu", doc_string="clips"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
        [w],
        doc_string="a graph",
        value_info=[helper.make_tensor_value_info("h", TensorProto.FLOAT, ["N", 4])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], doc_string="a model")
    helper.set_model_props(model, {"keep": "1", "drop": "2"})
    return model


@pytest.fixture
def source(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "m.onnx"
    onnx.save(_model(), str(path))
    return path


def _strip(message: Any) -> None:
    for field, value in message.ListFields():
        if field.name == "doc_string":
            message.ClearField("doc_string")
        elif field.type == field.TYPE_MESSAGE:
            for item in [value] if hasattr(value, "ListFields") else value:
                _strip(item)


def test_each_edit_writes_what_onnx_writes(source: pathlib.Path, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.onnx"
    argv = ["edit", str(source), "-o", str(out), "--set-opset", "ai.onnx=18", "--set-opset", "com.example=2",
            "--remove-metadata", "drop", "--strip-doc-strings", "--add-output", "h"]  # fmt: skip
    assert main(argv) == 0
    theirs = _model()
    theirs.opset_import[0].version = 18
    theirs.opset_import.append(helper.make_opsetid("com.example", 2))
    kept = [p for p in theirs.metadata_props if p.key != "drop"]
    del theirs.metadata_props[:]
    theirs.metadata_props.extend(kept)
    _strip(theirs)
    theirs.graph.output.append(theirs.graph.value_info[0])
    assert out.read_bytes() == theirs.SerializeToString()


def test_an_added_output_runs_in_onnxruntime(source: pathlib.Path, tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the edited model")
    out = tmp_path / "out.onnx"
    assert main(["edit", str(source), "-o", str(out), "--add-output", "h", "--add-output", "w"]) == 0
    session = ort.InferenceSession(str(out))
    x = np.array([[1, -2, 3], [-4, 5, -6]], dtype=np.float32)
    y, h, w = session.run(["y", "h", "w"], {"x": x})
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    assert np.array_equal(h, x @ weights) and np.array_equal(y, np.maximum(x @ weights, 0))
    assert np.array_equal(w, weights)
    # The initializer's output is typed from the initializer (dims and element type).
    output = onnx.load(str(out)).graph.output[2]
    assert [d.dim_value for d in output.type.tensor_type.shape.dim] == [3, 4]


@pytest.mark.parametrize(
    "option",
    [
        ["--remove-metadata", "absent"],
        ["--add-output", "nowhere"],
        ["--add-output", "y"],  # already an output
        ["--set-opset", "ai.onnx=0"],
        ["--set-opset", "ai.onnx"],  # argparse's usage error: the usage, then the line
    ],
)
def test_edits_that_cannot_be_made_write_nothing(
    option: list[str], source: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.onnx"
    assert main(["edit", str(source), "-o", str(out), *option]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 or err.splitlines()[-1].startswith("wirecodec edit: error:"), err
    assert not out.exists()


def test_set_opset_says_no_operator_was_converted(
    source: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["edit", str(source), "-o", str(tmp_path / "o.onnx"), "--set-opset", "ai.onnx=19"]) == 0
    assert "opset ai.onnx 17 -> 19 (the number only: no operator was converted)" in capsys.readouterr().out
