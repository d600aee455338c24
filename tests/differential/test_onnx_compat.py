"""wirecodec.onnx_compat against the onnx package's load/save functions."""

from __future__ import annotations

import importlib
import inspect
import io
import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper, numpy_helper
from wirecodec import onnx_compat as compat
from wirecodec.errors import ExternalDataError

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def model_with_weights() -> ModelProto:
    """A small model with one large initializer (8 KiB), one small, and a Constant attribute tensor."""
    big = numpy_helper.from_array(np.arange(2048, dtype=np.float32).reshape(32, 64), "W")
    small = numpy_helper.from_array(np.array([1.0, 2.0], dtype=np.float32), "b")
    constant = helper.make_node(
        "Constant", [], ["C"], value=numpy_helper.from_array(np.ones(512, np.float32))
    )
    graph = helper.make_graph(
        [constant, helper.make_node("MatMul", ["X", "W"], ["Y"])],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.DataType.FLOAT, ["N", 32])],
        [helper.make_tensor_value_info("Y", TensorProto.DataType.FLOAT, ["N", 64])],
        [big, small],
    )
    return helper.make_model(graph, producer_name="test")


def as_onnx(model: ModelProto) -> Any:
    return onnx.load_model_from_string(wirecodec.encode(model))


def serialized_after_onnx_load(path: pathlib.Path) -> bytes:
    """What onnx reads from ``path`` (external data pulled in), re-serialized."""
    return bytes(onnx.load_model(str(path)).SerializeToString())


# -- names -----------------------------------------------------------------------------------


def test_names_are_onnxs() -> None:
    for name in compat.__all__:
        if not hasattr(onnx, name):  # onnx imports some submodules on first use
            importlib.import_module(f"onnx.{name}")
        theirs, ours = getattr(onnx, name), getattr(compat, name)
        if isinstance(ours, type) and hasattr(ours, "__schema__"):
            assert ours.__schema__.full_name == theirs.DESCRIPTOR.full_name
        elif callable(ours) and not isinstance(ours, type):
            mine = list(inspect.signature(ours).parameters)
            assert mine == list(inspect.signature(theirs).parameters)[: len(mine)], name


def test_constants_are_onnxs() -> None:
    constants = [name for name in compat.__all__ if isinstance(getattr(compat, name), (bool, int))]
    assert "IR_VERSION_2024_3_25" in constants and "ONNX_ML" in constants
    for name in constants:
        assert getattr(compat, name) == getattr(onnx, name), name


def test_every_message_class_onnx_exports_is_here() -> None:
    exported = {n for n in dir(onnx) if n.endswith("Proto") and not n.startswith("_")}
    assert exported <= set(compat.__all__)


def test_top_level_reexports() -> None:
    assert wirecodec.load_model is compat.load_model
    assert wirecodec.save_model is compat.save_model
    assert wirecodec.load_model_from_string is compat.load_model_from_string
    assert wirecodec.load_tensor_from_string is compat.load_tensor_from_string
    assert wirecodec.helper is helper and wirecodec.numpy_helper is numpy_helper
    assert compat.load is compat.load_model and compat.save is compat.save_model


# -- loading ---------------------------------------------------------------------------------


