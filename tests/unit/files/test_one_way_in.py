"""The bugs of "every verb on every layout", each pinned by a test that failed before the one opener.

The matrix (tests/cli/test_verb_matrix.py) covers verbs x layouts x bad inputs; these are the
single behaviours a user met: the wrong file blamed, one missing data file reported once,
a truncated data file, Constant weights, one path syntax, output that fits a terminal,
JSON that is always JSON, and help text.
"""

from __future__ import annotations

import argparse
import io
import json
import pathlib
import sys
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from wirecodec.cli import VERBS, main
from wirecodec.errors import NotAModelError, PathError
from wirecodec.files.opener import open_model
from wirecodec.protobuf import fieldpath

onnx = pytest.importorskip("onnx", reason="the models are built with the onnx package")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def _constant_model() -> Any:
    value = numpy_helper.from_array(np.arange(600, dtype=np.float32).reshape(20, 30), "k")
    nodes = [
        helper.make_node("Constant", [], ["w"], value=value, name="c"),
        helper.make_node("MatMul", ["x", "w"], ["y"], name="mm"),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 20])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 30])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture
def constant_model(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "constants.onnx"
    onnx.save(_constant_model(), str(path))
    return path


def test_a_write_error_names_the_output_not_the_model(
    constant_model: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["convert", str(constant_model), "/nonexistent/x.onnx", "--to", "single"]) == 1
    err = capsys.readouterr().err
    assert "/nonexistent" in err and str(constant_model) not in err, err


def test_constant_weights_are_parameters_and_move_with_convert_attribute(
    constant_model: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--json", str(constant_model)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["parameters"]["tensors"], summary["parameters"]["count"]) == (1, 600)
    # onnx's convert_model_to_external_data(convert_attribute=True) moves them; so does ours.
    out = tmp_path / "split" / "m.onnx"
    out.parent.mkdir()
    argv = ["convert", str(constant_model), str(out), "--to", "external", "--size-threshold", "0"]
    assert main([*argv, "--convert-attribute"]) == 0
    reloaded = onnx.load(str(out), load_external_data=False)
    assert reloaded.graph.node[0].attribute[0].t.data_location == TensorProto.EXTERNAL
    capsys.readouterr()
    assert main(["convert", str(constant_model), str(out), "--to", "zip", "--convert-attribute"]) == 2


def test_a_path_inspect_prints_is_a_path_tensors_takes(
    constant_model: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["inspect", "--json", str(constant_model)]) == 0
    path = json.loads(capsys.readouterr().out)["largest_tensors"][0]["path"]
    assert path == "graph.node[0].attribute[0].t"
    for wanted in (path, "graph.node[0]", "graph.node[0].attribute[0]", "w", "k"):
        out = tmp_path / "k.npy"
        assert main(["tensors", str(constant_model), wanted, "-o", str(out)]) == 0, wanted
        assert np.array_equal(np.load(out), np.arange(600, dtype=np.float32).reshape(20, 30))
    # The same path names the same value for dump and for the library.
    assert main(["dump", str(constant_model), path]) == 0
    assert "dims: 20" in capsys.readouterr().out
    model = wirecodec.load(constant_model)
    assert fieldpath.resolve(model, path) is model.graph.node[0].attribute[0].t
    assert fieldpath.resolve(model, "ModelProto.graph.node[0].op_type") == "Constant"  # decode errors' form
    with pytest.raises(PathError, match="did you mean 'node'"):
        fieldpath.resolve(model, "graph.nodes[0]")


def test_a_truncated_data_file_fails_inspect_and_check(
    constant_model: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "ext"
    folder.mkdir()
    out = folder / "m.onnx"
    argv = ["convert", str(constant_model), str(out), "--to", "external", "--size-threshold", "0"]
    assert main([*argv, "--convert-attribute"]) == 0
    assert main(["inspect", str(out)]) == 0
    data = folder / "m.onnx.data"
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 3])
    capsys.readouterr()
    assert main(["inspect", str(out)]) == 1
    assert "lie past its end" in capsys.readouterr().out
    assert main(["check", str(out)]) == 1


def test_one_missing_data_file_is_one_violation(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    inits = [numpy_helper.from_array(np.full((16,), i, np.float32), f"t{i}") for i in range(12)]
    nodes = [helper.make_node("Sum", [f"t{i}" for i in range(12)], ["y"])]
    graph = helper.make_graph(
        nodes, "g", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16])], inits
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "m.onnx"
    onnx.save(model, str(path), save_as_external_data=True, location="w.bin", size_threshold=0)
    (tmp_path / "w.bin").unlink()
    assert main(["check", "--json", str(path)]) == 1
    found = json.loads(capsys.readouterr().out)["violations"]
    assert len(found) == 1 and "12 tensors refer to 'w.bin'" in found[0]["message"], found


