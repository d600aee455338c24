"""``onnx_compat.save_model(..., save_as_external_data=True)`` writes onnx's files, byte for byte.

The same model is saved by onnx and by wirecodec.onnx_compat into two empty folders; the
folders must hold the same file names with the same bytes: which tensors move (only those
with ``raw_data``, counted as onnx counts), in which order, at which offsets, under which
names. onnx's default data-file name is random (a uuid): there ours is
``<model file name>.data``, and the files are compared with that one name swapped.
"""

from __future__ import annotations

import io
import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper, numpy_helper
from wirecodec import onnx_compat as compat
from wirecodec.onnx_compat import external_data_helper

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def layered_model() -> ModelProto:
    """Tensors on every side of onnx's rules: raw and typed data, sizes around the threshold
    (992 bytes moves: onnx counts ``sys.getsizeof``), a subgraph initializer, attribute tensors."""
    raw_big = numpy_helper.from_array(np.arange(1024, dtype=np.float32), "W")
    typed_big = helper.make_tensor("F", TensorProto.FLOAT, [512], np.linspace(0, 1, 512).tolist())
    near = numpy_helper.from_array(np.arange(248, dtype=np.float32), "near")  # 992 bytes
    below = numpy_helper.from_array(np.arange(240, dtype=np.float32), "below")  # 960 bytes
    small = numpy_helper.from_array(np.array([1.0, 2.0], dtype=np.float32), "b")
    odd = numpy_helper.from_array(np.arange(301, dtype=np.int8), "odd")  # an unaligned length
    branch_weight = numpy_helper.from_array(np.ones(600, dtype=np.float32), "Wb")
    then_graph = helper.make_graph(
        [helper.make_node("Add", ["X", "Wb"], ["T"])],
        "then",
        [],
        [helper.make_tensor_value_info("T", TensorProto.FLOAT, [600])],
        [branch_weight],
    )
    else_graph = helper.make_graph(
        [helper.make_node("Identity", ["X"], ["E"])],
        "else",
        [],
        [helper.make_tensor_value_info("E", TensorProto.FLOAT, [600])],
    )
    constant = helper.make_node(
        "Constant", [], ["C"], value=numpy_helper.from_array(np.full(700, 3, np.float32), "c")
    )
    graph = helper.make_graph(
        [
            constant,
            helper.make_node("If", ["cond"], ["Y"], then_branch=then_graph, else_branch=else_graph),
        ],
        "g",
        [
            helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
            helper.make_tensor_value_info("X", TensorProto.FLOAT, [600]),
        ],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [600])],
        [raw_big, typed_big, near, below, small, odd],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def folder_contents(folder: pathlib.Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def save_both(
    tmp_path: pathlib.Path, model: ModelProto, their_model: Any, **options: Any
) -> tuple[dict, dict]:
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    ours.mkdir()
    theirs.mkdir()
    onnx.save_model(their_model, str(theirs / "m.onnx"), **options)
    before = wirecodec.encode(model)
    compat.save_model(model, ours / "m.onnx", **options)
    assert wirecodec.encode(model) == before  # the caller's model is left as it was (onnx rewrites its own)
    return folder_contents(ours), folder_contents(theirs)


@pytest.mark.parametrize("size_threshold", [0, 1024, 3000])
@pytest.mark.parametrize("convert_attribute", [False, True])
@pytest.mark.parametrize("one_file", [True, False])
def test_same_files_as_onnx(
    tmp_path: pathlib.Path, one_file: bool, convert_attribute: bool, size_threshold: int
) -> None:
    model = layered_model()
    options = {
        "save_as_external_data": True,
        "all_tensors_to_one_file": one_file,
        "size_threshold": size_threshold,
        "convert_attribute": convert_attribute,
    }
    if one_file:
        options["location"] = "weights.bin"
    ours, theirs = save_both(tmp_path, model, onnx.load_from_string(wirecodec.encode(model)), **options)
    assert list(ours) == list(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], name


@pytest.mark.parametrize("one_file", [True, False])
@pytest.mark.parametrize("held", [1, 4096, 4097], ids=["1-byte", "4-KiB", "4-KiB-and-1"])
def test_a_data_file_already_there_is_appended_to_as_onnx_does(
    tmp_path: pathlib.Path, one_file: bool, held: int
) -> None:
    """A data file another model points into keeps its bytes: onnx appends the new tensors
    after them (offsets past them), and so must we; every data file, and the model, are
    then onnx's bytes."""
    model = layered_model()
    options: dict[str, Any] = {"save_as_external_data": True, "all_tensors_to_one_file": one_file}
    if one_file:
        options["location"] = "weights.bin"
    there = ["weights.bin"] if one_file else ["W", "F", "odd"]
    for side in ("ours", "theirs"):
        (tmp_path / side).mkdir()
        for name in there:
            (tmp_path / side / name).write_bytes(bytes(range(256)) * (held // 256) + b"k" * (held % 256))
    onnx.save_model(
        onnx.load_from_string(wirecodec.encode(model)), str(tmp_path / "theirs" / "m.onnx"), **options
    )
    compat.save_model(model, tmp_path / "ours" / "m.onnx", **options)
    ours, theirs = folder_contents(tmp_path / "ours"), folder_contents(tmp_path / "theirs")
    assert list(ours) == list(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], name
    for name in there:
        assert ours[name][:held] == (bytes(range(256)) * (held // 256) + b"k" * (held % 256))


@pytest.mark.quick
def test_the_992_byte_tensor_moves_and_the_typed_one_stays(tmp_path: pathlib.Path) -> None:
    model = layered_model()
    compat.save_model(model, tmp_path / "m.onnx", save_as_external_data=True, location="w.bin")
    saved = compat.load_model(tmp_path / "m.onnx", load_external_data=False)
    moved = [t.name for t in saved.graph.initializer if external_data_helper.uses_external_data(t)]
    assert moved == ["W", "near"]
    loaded = compat.load_model(tmp_path / "m.onnx")
    assert wirecodec.to_array(loaded.graph.initializer[2]).tolist() == list(range(248))


def test_default_name_is_the_model_files_and_the_rest_is_onnxs(tmp_path: pathlib.Path) -> None:
    model = layered_model()
    ours, theirs = save_both(
        tmp_path, model, onnx.load_from_string(wirecodec.encode(model)), save_as_external_data=True
    )
    (random_name,) = [name for name in theirs if name != "m.onnx"]
    assert sorted(ours) == ["m.onnx", "m.onnx.data"]
    assert ours["m.onnx.data"] == theirs[random_name]
    renamed = onnx.load_from_string(theirs["m.onnx"])
    for tensor in onnx.external_data_helper._get_all_tensors(renamed):
        for entry in tensor.external_data:
            if entry.key == "location":
                assert entry.value == random_name
                entry.value = "m.onnx.data"
    assert ours["m.onnx"] == renamed.SerializeToString()


def test_tensors_marked_before_the_save_keep_their_files_and_offsets(tmp_path: pathlib.Path) -> None:
    model = layered_model()
    their_model = onnx.load_from_string(wirecodec.encode(model))
    for tensor, marked_by in (
        (model.graph.initializer[0], external_data_helper),
        (their_model.graph.initializer[0], onnx.external_data_helper),
    ):
        marked_by.set_external_data(tensor, "pre.bin", offset=16)
    ours, theirs = save_both(
        tmp_path, model, their_model, save_as_external_data=True, location="w.bin", size_threshold=5000
    )
    assert sorted(ours) == sorted(theirs) == ["m.onnx", "pre.bin"]
    assert ours == theirs


def test_into_a_named_file_object_as_onnx(tmp_path: pathlib.Path) -> None:
    model = layered_model()
    (tmp_path / "theirs").mkdir()
    onnx.save_model(
        onnx.load_from_string(wirecodec.encode(model)),
        str(tmp_path / "theirs" / "m.onnx"),
        save_as_external_data=True,
        location="w.bin",
    )
    (tmp_path / "ours").mkdir()
    with (tmp_path / "ours" / "m.onnx").open("wb") as f:
        compat.save_model(model, f, save_as_external_data=True, location="w.bin")
    assert folder_contents(tmp_path / "ours") == folder_contents(tmp_path / "theirs")


def test_an_unnamed_file_object_is_still_refused() -> None:
    with pytest.raises(wirecodec.ExternalDataError, match="needs a path"):
        compat.save_model(layered_model(), io.BytesIO(), save_as_external_data=True)


def test_a_data_file_that_is_a_symlink_is_refused_as_onnx_refuses_it(tmp_path: pathlib.Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"kept")
    (tmp_path / "w.bin").symlink_to(secret)
    with pytest.raises(compat.checker.ValidationError, match="symbolic link"):
        compat.save_model(layered_model(), tmp_path / "m.onnx", save_as_external_data=True, location="w.bin")
    assert secret.read_bytes() == b"kept" and not (tmp_path / "m.onnx").exists()
