"""Loading through the sparse copy gives exactly what a plain decode gives, and never touches payloads."""

from __future__ import annotations

import pathlib
import random

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec import DecodeError
from wirecodec.files.load import load
from wirecodec.files.opener import _Mapped
from wirecodec.protobuf.sparse import payload_ranges


def _weights_model(path: pathlib.Path, tensors: int = 4, floats: int = 300_000) -> bytes:
    rng = np.random.default_rng(5)
    initializer = [
        wirecodec.from_array(rng.standard_normal(floats).astype(np.float32), f"w{i}") for i in range(tensors)
    ]
    initializer.append(wirecodec.from_array(np.arange(10, dtype=np.int64), "small"))
    data = wirecodec.encode(ModelProto(ir_version=9, graph=GraphProto(name="g", initializer=initializer)))
    path.write_bytes(data)
    return data


def test_weight_heavy_files_use_the_sparse_copy(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    data = _weights_model(path)
    with path.open("rb") as file:
        mapped = _Mapped(file.fileno(), path.stat().st_size, str(path), ModelProto)
        ranges = payload_ranges(file.fileno(), len(data), ModelProto)
    assert mapped.shadow is not None
    assert ranges is not None and len(ranges) == 4  # the four big raw_data, not the small one
    model = load(path)
    assert model == wirecodec.decode(ModelProto, data)
    assert wirecodec.encode(model) == data
    assert all(type(t.raw_data.obj).__name__ == "mmap" for t in model.graph.initializer)


def test_structure_heavy_files_decode_the_map_directly(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(
        wirecodec.encode(ModelProto(graph=GraphProto(initializer=[TensorProto(name="x" * 2_000_000)])))
    )
    with path.open("rb") as file:
        assert _Mapped(file.fileno(), path.stat().st_size, str(path), ModelProto).shadow is None


def test_corrupted_files_fail_the_same_way(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    original = _weights_model(path, tensors=3, floats=200_000)
    rng = random.Random(11)
    # Mutate header bytes (the first 64 bytes of each tensor) and truncations.
    header_positions = [
        i for start, _ in payload_ranges_of(original) for i in range(max(0, start - 64), start)
    ]
    for trial in range(150):
        data = bytearray(original)
        if trial % 3 == 0:
            del data[rng.randrange(len(data)) :]
        else:
            data[rng.choice(header_positions)] = rng.randrange(256)
        path.write_bytes(bytes(data))
        try:
            expected = wirecodec.decode(ModelProto, bytes(data))
        except DecodeError as exc:
            with pytest.raises(DecodeError) as info:
                load(path)
            assert (info.value.reason, info.value.offset, info.value.path) == (
                exc.reason,
                exc.offset,
                exc.path,
            )
            continue
        got = load(path)
        assert got == expected
        assert wirecodec.encode(got) == wirecodec.encode(expected)


def payload_ranges_of(data: bytes) -> list[tuple[int, int]]:
    import os
    import tempfile

    fd, name = tempfile.mkstemp()
    try:
        os.write(fd, data)
        ranges = payload_ranges(fd, len(data), ModelProto)
    finally:
        os.close(fd)
        os.unlink(name)
    assert ranges
    return ranges
