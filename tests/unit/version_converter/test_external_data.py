"""``wirecodec convert-opset`` of a few-MB external-data model: the data file is left alone."""

from __future__ import annotations

import os
import pathlib

import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import helper, load, save
from wirecodec.cli import main


@pytest.mark.quick
def test_the_data_file_is_untouched_and_the_references_kept(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weight = helper.make_tensor("w", TensorProto.FLOAT, [512, 1024], os.urandom(512 * 1024 * 4), raw=True)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Relu", ["h"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 512])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [weight],
    )  # fmt: skip
    source = tmp_path / "model.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), source,
         external_data=True, size_threshold=0, location="model.onnx.data")  # fmt: skip
    data = tmp_path / "model.onnx.data"
    before = os.stat(data)
    original = load(source, load_external_data=False)
    references = [(e.key, e.value) for e in original.graph.initializer[0].external_data]
    out = tmp_path / "model-21.onnx"
    assert main(["convert-opset", str(source), str(out), "--to-opset", "21"]) == 0
    assert "opset 18 -> 21" in capsys.readouterr().out
    after = os.stat(data)

    def identity(st: os.stat_result) -> tuple[int, int, int]:
        return st.st_ino, st.st_size, st.st_mtime_ns

    assert identity(after) == identity(before)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model-21.onnx", "model.onnx", "model.onnx.data"]
    converted = load(out, load_external_data=False)
    assert converted.opset_import[0].version == 21
    assert [(e.key, e.value) for e in converted.graph.initializer[0].external_data] == references
    assert before.st_size == 2 * 1024 * 1024
