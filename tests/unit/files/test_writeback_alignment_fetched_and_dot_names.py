"""Three corners of the write-back (wirecodec.files.writeback): tensors smaller than the
page alignment are packed at 64-byte steps (the data file is not mostly zeros); a small
tensor of a model by URL that stays inline is fetched and written as its bytes; a tensor
whose name starts with dots gets its own data file under a plain name, never ``..`` (the
model's parent folder) nor a hidden file. Each output is read back by onnx too."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, OperatorSetIdProto
from tests.support.http_server import Nginx
from tests.support.reference import require_onnx
from wirecodec.files.base.references import parse_ref, uses_external_data
from wirecodec.numpy_helper import from_array

onnx = require_onnx()


def _model(weights: dict[str, np.ndarray]) -> ModelProto:
    graph = GraphProto(
        name="g",
        node=[NodeProto(op_type="Sum", input=list(weights), output=["y"])],
        initializer=[from_array(array, name) for name, array in weights.items()],
    )
    return ModelProto(ir_version=8, graph=graph, opset_import=[OperatorSetIdProto(domain="", version=13)])


def _references(path: pathlib.Path) -> dict[str, tuple[str, int, int]]:
    model = wirecodec.load(path, load_external_data=False)
    found = {}
    for tensor in model.graph.initializer:
        if uses_external_data(tensor):
            ref = parse_ref(tensor)
            found[tensor.name] = (ref.location, ref.offset, ref.length)
    return found


def _onnx_values(path: pathlib.Path) -> dict[str, np.ndarray]:
    model = onnx.load(str(path))
    return {t.name: onnx.numpy_helper.to_array(t) for t in model.graph.initializer}


def test_tensors_below_the_alignment_are_packed_at_64_byte_steps(tmp_path: pathlib.Path) -> None:
    weights = {
        "a": np.arange(16, dtype=np.float32),  # 64 bytes
        "b": np.arange(10, dtype=np.float32),  # 40 bytes
        "c": np.arange(2000, dtype=np.float32),  # 8000 bytes: at least a page, page-aligned
    }
    wirecodec.save(_model(weights), tmp_path / "m.onnx", external_data=True, size_threshold=0)
    assert _references(tmp_path / "m.onnx") == {
        "a": ("m.onnx.data", 0, 64),
        "b": ("m.onnx.data", 64, 40),
        "c": ("m.onnx.data", 4096, 8000),
    }
    assert (tmp_path / "m.onnx.data").stat().st_size == 4096 + 8000
    got = _onnx_values(tmp_path / "m.onnx")
    for name, array in weights.items():
        np.testing.assert_array_equal(got[name], array)


@pytest.mark.parametrize("name", ["..", ".w", "...", "./w"])
def test_a_tensor_named_with_leading_dots_gets_a_plain_file_name(tmp_path: pathlib.Path, name: str) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    weights = {name: np.arange(16, dtype=np.float32), "v": np.ones(16, np.float32)}
    wirecodec.save(
        _model(weights),
        folder / "m.onnx",
        external_data=True,
        size_threshold=0,
        all_tensors_to_one_file=False,
    )
    location = _references(folder / "m.onnx")[name][0]
    assert not location.startswith("."), location
    assert (folder / location).is_file() and (folder / location).parent == folder
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # nothing beside the folder
    got = _onnx_values(folder / "m.onnx")
    np.testing.assert_array_equal(got[name], weights[name])


def test_a_small_tensor_of_a_model_by_url_kept_inline_is_written_as_its_bytes(
    nginx_server: Nginx, tmp_path: pathlib.Path
) -> None:
    weights = {"big": np.arange(4096, dtype=np.float32), "small": np.arange(4, dtype=np.float32)}
    (nginx_server.root / "ext0").mkdir()
    # every tensor in the data file, the small one too
    wirecodec.save(
        _model(weights), nginx_server.root / "ext0" / "m.onnx", external_data=True, size_threshold=0
    )
    wirecodec.convert(nginx_server.url("ext0/m.onnx"), tmp_path / "m.onnx", to="external")
    refs = _references(tmp_path / "m.onnx")
    assert set(refs) == {"big"}  # the small one (16 bytes, under 1024) is inline
    got = _onnx_values(tmp_path / "m.onnx")
    for name, array in weights.items():
        np.testing.assert_array_equal(got[name], array)