def test_inspect_text_fits_a_terminal(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Hundreds of operator kinds and a 6,625-line metadata value (as real exports carry).
    nodes = [
        helper.make_node(f"CustomOperatorNumber{i}", ["x"], [f"y{i}"], domain="com.example")
        for i in range(60)
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, [1]) for i in range(60)],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )
    helper.set_model_props(model, {"log": "\n".join(f"line {i} " + "x" * 70 for i in range(6625))})
    path = tmp_path / "wide.onnx"
    onnx.save(model, str(path))
    assert main(["inspect", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    # Only a word that is longer than a line by itself (here the model's path) goes past 80:
    # paths and names are never broken (issue 35).
    wide = [line for line in lines if len(line) > 80]
    assert all(len(line[14:].split()) == 1 for line in wide), wide
    assert len(lines) < 150
    assert main(["inspect", "--json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["metadata_props"]["log"].count("\n") == 6624  # JSON has it all


def test_json_is_json_even_on_errors_and_has_a_version(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "missing.onnx")
    for argv in (["inspect", "--json", missing], ["check", "--json", missing], ["tensors", "--json", missing],
                 ["diff", "--json", missing, missing]):  # fmt: skip
        assert main(argv) == 1
        out, err = capsys.readouterr()
        result = json.loads(out)
        assert result["version"] == 1 and result["exit_code"] == 1 and "missing.onnx" in result["error"]
        assert err.count("\n") == 1


def test_help_fits_80_columns_without_markup(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    for argv in ([], *([verb] for verb in VERBS)):
        assert main([*argv, "--help"]) == 0
        text = capsys.readouterr().out
        assert max(len(line) for line in text.splitlines()) <= 80, argv
        assert "``" not in text and ":func:" not in text, argv
    assert main(["--help"]) == 0
    listed = capsys.readouterr().out
    assert all(f"\n    {verb}" in listed for verb in VERBS), listed


def test_python_m_wirecodec_alone_summarises_the_example_and_points_at_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("model ") and out.rstrip().endswith("wirecodec --help lists the verbs)")


def test_the_opener_refuses_what_is_no_model(tmp_path: pathlib.Path) -> None:
    with pytest.raises(NotAModelError, match="empty input"):
        open_model(b"")
    with pytest.raises(NotAModelError, match="no ONNX model field"):
        open_model(b"i\x00\x00\x00\x00\x00\x00\x00\x00")  # an unknown fixed64 field, protobuf-valid
    with pytest.raises(IsADirectoryError):
        open_model(tmp_path)
    with pytest.raises(FileNotFoundError):
        open_model(tmp_path / "missing.onnx")
    # onnx.load gives an empty model for an empty file; wirecodec.load refuses it (decode does not).
    (tmp_path / "empty.onnx").write_bytes(b"")
    with pytest.raises(NotAModelError):
        wirecodec.load(tmp_path / "empty.onnx")
    assert wirecodec.decode(ModelProto, b"") == ModelProto()


def test_standard_input_reaches_every_source_kind_of_the_library(constant_model: pathlib.Path) -> None:
    data = constant_model.read_bytes()
    from_stdin = open_model("-", stdin=io.BytesIO(data))
    assert from_stdin.label == "<stdin>" and from_stdin.model == wirecodec.load(constant_model)
    with constant_model.open("rb") as file:
        assert open_model(file).model == from_stdin.model
    assert open_model(memoryview(data)).model == from_stdin.model


def test_every_verb_declares_its_model_argument_alike() -> None:
    from wirecodec.cli import _parser

    parser = _parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for verb, verb_parser in sub.choices.items():
        helps = [a.help for a in verb_parser._actions if a.dest in ("model", "a", "b")]
        assert helps and all(h and "standard input" in h and ".onnxz" in h for h in helps), verb
    assert sys.stdin is not None
