"""The in-place matrix (issue 47): every writer x every layout, written back onto its own
input, with a second model ``b.onnx`` sharing the first one's data file.

For each cell: no file that was there is lost, ``b.onnx`` is byte for byte what it was and
its data file too, both models still load, and every array is equal to before — read by
``onnx.load`` + ``numpy_helper`` (the oracle) where onnx reads the layout. Where the layout
is external data, an in-place write also creates no file: only the model is rewritten.
The model holds a zero-size tensor (Resize's empty ``roi``) and a Constant, so empty
payloads go through every layout too.
"""

from __future__ import annotations

import hashlib
import pathlib
import shutil
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from wirecodec.cli import main

onnx = pytest.importorskip("onnx", reason="onnx is the oracle that reads every array back (test extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

LAYOUTS = ("single", "external-default", "external-custom", "safetensors", "onnxz")
DATA_FILE = {
    "external-default": "a.onnx.data",
    "external-custom": "weights.bin",
    "safetensors": "a.safetensors",
}


def _model(scales_in_a_constant: bool = False) -> Any:
    """Conv, Relu, Resize with an empty roi, a Constant: big and small initializers, a
    zero-size one, an attribute tensor. (onnxruntime reads Resize's scales only from the
    model itself: ``scales_in_a_constant`` makes it a Constant's value, which stays inline.)"""
    weights = numpy_helper.from_array((np.arange(16 * 27, dtype=np.float32) / 100).reshape(16, 3, 3, 3), "W")
    bias = numpy_helper.from_array(np.arange(16, dtype=np.float32), "B")
    roi = numpy_helper.from_array(np.zeros((0,), dtype=np.float32), "roi")
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")
    added = numpy_helper.from_array((np.arange(16, dtype=np.float32) * 0.5).reshape(16, 1, 1), "k")
    nodes = [
        helper.make_node("Conv", ["x", "W", "B"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Resize", ["r", "roi", "scales"], ["z"], mode="nearest"),
        helper.make_node("Constant", [], ["k"], value=added),
        helper.make_node("Add", ["z", "k"], ["y"]),
    ]
    initializers = [weights, roi, bias, scales]  # bias starts where the empty roi does
    if scales_in_a_constant:
        nodes.insert(0, helper.make_node("Constant", [], ["scales"], value=initializers.pop()))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16, 8, 8])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9)


def _make(layout: str, folder: pathlib.Path) -> pathlib.Path:
    """``a`` in ``layout`` (and ``b.onnx``, a copy of ``a.onnx``, pointing into the same data)."""
    model = _model()
    if layout == "onnxz":
        path = folder / "a.onnxz"
        wirecodec.save_zip(wirecodec.decode(ModelProto, model.SerializeToString()), path)
        return path
    path = folder / "a.onnx"
    if layout == "single":
        onnx.save_model(model, str(path))
    elif layout == "safetensors":
        ours = wirecodec.decode(ModelProto, model.SerializeToString())
        wirecodec.save(ours, path, external_data="a.safetensors", size_threshold=0)
    else:
        onnx.save_model(
            model, str(path), save_as_external_data=True, location=DATA_FILE[layout], size_threshold=0
        )
    shutil.copyfile(path, folder / "b.onnx")
    return path


def _arrays(path: pathlib.Path) -> dict[str, list[Any]]:
    """Every initializer and Constant value, read by onnx where it can read the file."""
    if zipfile.is_zipfile(path):  # onnx cannot read a container: wirecodec's arrays then
        model = wirecodec.load(path)
        found = {t.name: wirecodec.to_array(t) for t in model.graph.initializer}
        found |= {
            f"{n.output[0]}@": wirecodec.to_array(n.attribute[0].t)
            for n in model.graph.node
            if n.op_type == "Constant"
        }
    else:
        loaded = onnx.load(str(path))
        found = {t.name: numpy_helper.to_array(t) for t in loaded.graph.initializer}
        found |= {
            f"{n.output[0]}@": numpy_helper.to_array(n.attribute[0].t)
            for n in loaded.graph.node
            if n.op_type == "Constant"
        }
    return {name: [array.dtype.str, list(array.shape), array.tolist()] for name, array in found.items()}


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _api_save(path: pathlib.Path, layout: str) -> None:
    external: bool | str = layout.startswith("external") or layout == "safetensors"
    wirecodec.save(wirecodec.load(path), path, external_data=external)


def _api_convert(path: pathlib.Path, layout: str) -> None:
    to = {"single": "single", "onnxz": "zip", "safetensors": "safetensors"}.get(layout, "external")
    wirecodec.convert(path, path, to=to)  # type: ignore[arg-type]


def _api_infer_shapes_path(path: pathlib.Path, layout: str) -> None:
    from wirecodec.shape_inference import infer_shapes_path

    infer_shapes_path(path)


def _api_utils(path: pathlib.Path, layout: str) -> None:
    from wirecodec.utils import extract_model

    external = layout.startswith("external") or layout == "safetensors"
    extract_model(path, path, ["x"], ["y"], external_data=external)


def _cli(*argv: str) -> Callable[[pathlib.Path, str], None]:
    def run(path: pathlib.Path, layout: str) -> None:
        args = [str(path) if arg == "IN" else arg for arg in argv]
        assert main(args) == 0

    return run


