"""The write-back's names and places: per-tensor files whose names differ only in case, a
shard filled exactly, a fresh data file name that is no shard's, and a reference kept in
place but written from another folder (its location rewritten from the new model's folder).
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, OperatorSetIdProto
from wirecodec.files.base.references import parse_ref, uses_external_data
from wirecodec.numpy_helper import from_array, to_array


def _model(**weights: np.ndarray) -> ModelProto:
    names = list(weights)
    graph = GraphProto(
        name="g",
        node=[NodeProto(op_type="Sum", input=names, output=["y"])],
        initializer=[from_array(array, name) for name, array in weights.items()],
    )
    return ModelProto(ir_version=8, graph=graph, opset_import=[OperatorSetIdProto(domain="", version=13)])


def _locations(path: pathlib.Path) -> dict[str, str]:
    model = wirecodec.load(path, load_external_data=False)
    return {t.name: parse_ref(t).location for t in model.graph.initializer if uses_external_data(t)}


@pytest.mark.parametrize("names", [("W", "w"), ("w", "W")])
def test_per_tensor_files_of_names_differing_in_case_are_distinct_on_any_file_system(
    tmp_path: pathlib.Path, names: tuple[str, str]
) -> None:
    # macOS and Windows file systems ignore case: 'W' and 'w' would be one file there.
    first, second = names
    model = _model(**{first: np.ones(16, np.float32), second: np.full(16, 2, np.float32)})
    wirecodec.save(
        model, tmp_path / "m.onnx", external_data=True, size_threshold=0, all_tensors_to_one_file=False
    )
    places = _locations(tmp_path / "m.onnx")
    assert len({location.lower() for location in places.values()}) == 2, places
    loaded = wirecodec.load(tmp_path / "m.onnx")
    assert [float(to_array(t)[0]) for t in loaded.graph.initializer] == [1.0, 2.0]


def test_a_tensor_that_fills_a_shard_exactly_stays_in_that_shard(tmp_path: pathlib.Path) -> None:
    # Two 64-byte tensors at 64-byte alignment fill a 128-byte shard exactly: one shard.
    model = _model(a=np.ones(16, np.float32), b=np.ones(16, np.float32))
    wirecodec.save(
        model, tmp_path / "m.onnx", external_data=True, size_threshold=0, align=64, max_shard_size=128
    )
    assert set(_locations(tmp_path / "m.onnx").values()) == {"m.onnx.data.0"}
    assert (tmp_path / "m.onnx.data.0").stat().st_size == 128


def test_a_fresh_data_file_name_is_not_the_name_of_a_shard(tmp_path: pathlib.Path) -> None:
    (tmp_path / "m.onnx.data").write_bytes(b"someone else's")
    wirecodec.save(
        _model(a=np.ones(16, np.float32)), tmp_path / "m.onnx", external_data=True, size_threshold=0
    )
    assert set(_locations(tmp_path / "m.onnx").values()) == {"m.onnx.1.data"}
    assert (tmp_path / "m.onnx.data").read_bytes() == b"someone else's"


def test_a_reference_kept_from_a_subfolder_names_its_file_from_the_new_model(tmp_path: pathlib.Path) -> None:
    # infer_shapes_path keeps the layout: the data file still resolves from the folder above,
    # so it is kept, unread, and its location must now say 'sub/...'.
    sub = tmp_path / "sub"
    sub.mkdir()
    weights = np.arange(32, dtype=np.float32)
    wirecodec.save(_model(a=weights), sub / "m.onnx", external_data=True, size_threshold=0)
    from wirecodec.shape_inference import infer_shapes_path

    infer_shapes_path(sub / "m.onnx", tmp_path / "up.onnx")
    assert _locations(tmp_path / "up.onnx") == {"a": "sub/m.onnx.data"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub", "up.onnx"]  # nothing copied
    np.testing.assert_array_equal(
        to_array(wirecodec.load(tmp_path / "up.onnx").graph.initializer[0]), weights
    )


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_the_data_file_read_from_is_not_written_over_through_a_symlinked_folder(
    tmp_path: pathlib.Path,
) -> None:
    # The model is read through link/ (a link to real/), its weights from link/m.onnx.data; a
    # convert into real/ naming that very file must be refused (it would be truncated while read).
    real = tmp_path / "real"
    real.mkdir()
    wirecodec.save(
        _model(a=np.arange(32, dtype=np.float32)), real / "m.onnx", external_data=True, size_threshold=0
    )
    before = (real / "m.onnx.data").read_bytes()
    try:
        os.symlink(real, tmp_path / "link", target_is_directory=True)
    except OSError as exc:  # pragma: no cover - Windows without the privilege
        pytest.skip(f"cannot make a symbolic link here: {exc}")
    with pytest.raises(wirecodec.ExternalDataError, match="read from"):
        wirecodec.convert(
            tmp_path / "link" / "m.onnx",
            real / "n.onnx",
            to="external",
            location="m.onnx.data",
            size_threshold=0,
        )
    assert (real / "m.onnx.data").read_bytes() == before
