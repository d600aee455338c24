"""The one write-back (wirecodec.files.writeback): keep the layout, delete nothing, write
over no file the model reads, and never refer to a data file that changed since it was read."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.opener import open_model
from wirecodec.files.writeback import write_back


def _model(offset: float = 0.0) -> ModelProto:
    tensors = [
        wirecodec.from_array(np.arange(2048, dtype=np.float32) + offset, "big"),
        wirecodec.from_array(np.arange(4, dtype=np.float32) + offset, "small"),
        wirecodec.from_array(np.zeros((0,), dtype=np.float32), "empty"),
    ]
    return ModelProto(ir_version=9, graph=GraphProto(name="g", initializer=tensors))


def _arrays(path: pathlib.Path) -> dict[str, list[float]]:
    return {t.name: wirecodec.to_array(t).tolist() for t in wirecodec.load(path).graph.initializer}


def _locations(path: pathlib.Path) -> dict[str, str]:
    stored = wirecodec.load(path, load_external_data=False).graph.initializer
    return {t.name: e.value for t in stored for e in t.external_data if e.key == "location"}


@pytest.fixture
def external(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "a.onnx"
    wirecodec.save(_model(), path, external_data=True, size_threshold=0)
    return path


@pytest.mark.quick
def test_a_loaded_model_saved_in_place_keeps_its_references_unread(external: pathlib.Path) -> None:
    data = external.with_name("a.onnx.data")
    stamp = data.stat().st_ino, data.stat().st_mtime_ns
    written = write_back(wirecodec.load(external), external, "external")
    assert (written.data_files, written.kept) == ((), ("a.onnx.data",))
    assert (data.stat().st_ino, data.stat().st_mtime_ns) == stamp
    # (An empty tensor holds no bytes to point at: it is written inline.)
    assert _locations(external) == {"big": "a.onnx.data", "small": "a.onnx.data"}
    assert _arrays(external) == {"big": list(range(2048)), "small": [0, 1, 2, 3], "empty": []}


def test_convert_to_another_file_writes_a_copy_that_stands_alone(external: pathlib.Path) -> None:
    other = external.with_name("b.onnx")
    wirecodec.convert(external, other, to="external", size_threshold=0)
    assert set(_locations(other).values()) == {"b.onnx.data"}
    assert _arrays(other) == _arrays(external)


def test_a_data_file_replaced_since_it_was_loaded_is_not_referred_to(external: pathlib.Path) -> None:
    model = wirecodec.load(external)
    before = {t.name: wirecodec.to_array(t).tolist() for t in model.graph.initializer}
    # Another program writes new weights under the same names (a new file, renamed over).
    other = external.parent / "other"
    other.mkdir()
    wirecodec.save(_model(offset=100.0), other / "a.onnx", external_data=True, size_threshold=0)
    os.replace(other / "a.onnx.data", external.with_name("a.onnx.data"))
    copy = external.with_name("copy.onnx")
    wirecodec.save(model, copy, external_data=True, size_threshold=0)
    # The views still show the bytes that were loaded: those are written, not a reference.
    assert set(_locations(copy).values()) == {"copy.onnx.data"}
    assert _arrays(copy) == before


def test_the_callers_model_is_not_changed(external: pathlib.Path, tmp_path: pathlib.Path) -> None:
    model = _model()
    wirecodec.save(model, tmp_path / "m.onnx", external_data=True, size_threshold=0)
    assert [t.HasField("data_location") for t in model.graph.initializer] == [False] * 3
    assert [len(t.raw_data) for t in model.graph.initializer] == [8192, 16, 0]
    loaded = wirecodec.load(external)
    wirecodec.save(loaded, tmp_path / "n.onnx", external_data=True, size_threshold=0)
    assert [(t.data_location, len(t.external_data)) for t in loaded.graph.initializer] == [(0, 0)] * 3


def test_a_data_file_the_model_reads_is_never_written_over(external: pathlib.Path) -> None:
    data = external.with_name("a.onnx.data")
    before = data.read_bytes()
    with pytest.raises(ExternalDataError, match="read from that file"):
        wirecodec.convert(external, external.with_name("b.onnx"), to="external", location="a.onnx.data")
    assert data.read_bytes() == before
    assert not external.with_name("b.onnx").exists()


def test_a_reference_that_does_not_resolve_from_the_output_is_copied_beside_it(
    external: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    opened = open_model(external)
    out = tmp_path / "sub" / "m.onnx"
    out.parent.mkdir()
    written = write_back(opened.model, out, "external", source=opened.data, move_inline=False)
    assert written.data_files == ("m.onnx.data",) and written.kept == ()
    # Every tensor that was external stays external, however small (the layout is kept).
    assert _locations(out) == {"big": "m.onnx.data", "small": "m.onnx.data", "empty": "m.onnx.data"}
    assert _arrays(out) == _arrays(external)


def test_a_model_above_its_data_refers_to_it_by_a_relative_path(tmp_path: pathlib.Path) -> None:
    inner = tmp_path / "inner" / "a.onnx"
    inner.parent.mkdir()
    wirecodec.save(_model(), inner, external_data=True, size_threshold=0)
    written = write_back(wirecodec.load(inner), tmp_path / "top.onnx", "external")
    assert written.kept == ("inner/a.onnx.data",) and written.data_files == ()
    assert _arrays(tmp_path / "top.onnx") == _arrays(inner)
