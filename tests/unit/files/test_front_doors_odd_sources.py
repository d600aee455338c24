"""Front doors meeting sources slightly off the usual: an empty zip archive (only its end
record), a file-like object with ``read()`` alone, ``load_zip`` of a URL that needs its
``remote`` options, of a file object not at its start (``lazy=False``), and of a buffer
whose items are not single bytes. Each must read as the plain source does."""

from __future__ import annotations

import io
import pathlib
import zipfile

import pytest

import wirecodec
from tests.support.guarded_server import TOKEN, GuardedServer, guarded_server
from wirecodec.errors import ContainerError, RemoteError
from wirecodec.examples.build_mlp import build
from wirecodec.files.remote.source import RemoteOptions
from wirecodec.files.zip.container import load_zip, save_zip

__all__ = ["guarded_server"]  # the fixture, used by name


def _container(tmp_path: pathlib.Path) -> bytes:
    save_zip(build(), tmp_path / "m.onnxz")
    return (tmp_path / "m.onnxz").read_bytes()


def _arrays(model: wirecodec.ModelProto) -> list[bytes]:
    return [wirecodec.to_array(t).tobytes() for t in model.graph.initializer]


def test_an_empty_zip_archive_is_a_container_without_a_model() -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w"):
        pass
    empty = out.getvalue()
    assert empty[:4] == b"PK\x05\x06"  # only the end record
    with pytest.raises(ContainerError, match="__MODEL_PROTO"):
        wirecodec.load(empty)


class _ReadOnly:
    """A file-like object with ``read`` and nothing else (a user's wrapper over a socket)."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def read(self, size: int = -1) -> bytes:
        return self._data.read(size)


def test_a_file_like_object_with_read_alone_is_a_source() -> None:
    model = build()
    loaded = wirecodec.load(_ReadOnly(model.SerializeToString()))
    assert _arrays(loaded) == _arrays(model)


def test_load_zip_of_a_file_object_not_at_its_start_reads_the_whole_archive(tmp_path: pathlib.Path) -> None:
    _container(tmp_path)
    with (tmp_path / "m.onnxz").open("rb") as file:
        file.read()  # at its end, as after a caller's own look at it
        loaded = load_zip(file, lazy=False)
    assert _arrays(loaded) == _arrays(build())


def test_load_zip_of_a_buffer_of_two_dimensions_reads_bytes(tmp_path: pathlib.Path) -> None:
    data = _container(tmp_path)
    loaded = load_zip(memoryview(data).cast("B", shape=[1, len(data)]))
    assert _arrays(loaded) == _arrays(build())


def test_load_zip_of_a_url_sends_the_remote_options(
    guarded_server: GuardedServer, tmp_path: pathlib.Path
) -> None:
    save_zip(build(), guarded_server.root / "m.onnxz")
    auth = RemoteOptions(headers=(("Authorization", TOKEN),), retries=0, timeout=10)
    assert _arrays(load_zip(guarded_server.url("m.onnxz"), remote=auth)) == _arrays(build())
    with pytest.raises(RemoteError, match="401"):
        load_zip(guarded_server.url("m.onnxz"), remote=RemoteOptions(retries=0, timeout=10))
