"""load / save / load_tensor / save_tensor against onnx and onnxruntime; atomicity; zero copy."""

from __future__ import annotations

import mmap
import os
import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import ExternalDataError, to_array
from wirecodec.examples.build_mlp import build
from wirecodec.files.load import load, load_tensor
from wirecodec.files.save import save, save_tensor

onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
from onnx import helper, numpy_helper  # noqa: E402


def _reference_model(weights_mb: float = 1.0, seed: int = 0) -> Any:
    """A two-layer MLP built by onnx.helper with about ``weights_mb`` MB of weights."""
    rng = np.random.default_rng(seed)
    hidden = max(8, int(weights_mb * 1e6 / 4 / 64 / 2))
    w1 = rng.standard_normal((64, hidden)).astype(np.float32)
    w2 = rng.standard_normal((hidden, 10)).astype(np.float32)
    small = rng.standard_normal(10).astype(np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h"]),
            helper.make_node("Relu", ["h"], ["a"]),
            helper.make_node("MatMul", ["a", "w2"], ["z"]),
            helper.make_node("Add", ["z", "b"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, ["N", 64])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, ["N", 10])],
        initializer=[
            numpy_helper.from_array(w1, "w1"),
            numpy_helper.from_array(w2, "w2"),
            numpy_helper.from_array(small, "b"),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _arrays(model: ModelProto) -> dict[str, np.ndarray]:
    return {t.name: to_array(t) for t in model.graph.initializer}


def test_load_then_save_is_byte_identical_to_onnx(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_reference_model(), str(path))
    model = load(path)
    save(model, tmp_path / "again.onnx")
    assert (tmp_path / "again.onnx").read_bytes() == path.read_bytes()


def test_load_maps_the_file_and_hands_out_views(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_reference_model(), str(path))
    model = load(path)
    w1 = model.graph.initializer[0]
    assert isinstance(w1.raw_data, memoryview)
    assert isinstance(w1.raw_data.obj, mmap.mmap)
    array = to_array(w1)
    assert not array.flags.writeable
    expected = numpy_helper.to_array(onnx.load(str(path)).graph.initializer[0])
    np.testing.assert_array_equal(array, expected)


@pytest.mark.parametrize("how", ["path", "str", "file", "bytes", "not lazy"])
def test_every_source_kind(tmp_path: pathlib.Path, how: str) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_reference_model(0.1), str(path))
    if how == "path":
        model = load(path)
    elif how == "str":
        model = load(str(path))
    elif how == "file":
        with path.open("rb") as file:
            model = load(file)
            assert file.tell() == path.stat().st_size  # consumed, as onnx.load leaves it
    elif how == "bytes":
        model = load(path.read_bytes())
    else:
        model = load(path, lazy=False)
        assert not isinstance(model.graph.initializer[0].raw_data.obj, mmap.mmap)
    assert wirecodec.encode(model) == path.read_bytes()


def test_external_data_written_by_onnx_loads_with_ours(tmp_path: pathlib.Path) -> None:
    reference = _reference_model()
    onnx.save_model(
        reference, str(tmp_path / "m.onnx"), save_as_external_data=True, location="w.bin", size_threshold=100
    )
    ours = load(tmp_path / "m.onnx")
    theirs = onnx.load(str(tmp_path / "m.onnx"))
    assert {t.name for t in ours.graph.initializer if t.data_location == 0} == {"w1", "w2", "b"}
    for mine, other in zip(ours.graph.initializer, theirs.graph.initializer, strict=True):
        np.testing.assert_array_equal(to_array(mine), numpy_helper.to_array(other))
        assert isinstance(mine.raw_data.obj, mmap.mmap)
    # Loaded the same way onnx loads: re-serialized, both give the same bytes.
    assert wirecodec.encode(ours) == theirs.SerializeToString()


def test_load_external_data_false_keeps_references(tmp_path: pathlib.Path) -> None:
    onnx.save_model(
        _reference_model(), str(tmp_path / "m.onnx"), save_as_external_data=True, size_threshold=100
    )
    model = load(tmp_path / "m.onnx", load_external_data=False)
    w1 = model.graph.initializer[0]
    assert w1.data_location == TensorProto.DataLocation.EXTERNAL
    assert {e.key for e in w1.external_data} >= {"location", "offset", "length"}
    assert wirecodec.encode(model) == (tmp_path / "m.onnx").read_bytes()


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"all_tensors_to_one_file": False},
        {"max_shard_size": 300_000},
        {"location": "sub_dir_free_name.weights", "align": 65536},
        {"size_threshold": 0},
    ],
    ids=["one-file", "per-tensor", "sharded", "location+align", "everything"],
)
def test_external_data_written_by_ours_loads_with_onnx(
    tmp_path: pathlib.Path, options: dict[str, Any]
) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_reference_model(), str(path))
    original = load(path)
    before = wirecodec.encode(original)
    save(original, tmp_path / "ext.onnx", external_data=True, **options)
    assert wirecodec.encode(original) == before  # the caller's model is untouched
    theirs = onnx.load(str(tmp_path / "ext.onnx"))
    expected = _arrays(original)
    assert {t.name: numpy_helper.to_array(t).tobytes() for t in theirs.graph.initializer} == {
        name: array.tobytes() for name, array in expected.items()
    }
    ours = load(tmp_path / "ext.onnx")
    assert {name: a.tobytes() for name, a in _arrays(ours).items()} == {
        name: a.tobytes() for name, a in expected.items()
    }
    align = options.get("align", 4096)
    for tensor in load(tmp_path / "ext.onnx", load_external_data=False).graph.initializer:
        if tensor.data_location == TensorProto.DataLocation.EXTERNAL:
            entries = {e.key: e.value for e in tensor.external_data}
            step = align if int(entries["length"]) >= align else 64
            assert int(entries["offset"]) % step == 0


