"""Big model and data files are mapped with their descriptor, so a save copies payloads in the kernel.

``wirecodec.files.base.mapping``: from ``KEEP_DESCRIPTOR_FROM`` bytes on, ``load`` and the
external-data store map a file as a ``SourceMap``; saving a model whose tensors view it
then moves their bytes with ``copy_file_range`` (docs/performance.md), and the output is
the same bytes either way. The threshold is lowered here so the files stay small.
"""

from __future__ import annotations

import gc
import mmap
import os
import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec.files.base import mapping
from wirecodec.protobuf.payloads import SourceMap
from wirecodec.protobuf.wire import varint_size

THRESHOLD = 1 << 20


@pytest.fixture(autouse=True)
def _small_threshold(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mapping, "KEEP_DESCRIPTOR_FROM", THRESHOLD)


def _model(megabytes: int) -> ModelProto:
    rng = np.random.default_rng(7)
    graph = GraphProto(name="g")
    for i in range(megabytes):
        weights = rng.standard_normal(1 << 18).astype(np.float32)  # 1 MiB each
        graph.initializer.append(wirecodec.from_array(weights, f"w{i}"))
    small = TensorProto(name="small", dims=[2], data_type=TensorProto.FLOAT, float_data=[1, 2])
    graph.initializer.append(small)
    return ModelProto(ir_version=10, graph=graph)


def _count_copies(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    copied: list[int] = []
    real = os.copy_file_range

    def counting(*args: Any, **kwargs: Any) -> int:
        moved = real(*args, **kwargs)
        copied.append(moved)
        return moved

    monkeypatch.setattr(os, "copy_file_range", counting)
    return copied


@pytest.mark.skipif(not hasattr(os, "copy_file_range"), reason="copy_file_range is Linux-only")
def test_saving_a_big_loaded_model_copies_in_the_kernel(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "big.onnx"
    wirecodec.save(_model(3), source)
    model = wirecodec.load(source)
    assert isinstance(model.graph.initializer[0].raw_data.obj, SourceMap)
    copied = _count_copies(monkeypatch)
    wirecodec.save(model, tmp_path / "copy.onnx")
    # Nothing changed: the model's own bytes are re-emitted, all of them file to file.
    assert sum(copied) == source.stat().st_size
    assert (tmp_path / "copy.onnx").read_bytes() == source.read_bytes()
    copied.clear()
    model.graph.name = "changed"
    wirecodec.save(model, tmp_path / "changed.onnx")
    # The initializer field is unchanged: its records (tags and lengths included) are
    # re-emitted as one range, file to file; the rest is encoded.
    records = sum(1 + varint_size(t.ByteSize()) + t.ByteSize() for t in model.graph.initializer)
    assert copied == [records]
    reference = wirecodec.load(source, lazy=False)
    reference.graph.name = "changed"
    assert (tmp_path / "changed.onnx").read_bytes() == wirecodec.encode(reference)


def test_a_small_file_keeps_no_descriptor(tmp_path: pathlib.Path) -> None:
    source = tmp_path / "small.onnx"
    wirecodec.save(_model(0), source)
    with source.open("rb") as file:
        mapped = mapping.map_read_only(file.fileno(), source.stat().st_size, str(source))
    assert type(mapped) is mmap.mmap
    mapped.close()


def test_the_descriptor_outlives_the_callers_file_and_closes_with_the_map(tmp_path: pathlib.Path) -> None:
    source = tmp_path / "big.onnx"
    wirecodec.save(_model(2), source)
    with source.open("rb") as file:
        model = wirecodec.load(file)
    whole = model.graph.initializer[0].raw_data.obj
    assert isinstance(whole, SourceMap)
    descriptor = whole.fd
    assert os.path.samestat(os.fstat(descriptor), source.stat())  # open, on the model file
    eager = wirecodec.load(source, lazy=False)
    for ours, theirs in zip(model.graph.initializer, eager.graph.initializer, strict=True):
        assert np.array_equal(wirecodec.to_array(ours), wirecodec.to_array(theirs))
    del model, whole
    gc.collect()
    with pytest.raises(OSError):
        os.fstat(descriptor)  # closed once nothing viewed the map


@pytest.mark.skipif(not hasattr(os, "copy_file_range"), reason="copy_file_range is Linux-only")
def test_external_data_files_are_mapped_the_same_way(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "ext.onnx"
    wirecodec.save(_model(2), source, external_data=True)
    model = wirecodec.load(source)
    views = [t.raw_data for t in model.graph.initializer[:2]]
    assert all(isinstance(v.obj, SourceMap) for v in views)
    copied = _count_copies(monkeypatch)
    wirecodec.save(model, tmp_path / "inline.onnx")
    assert sum(copied) == 2 << 20
    assert wirecodec.load(tmp_path / "inline.onnx") == model