WRITERS: dict[str, Callable[[pathlib.Path, str], None]] = {
    "wirecodec.save": _api_save,
    "files.convert": _api_convert,
    "infer_shapes_path": _api_infer_shapes_path,
    "utils.extract_model": _api_utils,
    "edit -o IN": _cli("edit", "IN", "-o", "IN", "--set-metadata", "k=v"),
    "infer-shapes IN IN": _cli("infer-shapes", "IN", "IN"),
    "convert IN IN --to external": _cli("convert", "IN", "IN", "--to", "external"),
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("writer", list(WRITERS))
def test_writing_in_place_loses_nothing(
    writer: str, layout: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _make(layout, tmp_path)
    before = _arrays(path)
    files = {p.name: _digest(p) for p in tmp_path.iterdir()}
    others = {name: digest for name, digest in files.items() if name != path.name}

    WRITERS[writer](path, layout)
    capsys.readouterr()

    now = {p.name: _digest(p) for p in tmp_path.iterdir()}
    assert set(files) <= set(now), f"lost {sorted(set(files) - set(now))}"
    # b.onnx and the data file are never written over (another model may read them).
    assert {name: now[name] for name in others} == others
    assert _arrays(path) == before
    if (tmp_path / "b.onnx").exists():
        assert _arrays(tmp_path / "b.onnx") == before
    if layout in DATA_FILE:
        # The layout is kept: the data stays where it is, unread, and only the model is written.
        assert set(now) == set(files), f"new files {sorted(set(now) - set(files))}"
        stored = onnx.load(str(path), load_external_data=False).graph.initializer
        locations = {e.value for t in stored for e in t.external_data if e.key == "location"}
        assert locations == {DATA_FILE[layout]}


@pytest.mark.quick
def test_saving_a_loaded_model_in_place_rewrites_the_model_only(tmp_path: pathlib.Path) -> None:
    """The issue's report: save(load(a), a, external_data=True) deleted a.onnx.data under b.onnx."""
    path = _make("external-default", tmp_path)
    data = tmp_path / "a.onnx.data"
    stamp = data.stat().st_ino, data.stat().st_mtime_ns
    before = _arrays(tmp_path / "b.onnx")
    wirecodec.save(wirecodec.load(path), path, external_data=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.onnx", "a.onnx.data", "b.onnx"]
    assert (data.stat().st_ino, data.stat().st_mtime_ns) == stamp
    assert _arrays(tmp_path / "b.onnx") == before == _arrays(path)


@pytest.mark.parametrize(
    "writer", ["edit -o IN", "infer-shapes IN IN", "infer_shapes_path", "wirecodec.save"]
)
def test_written_to_another_directory_the_data_is_copied_beside_it(
    writer: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the references no longer resolve, the tensors they name are copied into
    ``<out>.data`` beside the output; the source is untouched."""
    path = _make("external-custom", tmp_path)
    before = _arrays(path)
    files = {p.name: _digest(p) for p in tmp_path.iterdir()}
    out = tmp_path / "out" / "m.onnx"
    out.parent.mkdir()
    if writer == "edit -o IN":
        assert main(["edit", str(path), "-o", str(out), "--set-metadata", "k=v"]) == 0
    elif writer == "infer-shapes IN IN":
        assert main(["infer-shapes", str(path), str(out)]) == 0
    elif writer == "infer_shapes_path":
        from wirecodec.shape_inference import infer_shapes_path

        infer_shapes_path(path, out)
    else:
        wirecodec.save(wirecodec.load(path), out, external_data=True, size_threshold=0)
    capsys.readouterr()
    assert {p.name: _digest(p) for p in tmp_path.iterdir() if p.is_file()} == files
    assert sorted(p.name for p in out.parent.iterdir()) == ["m.onnx", "m.onnx.data"]
    assert _arrays(out) == before


# -- zero-size tensors through every layout (issue 47, item 6) -----------------------------------


@pytest.mark.parametrize("to", ["safetensors", "external", "zip", "single"])
def test_an_empty_tensor_goes_through_every_layout_and_back(
    to: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``convert --to L --all-tensors`` of a model holding Resize's empty roi writes what
    ``check --full``, ``run`` and ``convert`` of wirecodec read back, and onnx too."""
    source = tmp_path / "m.onnx"
    onnx.save_model(_model(scales_in_a_constant=True), str(source))
    before = _arrays(source)
    out = tmp_path / ("m.onnxz" if to == "zip" else "out.onnx")
    extra = ["--all-tensors"] if to in ("safetensors", "external") else []
    assert main(["convert", str(source), str(out), "--to", to, *extra]) == 0
    if to in ("safetensors", "external"):
        stored = onnx.load(str(out), load_external_data=False).graph.initializer
        roi = next(t for t in stored if t.name == "roi")
        assert roi.data_location == TensorProto.EXTERNAL  # the empty tensor did move out
    assert main(["check", "--full", str(out)]) == 0, capsys.readouterr()
    back = tmp_path / "back.onnx"
    assert main(["convert", str(out), str(back), "--to", "single"]) == 0
    assert _arrays(back) == before
    if to != "zip":
        assert _arrays(out) == before  # onnx reads it as well
    pytest.importorskip("onnxruntime", reason="run needs onnxruntime (test extra)")
    capsys.readouterr()
    assert main(["run", str(out)]) == 0, capsys.readouterr()