def test_sharding_never_splits_a_tensor(tmp_path: pathlib.Path) -> None:
    onnx.save(_reference_model(), str(tmp_path / "m.onnx"))
    save(load(tmp_path / "m.onnx"), tmp_path / "s.onnx", external_data=True, max_shard_size=1)
    model = load(tmp_path / "s.onnx", load_external_data=False)
    locations = [
        {e.key: e.value for e in t.external_data}["location"]
        for t in model.graph.initializer
        if t.data_location == TensorProto.DataLocation.EXTERNAL
    ]
    assert len(locations) == len(set(locations)) == 2


def test_onnxruntime_runs_a_model_we_saved_with_external_data(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    reference = _reference_model(2.0)
    x = np.random.default_rng(1).standard_normal((3, 64)).astype(np.float32)
    want = ort.InferenceSession(reference.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )[0]
    model = wirecodec.decode(ModelProto, reference.SerializeToString())
    save(model, tmp_path / "ext.onnx", external_data=True)
    assert (tmp_path / "ext.onnx.data").stat().st_size > 1_000_000
    got = ort.InferenceSession(str(tmp_path / "ext.onnx"), providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )[0]
    np.testing.assert_array_equal(got, want)


def test_saving_over_the_file_a_model_is_mapped_from(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    onnx.save(_reference_model(), str(path))
    original = path.read_bytes()
    model = load(path)  # raw_data are views of the map of this very file
    model.producer_name = "changed"
    save(model, path)
    again = load(path)
    assert again.producer_name == "changed"
    assert _arrays(again)["w1"].tobytes() == _arrays(wirecodec.decode(ModelProto, original))["w1"].tobytes()


def test_a_failed_save_leaves_the_old_file_and_no_temporaries(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    save(build(), path)
    before = path.read_bytes()
    broken = build()
    list.append(broken.graph.node[0].input, 7)  # past the container's check
    with pytest.raises(wirecodec.EncodeError):
        save(broken, path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]


def test_a_crash_while_writing_leaves_the_old_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.onnx"
    save(build(), path, external_data=True, size_threshold=1)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def fail(*args: object) -> None:
        raise OSError(28, "No space left on device")

    # The model file is written last, after its data files: fail there.
    monkeypatch.setattr(wirecodec.protobuf.stream_encode.Plan, "write", fail)
    with pytest.raises(OSError, match="No space"):
        save(build(), path, external_data=True, size_threshold=1)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("location", ["../escape.data", "/tmp/abs.data", "a/../../b.data", "C:\\x.data", ""])
def test_save_refuses_locations_outside_the_directory(tmp_path: pathlib.Path, location: str) -> None:
    with pytest.raises(ExternalDataError):
        save(build(), tmp_path / "m.onnx", external_data=True, size_threshold=1, location=location or "..")
    assert list(tmp_path.iterdir()) == []


def test_tensor_files(tmp_path: pathlib.Path) -> None:
    array = np.arange(12, dtype=np.int64).reshape(3, 4)
    path = tmp_path / "t.pb"
    save_tensor(wirecodec.from_array(array, "t"), path)
    assert path.read_bytes() == numpy_helper.from_array(array, "t").SerializeToString()
    np.testing.assert_array_equal(to_array(load_tensor(path)), array)
    np.testing.assert_array_equal(to_array(load_tensor(path.read_bytes())), array)


def test_bytes_source_with_external_data_needs_base_dir(tmp_path: pathlib.Path) -> None:
    onnx.save_model(
        _reference_model(), str(tmp_path / "m.onnx"), save_as_external_data=True, size_threshold=100
    )
    data = (tmp_path / "m.onnx").read_bytes()
    with pytest.raises(ExternalDataError, match="base_dir"):
        load(data)
    model = load(data, base_dir=tmp_path)
    assert _arrays(model)["w1"].shape == (64, _arrays(model)["w1"].shape[1])


def test_lazy_load_does_not_read_the_weights(tmp_path: pathlib.Path) -> None:
    psutil = pytest.importorskip("psutil", reason="psutil measures resident memory (test extra)")
    path = tmp_path / "big.onnx"
    onnx.save(_reference_model(200.0), str(path))
    size = path.stat().st_size
    fd = os.open(path, os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)  # start with the file out of the page cache
    os.close(fd)
    process = psutil.Process()
    before = process.memory_info().rss
    model = load(path)
    arrays = _arrays(model)
    after = process.memory_info().rss
    assert sum(a.nbytes for a in arrays.values()) > 0.9 * size
    assert after - before < 0.5 * size, (
        f"RSS grew by {(after - before) / 1e6:.0f} MB for a {size / 1e6:.0f} MB model"
    )
