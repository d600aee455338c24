"""A model read from a file object starts where the file object stands (issue 37, survivor 4)."""

from __future__ import annotations

import io
import pathlib
from typing import IO, Any, cast

import pytest

import wirecodec
from wirecodec.examples.build_mlp import build
from wirecodec.files.zip.container import is_zip


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


class _OneWay(io.RawIOBase):
    """A stream that cannot seek but says how far it has read (as urllib3's HTTPResponse
    does, which requests hands out as ``response.raw``): what it gives is gone."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return False

    def tell(self) -> int:
        return self._data.tell()

    def readinto(self, buffer: Any) -> int:
        return self._data.readinto(buffer)


def test_is_zip_does_not_consume_a_stream_that_cannot_seek(tmp_path: pathlib.Path) -> None:
    # docs/zip-container.md's is_zip looks at a file object's first bytes and puts them back;
    # a stream that cannot be put back is not looked at, and loses nothing.
    zipped = tmp_path / "m.onnxz"
    wirecodec.save(build(), tmp_path / "m.onnx")
    wirecodec.convert(tmp_path / "m.onnx", zipped, to="zip")
    stream: Any = _OneWay(zipped.read_bytes())
    assert not is_zip(stream)
    assert stream.read() == zipped.read_bytes()
    model = wirecodec.encode(build())
    assert wirecodec.encode(wirecodec.load(cast(IO[bytes], _OneWay(model)))) == model
