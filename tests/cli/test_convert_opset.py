"""``wirecodec convert-opset IN OUT --to-opset N``: the result, external data left alone, errors."""

from __future__ import annotations

import pathlib

import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper, load, save
from wirecodec.cli import main


def _model() -> ModelProto:
    weight = helper.make_tensor("w", TensorProto.FLOAT, [3, 4], b"\1" * 48, raw=True)
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["s"]),
         helper.make_node("ReduceSum", ["s"], ["y"], axes=[1], keepdims=0)],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [weight],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])


@pytest.mark.quick
def test_converts_and_keeps_external_data_as_it_was(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "model.onnx"
    save(_model(), source, external_data=True, size_threshold=0, location="weights.bin")
    data = tmp_path / "weights.bin"
    before = data.read_bytes(), data.stat().st_mtime_ns
    out = tmp_path / "model-13.onnx"
    assert main(["convert-opset", str(source), str(out), "--to-opset", "13"]) == 0
    assert "opset 12 -> 13" in capsys.readouterr().out
    assert (data.read_bytes(), data.stat().st_mtime_ns) == before
    converted = load(out, load_external_data=False)
    assert converted.opset_import[0].version == 13
    assert [n.op_type for n in converted.graph.node] == ["Add", "Constant", "ReduceSum"]
    entries = {e.key: e.value for e in converted.graph.initializer[0].external_data}
    assert entries["location"] == "weights.bin"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model-13.onnx", "model.onnx", "weights.bin"]


def test_equals_onnx_converter(tmp_path: pathlib.Path) -> None:
    onnx = pytest.importorskip("onnx", reason="onnx's converter is the reference")
    from onnx import version_converter

    source, out = tmp_path / "in.onnx", tmp_path / "out.onnx"
    save(_model(), source)
    assert main(["convert-opset", str(source), str(out), "--to-opset", "18"]) == 0
    theirs = version_converter.convert_version(onnx.load(str(source)), 18)
    assert out.read_bytes() == theirs.SerializeToString()


@pytest.mark.quick
@pytest.mark.parametrize(("target", "words"), [("5", "graph.node[0]"), ("99", "not an ai.onnx version")])
def test_a_refusal_is_one_line_and_writes_nothing(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], target: str, words: str
) -> None:
    source, out = tmp_path / "in.onnx", tmp_path / "out.onnx"
    save(_model(), source)
    before = source.read_bytes()
    assert main(["convert-opset", str(source), str(out), "--to-opset", target]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and err.startswith("wirecodec convert-opset:"), err
    assert not out.exists() and source.read_bytes() == before


def test_the_target_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert-opset", "a.onnx", "b.onnx"]) == 2
    assert "--to-opset" in capsys.readouterr().err


def test_written_elsewhere_the_weights_go_beside_the_output(tmp_path: pathlib.Path) -> None:
    source = tmp_path / "model.onnx"
    save(_model(), source, external_data=True, size_threshold=0, location="weights.bin")
    before = sorted(p.name for p in tmp_path.iterdir())
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "model-13.onnx"
    assert main(["convert-opset", str(source), str(out), "--to-opset", "13"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == before
    converted, original = load(out), load(source)
    assert converted.opset_import[0].version == 13
    assert bytes(converted.graph.initializer[0].raw_data) == bytes(original.graph.initializer[0].raw_data)
