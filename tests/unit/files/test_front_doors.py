"""One way in (issue 47, item 2): every front door takes every kind of source that
``files.base.source.classify`` knows — a path (``str`` and ``PathLike``), bytes,
bytearray, memoryview, a regular file, a pipe-like file object, ``-`` (standard input) and
a URL (a loopback server that honours ``Range``) — and gives what it gives for the same
bytes in memory. The matrix is front door by source kind; where a door cannot take a kind
the test says so, and there are no such cells today."""

from __future__ import annotations

import io
import pathlib
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.http_server import BadServer, bad_server  # noqa: F401 (a fixture)
from wirecodec.files.base.source import classify
from wirecodec.files.stream.reader import assemble
from wirecodec.files.zip.container import load_zip, save_zip
from wirecodec.numpy_helper import from_array
from wirecodec.onnx_compat import helper

SOURCES = ("str", "pathlike", "bytes", "bytearray", "memoryview", "file", "pipe", "stdin", "url")


class _Pipe(io.RawIOBase):
    """A file object that reads and cannot seek (what a pipe or a socket's file is)."""

    def __init__(self, data: bytes) -> None:
        self._inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._inner.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


class _Stdin:
    def __init__(self, data: bytes) -> None:
        self.buffer = io.BufferedReader(_Pipe(data))


def _model() -> ModelProto:
    weight = from_array(np.arange(12, dtype=np.float32).reshape(3, 4), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", 1, [2, 3])],
        [helper.make_tensor_value_info("y", 1, [2, 4])],
        initializer=[weight],
    )
    model: ModelProto = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)]
    )
    return model


def _source(kind: str, data: bytes, name: str, server: BadServer, monkeypatch: Any) -> Any:
    """``data`` presented as a source of ``kind`` (a file of it in the server's folder)."""
    if kind in ("str", "pathlike", "file"):
        path = server.root / f"{kind}-{name}"
        path.write_bytes(data)
        if kind == "file":
            return path.open("rb")
        return str(path) if kind == "str" else path
    if kind == "bytes":
        return bytes(data)
    if kind == "bytearray":
        return bytearray(data)
    if kind == "memoryview":
        return memoryview(data)
    if kind == "pipe":
        return io.BufferedReader(_Pipe(data))
    if kind == "stdin":
        monkeypatch.setattr(sys, "stdin", _Stdin(data))
        return "-"
    assert kind == "url"
    (server.root / name).write_bytes(data)
    server.behave(None)
    return server.url(name)


def _load(source: Any) -> bytes:
    return wirecodec.encode(wirecodec.load(source))


def _stream(source: Any) -> bytes:
    with wirecodec.stream(source) as events:
        return wirecodec.encode(assemble(events))


def _check(source: Any) -> bytes:
    wirecodec.check(source)  # raises on a finding; a valid model returns None
    return b"valid"


def _zip(source: Any) -> bytes:
    model = load_zip(source)
    for tensor in model.graph.initializer:
        tensor.raw_data = bytes(tensor.raw_data)  # a view of the archive: compare bytes
    return wirecodec.encode(model)


def _tensor(source: Any) -> bytes:
    return wirecodec.encode(wirecodec.load_tensor(source))


# door: (what it reads, the file name it is served as, how to read it)
DOORS: dict[str, tuple[str, str, Callable[[Any], bytes]]] = {
    "load": ("model", "m.onnx", _load),
    "stream": ("model", "m.onnx", _stream),
    "check": ("model", "m.onnx", _check),
    "load_zip": ("zip", "m.onnxz", _zip),
    "load_tensor": ("tensor", "t.pb", _tensor),
}


def _inputs(tmp: pathlib.Path) -> dict[str, bytes]:
    model = _model()
    save_zip(model, tmp / "made.onnxz")
    return {
        "model": wirecodec.encode(model),
        "zip": (tmp / "made.onnxz").read_bytes(),
        "tensor": wirecodec.encode(model.graph.initializer[0]),
    }


@pytest.mark.parametrize("kind", SOURCES)
@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_front_door_takes_every_source(
    door: str, kind: str, tmp_path: pathlib.Path, bad_server: BadServer, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    what, name, read = DOORS[door]
    data = _inputs(tmp_path)[what]
    expected = read(data)  # the same bytes, in memory
    source = _source(kind, data, name, bad_server, monkeypatch)
    try:
        got = read(source)
    finally:
        if hasattr(source, "close"):
            source.close()
    assert got == expected


def test_the_matrix_covers_every_kind_classify_knows() -> None:
    kinds = {"stdin": "-", "url": "https://h/m.onnx", "path": "m.onnx", "buffer": b"", "file": io.BytesIO()}
    assert {classify(source) for source in kinds.values()} == set(kinds)
    assert {"str", "pathlike", "bytes", "file", "stdin", "url"} <= set(SOURCES)


def test_a_zip_from_a_server_that_ignores_range_is_refused_with_what_to_do(
    tmp_path: pathlib.Path, bad_server: BadServer  # noqa: F811
) -> None:
    data = _inputs(tmp_path)["zip"]
    (bad_server.root / "m.onnxz").write_bytes(data)
    bad_server.behave("ignore-range")
    with pytest.raises(wirecodec.RemoteError, match="ignores Range"):
        load_zip(bad_server.url("m.onnxz"))


@pytest.mark.parametrize("kind", ["stdin", "url"])
def test_a_zip_from_a_pipe_or_a_url_is_spooled_piece_by_piece(
    kind: str, tmp_path: pathlib.Path, bad_server: BadServer, monkeypatch: pytest.MonkeyPatch  # noqa: F811
) -> None:
    """Pieces far smaller than the archive: every byte reaches the temporary file once."""
    from wirecodec.files.zip import buffers

    data = _inputs(tmp_path)["zip"]
    monkeypatch.setattr(buffers, "_PIPE_PIECE", 37)
    monkeypatch.setattr(buffers, "_URL_PIECE", 37)
    assert len(data) > 10 * 37
    assert _zip(_source(kind, data, "m.onnxz", bad_server, monkeypatch)) == _zip(data)
