"""A model read from a file object starts where the file object stands (issue 37, survivor 4)."""

from __future__ import annotations

import pathlib

import pytest

import wirecodec
from wirecodec.examples.build_mlp import build


@pytest.mark.parametrize("lazy", [True, False])
def test_load_of_a_file_positioned_past_its_start_reads_from_there(
    tmp_path: pathlib.Path, lazy: bool
) -> None:
    # A model after a header of our own, as in a bundle: the caller reads the header, then
    # hands the file object over. onnx.load(f) reads from there too (f.read()).
    model = wirecodec.encode(build())
    path = tmp_path / "bundle.bin"
    path.write_bytes(b"HEADER:8" + model)
    with path.open("rb") as f:
        assert f.read(8) == b"HEADER:8"
        loaded = wirecodec.load(f, lazy=lazy)
        assert wirecodec.encode(loaded) == model


def test_load_of_a_file_at_its_start_equals_load_by_name(tmp_path: pathlib.Path) -> None:
    model = wirecodec.encode(build())
    path = tmp_path / "m.onnx"
    path.write_bytes(model)
    with path.open("rb") as f:
        assert wirecodec.encode(wirecodec.load(f)) == wirecodec.encode(wirecodec.load(path)) == model
