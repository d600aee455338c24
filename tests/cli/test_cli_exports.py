"""Every CLI verb on models PyTorch exported (both exporters), checked with onnx and onnxruntime.

Each export is also saved by onnx with its weights in an external data file, the way
large models travel. Edits are made by our ``edit`` and checked by onnx's checker and
by running the result in onnxruntime; differences are made by onnx and found by our
``diff``.
"""

from __future__ import annotations

import collections
import json
import pathlib
from typing import Any

import numpy as np
import pytest

from tests.support.exports import Export
from tests.support.reference import require_onnx
from wirecodec.cli import main

onnx = require_onnx()
from onnx import numpy_helper  # noqa: E402  (after the skip above)


@pytest.fixture(scope="module")
def exports(pytorch_exports: list[Export]) -> list[Export]:
    return pytorch_exports


def _parse(data: bytes) -> Any:
    model = onnx.ModelProto()
    model.ParseFromString(data)
    return model


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out)


def _external_copy(item: Export, folder: pathlib.Path, size_threshold: int = 0) -> pathlib.Path:
    """The export saved by onnx with every initializer (of ``size_threshold`` bytes or more)
    in ``weights.bin``."""
    folder.mkdir()
    path = folder / "model.onnx"
    onnx.save_model(
        _parse(item.data),
        str(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="weights.bin",
        size_threshold=size_threshold,
    )
    return path


def _op(node: Any) -> str:
    return f"{node.domain}::{node.op_type}" if node.domain and node.domain != "ai.onnx" else node.op_type


def test_inspect_agrees_with_onnx(
    exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for item in exports:
        theirs = _parse(item.data)
        arrays = [numpy_helper.to_array(t) for t in theirs.graph.initializer]
        # Weights count Constant values too (torch keeps small ones there).
        constants = [
            numpy_helper.to_array(a.t)
            for n in theirs.graph.node
            if n.op_type == "Constant" and n.domain in ("", "ai.onnx")
            for a in n.attribute
            if a.name == "value"
        ]
        path = tmp_path / f"{item.name}.onnx"
        path.write_bytes(item.data)
        code, inline = _json(capsys, ["inspect", "--json", "--top", "3", str(path)])
        assert code == 0 and inline["byte_identical"], item.name
        assert inline["operators"] == dict(collections.Counter(_op(n) for n in theirs.graph.node)), item.name
        assert inline["parameters"]["count"] == sum(a.size for a in arrays + constants), item.name
        assert inline["parameters"]["bytes"] == sum(a.nbytes for a in arrays + constants), item.name
        assert [v["name"] for v in inline["inputs"]] == [v.name for v in theirs.graph.input]
        assert inline["external_data"] == []
        biggest = max(
            [
                *theirs.graph.initializer,
                *(a.t for n in theirs.graph.node for a in n.attribute if a.HasField("t")),
            ],
            key=lambda t: numpy_helper.to_array(t).nbytes,
        )
        assert inline["largest_tensors"][0]["bytes"] == numpy_helper.to_array(biggest).nbytes, item.name

        # The same model with its weights in an external file: the same figures, read from headers.
        external = _external_copy(item, tmp_path / item.name)
        code, summary = _json(capsys, ["inspect", "--json", str(external)])
        assert code == 0 and summary["byte_identical"], item.name
        assert summary["parameters"] == inline["parameters"], item.name
        # onnx moved every initializer (and nothing else) to weights.bin.
        expected_file = {
            "location": "weights.bin",
            "kind": "file",
            "tensors": len(arrays),
            "bytes": sum(a.nbytes for a in arrays),
            "file_size": (external.parent / "weights.bin").stat().st_size,
            "error": None,
        }
        assert summary["external_data"] == ([expected_file] if arrays else []), item.name


def test_inspect_needs_no_payload(
    exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = next(e for e in exports if e.name == "embedding-dynamo")
    external = _external_copy(item, tmp_path / "m")
    (external.parent / "weights.bin").unlink()
    # Sizes come from the tensors' headers, so the summary is complete; the missing file is a problem.
    code, summary = _json(capsys, ["inspect", "--json", str(external)])
    assert code == 1
    arrays = [numpy_helper.to_array(t) for t in _parse(item.data).graph.initializer]
    assert summary["parameters"]["count"] == sum(a.size for a in arrays) > 1000 * 64
    assert summary["parameters"]["bytes"] == sum(a.nbytes for a in arrays)
    (entry,) = summary["external_data"]
    assert entry["file_size"] is None and "does not exist" in entry["error"]


def test_extract_every_initializer_and_constant(
    exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    extracted = 0
    for item in exports:
        theirs = _parse(item.data)
        inline = tmp_path / f"{item.name}.onnx"
        inline.write_bytes(item.data)
        external = _external_copy(item, tmp_path / item.name)
        expected = {t.name: numpy_helper.to_array(t) for t in theirs.graph.initializer}
        for node in theirs.graph.node:
            if node.op_type == "Constant" and node.attribute[0].name == "value":
                expected[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
        code, listing = _json(capsys, ["tensors", "--list", "--json", str(external)])
        assert code == 0
        assert set(expected) <= {name for entry in listing["tensors"] for name in entry["names"]}, item.name
        for source in (inline, external):
            for name, want in expected.items():
                out = tmp_path / "t.npy"
                assert main(["tensors", str(source), name, "-o", str(out)]) == 0, (item.name, name)
                capsys.readouterr()
                got = np.load(out, allow_pickle=False)
                assert got.dtype == want.dtype and np.array_equal(got, want), (item.name, name)
                extracted += 1
    capsys.readouterr()
    assert extracted > 50


def _write(model: Any, path: pathlib.Path) -> str:
    path.write_bytes(model.SerializeToString())
    return str(path)


def test_diff_finds_what_onnx_changed(
    exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for item in exports:
        theirs = _parse(item.data)
        original = _write(theirs, tmp_path / "a.onnx")

        # The same weights moved to an external file: equal by value.
        external = _external_copy(item, tmp_path / item.name)
        code, result = _json(capsys, ["diff", "--json", original, str(external)])
        assert (code, result["differences"]) == (0, []), item.name

        # One weight nudged by onnx: found without tolerance, accepted within it.
        k, tensor = max(enumerate(theirs.graph.initializer), key=lambda kt: numpy_helper.to_array(kt[1]).size)
        nudged = numpy_helper.to_array(tensor).copy()
        nudged.reshape(-1)[7] += 1e-3
        changed = onnx.ModelProto()
        changed.CopyFrom(theirs)
        changed.graph.initializer[k].CopyFrom(numpy_helper.from_array(nudged, tensor.name))
        other = _write(changed, tmp_path / "b.onnx")
        code, result = _json(capsys, ["diff", "--json", original, other])
        assert code == 1, item.name
        (difference,) = result["differences"]
        assert difference["path"] == f"graph.initializer[{k}].values"
        assert "values differ in 1 of" in difference["message"]
        details = difference["details"]
        assert (details["differing"], details["elements"]) == (1, nudged.size)
        assert details["first_index"] == [int(i) for i in np.unravel_index(7, nudged.shape)]
        assert details["largest_difference"] == pytest.approx(1e-3, rel=1e-2)
        code, result = _json(capsys, ["diff", "--json", "--atol", "1e-2", original, other])
        assert (code, result["equal"]) == (0, True), item.name

        # The last node dropped and an input dimension renamed, by onnx.
        changed = onnx.ModelProto()
        changed.CopyFrom(theirs)
        last = len(changed.graph.node) - 1
        del changed.graph.node[last]
        changed.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "batch"
        code, result = _json(capsys, ["diff", "--json", original, _write(changed, tmp_path / "c.onnx")])
        assert code == 1
        paths = {d["path"]: d for d in result["differences"]}
        assert paths[f"graph.node[{last}]"]["message"].startswith(f"graph.node[{last}]: only in A"), item.name
        assert any(p.startswith("graph.input[0].type.tensor_type.shape.dim[0].dim_") for p in paths), (
            item.name
        )


def test_edit_gives_a_model_onnx_checks_and_onnxruntime_runs(
    exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    for item in exports:
        theirs = _parse(item.data)
        source = tmp_path / f"{item.name}.onnx"
        source.write_bytes(item.data)
        old_in, old_out = theirs.graph.input[0].name, theirs.graph.output[0].name
        edited = tmp_path / f"{item.name}-edited.onnx"
        argv = [
            "edit", str(source), "-o", str(edited),
            "--rename-input", f"{old_in}=pixels",
            "--rename-output", f"{old_out}=scores",
            "--set-dim-param", "pixels:0=batch",
            "--set-producer", "cli-test:1.0",
            "--set-metadata", "origin=pytorch",
        ]  # fmt: skip
        assert main(argv) == 0, item.name
        capsys.readouterr()

        checked = onnx.load(str(edited))
        onnx.checker.check_model(checked, full_check=True)
        names_used = {n for node in checked.graph.node for n in (*node.input, *node.output)}
        names_used |= {
            v.name for v in (*checked.graph.input, *checked.graph.output, *checked.graph.value_info)
        }
        assert old_in not in names_used and old_out not in names_used, item.name
        assert checked.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
        assert (checked.producer_name, checked.producer_version) == ("cli-test", "1.0")
        assert {p.key: p.value for p in checked.metadata_props}["origin"] == "pytorch"

        session = ort.InferenceSession(str(edited), providers=["CPUExecutionProvider"])
        assert session.get_inputs()[0].name == "pixels"
        assert session.get_outputs()[0].name == "scores"
        feeds = {i.name: v for i, v in zip(session.get_inputs(), item.inputs, strict=True)}
        for got, want in zip(session.run(None, feeds), item.expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=item.name)


def test_edit_in_place_keeps_external_data_working(
    exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    item = next(e for e in exports if e.name == "cnn-dynamo")
    # onnx's default threshold: onnxruntime reads shape inputs (axes) only when they are inline.
    external = _external_copy(item, tmp_path / "m", size_threshold=1024)
    before = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(external)).graph.initializer}
    data_written = (external.parent / "weights.bin").stat().st_mtime_ns
    assert main(["edit", str(external), "-o", str(external), "--set-metadata", "k=v"]) == 0
    out = capsys.readouterr().out
    # In place, the data file is kept as it was (not read, not written): only the model changes.
    assert "with external data: weights.bin kept as it was" in out
    assert "no longer used" not in out
    assert sorted(p.name for p in external.parent.iterdir()) == ["model.onnx", "weights.bin"]
    assert (external.parent / "weights.bin").stat().st_mtime_ns == data_written
    after = onnx.load(str(external))
    stored = onnx.load(str(external), load_external_data=False).graph.initializer
    assert any(t.data_location == onnx.TensorProto.EXTERNAL for t in stored)
    assert {t.name: numpy_helper.to_array(t).tolist() for t in after.graph.initializer} == {
        k: v.tolist() for k, v in before.items()
    }
    assert {p.key: p.value for p in after.metadata_props}["k"] == "v"
    session = ort.InferenceSession(str(external), providers=["CPUExecutionProvider"])
    feeds = {i.name: v for i, v in zip(session.get_inputs(), item.inputs, strict=True)}
    for got, want in zip(session.run(None, feeds), item.expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def _if_model() -> Any:
    """x -> If(cond) { then: x * 2, else: Loop body reading x } -> y: subgraphs read x from outside."""
    h = onnx.helper
    tp = onnx.TensorProto
    then_graph = h.make_graph(
        [h.make_node("Add", ["x", "x"], ["then_out"])],
        "then",
        [],
        [h.make_tensor_value_info("then_out", tp.FLOAT, [2])],
    )
    else_graph = h.make_graph(
        [h.make_node("Neg", ["x"], ["else_out"])],
        "else",
        [],
        [h.make_tensor_value_info("else_out", tp.FLOAT, [2])],
    )
    node = h.make_node("If", ["cond"], ["y"], then_branch=then_graph, else_branch=else_graph)
    graph = h.make_graph(
        [node],
        "g",
        [h.make_tensor_value_info("x", tp.FLOAT, [2]), h.make_tensor_value_info("cond", tp.BOOL, [])],
        [h.make_tensor_value_info("y", tp.FLOAT, [2])],
    )
    return h.make_model(graph, opset_imports=[h.make_opsetid("", 17)], ir_version=8)


def test_edit_renames_inside_subgraphs(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    source = _write(_if_model(), tmp_path / "if.onnx")
    out = tmp_path / "renamed.onnx"
    assert main(["edit", source, "-o", str(out), "--rename-input", "x=features"]) == 0
    assert "(4 places)" in capsys.readouterr().out  # graph input, then: Add x2, else: Neg
    renamed = onnx.load(str(out))
    onnx.checker.check_model(renamed, full_check=True)
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    x = np.array([1.5, -2.0], dtype=np.float32)
    (then,) = session.run(None, {"features": x, "cond": np.array(True)})
    (otherwise,) = session.run(None, {"features": x, "cond": np.array(False)})
    np.testing.assert_array_equal(then, x * 2)
    np.testing.assert_array_equal(otherwise, -x)