def test_load_model_from_path_and_file_objects(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save_model(as_onnx(model_with_weights()), str(path))
    expected = path.read_bytes()
    assert wirecodec.encode(compat.load_model(path)) == expected
    assert wirecodec.encode(compat.load_model(str(path))) == expected
    with path.open("rb") as f:
        assert wirecodec.encode(compat.load_model(f)) == expected
    assert wirecodec.encode(compat.load_model(io.BytesIO(expected))) == expected
    assert wirecodec.encode(compat.load_model_from_string(expected)) == expected
    assert wirecodec.encode(compat.load_from_string(expected)) == expected


def test_load_model_resolves_external_data_like_onnx(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save_model(as_onnx(model_with_weights()), str(path), save_as_external_data=True, location="w.bin")
    expected = serialized_after_onnx_load(path)
    assert wirecodec.encode(compat.load_model(path)) == expected
    with path.open("rb") as f:  # a file object's name locates its data, as in onnx
        assert wirecodec.encode(compat.load_model(f)) == expected
    # Without a name there is no directory: the references stay, as onnx leaves them.
    unresolved = compat.load_model(io.BytesIO(path.read_bytes()))
    assert wirecodec.encode(unresolved) == onnx.load_model(io.BytesIO(path.read_bytes())).SerializeToString()
    deferred = compat.load_model(path, load_external_data=False)
    assert wirecodec.encode(deferred) == path.read_bytes()
    compat.load_external_data_for_model(deferred, tmp_path)
    assert wirecodec.encode(deferred) == expected


def test_load_tensor_like_onnx(tmp_path: pathlib.Path) -> None:
    tensor = numpy_helper.from_array(np.array([[1, 2], [3, 4]], dtype=np.int64), "t")
    path = tmp_path / "t.pb"
    onnx.save_tensor(onnx.numpy_helper.from_array(np.array([[1, 2], [3, 4]], dtype=np.int64), "t"), str(path))
    assert compat.load_tensor(path) == tensor
    with path.open("rb") as f:
        assert compat.load_tensor(f) == tensor
    assert compat.load_tensor_from_string(path.read_bytes()) == tensor


# -- saving ----------------------------------------------------------------------------------


def test_save_model_writes_onnxs_bytes(tmp_path: pathlib.Path) -> None:
    model = model_with_weights()
    onnx.save_model(as_onnx(model), str(tmp_path / "theirs.onnx"))
    expected = (tmp_path / "theirs.onnx").read_bytes()
    compat.save_model(model, tmp_path / "ours.onnx")
    assert (tmp_path / "ours.onnx").read_bytes() == expected
    buffer = io.BytesIO()
    compat.save_model(model, buffer)  # a file object gets the encoding written into it
    assert buffer.getvalue() == expected
    compat.save_model(expected, tmp_path / "from_bytes.onnx")  # onnx accepts serialized bytes too
    assert (tmp_path / "from_bytes.onnx").read_bytes() == expected
    with (tmp_path / "opened.onnx").open("wb") as f:
        compat.save_model(model, f)
    assert (tmp_path / "opened.onnx").read_bytes() == expected


@pytest.mark.parametrize("one_file", [True, False])
@pytest.mark.parametrize("convert_attribute", [False, True])
def test_save_model_with_external_data_reads_back_like_onnxs(
    tmp_path: pathlib.Path, one_file: bool, convert_attribute: bool
) -> None:
    model = model_with_weights()
    before = wirecodec.encode(model)
    options: dict[str, Any] = {
        "save_as_external_data": True,
        "all_tensors_to_one_file": one_file,
        "size_threshold": 1024,
        "convert_attribute": convert_attribute,
    }
    (tmp_path / "theirs").mkdir()
    (tmp_path / "ours").mkdir()
    onnx.save_model(as_onnx(model), str(tmp_path / "theirs" / "m.onnx"), **options)
    compat.save_model(model, tmp_path / "ours" / "m.onnx", **options)
    assert wirecodec.encode(model) == before  # the caller's model is not touched (onnx rewrites its own)
    ours_loaded = serialized_after_onnx_load(tmp_path / "ours" / "m.onnx")
    assert ours_loaded == serialized_after_onnx_load(tmp_path / "theirs" / "m.onnx")
    moved = 2 if convert_attribute else 1  # W, and the Constant's 2 KiB tensor when attributes move
    ours_model = onnx.load_model(str(tmp_path / "ours" / "m.onnx"), load_external_data=False)
    external = [t for t in _onnx_tensors(ours_model) if t.data_location == onnx.TensorProto.EXTERNAL]
    assert len(external) == moved
    if one_file:
        assert {e.value for t in external for e in t.external_data if e.key == "location"} == {"m.onnx.data"}


def _onnx_tensors(model: Any) -> list[Any]:
    out = list(model.graph.initializer)
    out += [a.t for n in model.graph.node for a in n.attribute if a.HasField("t")]
    return out


def test_save_model_with_external_data_into_a_named_file_object(tmp_path: pathlib.Path) -> None:
    model = model_with_weights()
    with (tmp_path / "m.onnx").open("wb") as f:
        compat.save_model(model, f, save_as_external_data=True, location="weights.bin")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "weights.bin"]  # no scratch left
    assert (tmp_path / "weights.bin").stat().st_size >= 8192
    (tmp_path / "theirs").mkdir()
    onnx.save_model(
        as_onnx(model),
        str(tmp_path / "theirs" / "m.onnx"),
        save_as_external_data=True,
        location="weights.bin",
    )
    assert serialized_after_onnx_load(tmp_path / "m.onnx") == serialized_after_onnx_load(
        tmp_path / "theirs" / "m.onnx"
    )


def test_external_data_into_a_file_object_with_a_location_in_a_subfolder(tmp_path: pathlib.Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "other.bin").write_bytes(b"kept")
    with (tmp_path / "m.onnx").open("wb") as f:
        compat.save_model(model_with_weights(), f, save_as_external_data=True, location="data/w.bin")
    assert sorted(p.name for p in (tmp_path / "data").iterdir()) == ["other.bin", "w.bin"]
    loaded = compat.load_model(tmp_path / "m.onnx").graph.initializer[0]
    assert (
        numpy_helper.to_array(loaded).tolist() == np.arange(2048, dtype=np.float32).reshape(32, 64).tolist()
    )


def test_save_model_with_external_data_into_an_unnamed_file_object_is_refused() -> None:
    buffer = io.BytesIO()
    with pytest.raises(ExternalDataError, match="needs a path, or a file object whose name is one"):
        compat.save_model(model_with_weights(), buffer, save_as_external_data=True)
    assert buffer.getvalue() == b""


def test_save_tensor_writes_onnxs_bytes(tmp_path: pathlib.Path) -> None:
    array = np.array([0.5, -1.5], dtype=np.float32)
    onnx.save_tensor(onnx.numpy_helper.from_array(array, "t"), str(tmp_path / "theirs.pb"))
    compat.save_tensor(numpy_helper.from_array(array, "t"), tmp_path / "ours.pb")
    assert (tmp_path / "ours.pb").read_bytes() == (tmp_path / "theirs.pb").read_bytes()
    buffer = io.BytesIO()
    compat.save_tensor(numpy_helper.from_array(array, "t"), buffer)
    assert buffer.getvalue() == (tmp_path / "theirs.pb").read_bytes()


def test_models_from_pytorch_round_trip_like_onnx(pytorch_exports: list[Any], tmp_path: pathlib.Path) -> None:
    for export in pytorch_exports:
        model = compat.load_model_from_string(export.data)
        compat.save_model(model, tmp_path / "m.onnx")
        reference = onnx.load_model_from_string(export.data)
        assert (tmp_path / "m.onnx").read_bytes() == reference.SerializeToString(), export.name


# -- refusals --------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore:The onnxtxt format is experimental")
@pytest.mark.parametrize("fmt", ["textproto", "json", "onnxtxt"])
def test_text_formats_are_read_by_onnx_and_read_onnxs(tmp_path: pathlib.Path, fmt: str) -> None:
    model = model_with_weights()
    ours, theirs = tmp_path / "ours.any", tmp_path / "theirs.any"
    compat.save_model(model, ours, format=fmt)
    onnx.save_model(as_onnx(model), theirs, format=fmt)
    assert ours.read_bytes() == theirs.read_bytes()
    assert (
        onnx.load_model(ours, format=fmt).SerializeToString()
        == onnx.load_model(theirs, format=fmt).SerializeToString()
    )
    loaded = onnx.load_model(theirs, format=fmt).SerializeToString()
    assert wirecodec.encode(compat.load_model(theirs, format=fmt)) == loaded


@pytest.mark.filterwarnings("ignore:The onnxtxt format is experimental")
@pytest.mark.parametrize("suffix", [".json", ".textproto", ".onnxtxt", ".pbtxt"])
def test_a_text_file_name_chooses_the_format_as_in_onnx(tmp_path: pathlib.Path, suffix: str) -> None:
    path = tmp_path / f"m{suffix}"
    compat.save_model(model_with_weights(), path)
    assert wirecodec.encode(compat.load_model(path)) == onnx.load_model(path).SerializeToString()


def test_an_unknown_format_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="Unsupported format: 'nonsense'"):
        compat.save_model(model_with_weights(), tmp_path / "m.onnx", format="nonsense")
    assert not (tmp_path / "m.onnx").exists()
    with pytest.raises(ValueError, match="Unsupported format"):
        compat.load_model_from_string(b"", format="nonsense")


def test_wrong_arguments_are_named(tmp_path: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="save_model: f must be a path or a binary file object"):
        compat.save_model(model_with_weights(), 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="save_model: proto must be a ModelProto"):
        compat.save_model(TensorProto(), tmp_path / "m.onnx")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="save_tensor: proto must be a TensorProto"):
        compat.save_tensor(ModelProto(), tmp_path / "t.pb")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="load_model: f must be a path"):
        compat.load_model(3.5)  # type: ignore[arg-type]
