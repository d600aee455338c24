"""One path dialect: what decode errors and stream events print is what dump and resolve take,
unknown fields included (``graph.#99``)."""

from __future__ import annotations

import pathlib

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from wirecodec.cli import main
from wirecodec.errors import DecodeError, PathError
from wirecodec.examples.build_mlp import build
from wirecodec.files.stream.reader import stream
from wirecodec.protobuf import fieldpath
from wirecodec.protobuf.wire import encode_varint


def _with_unknown_in_graph(record: bytes) -> bytes:
    """The example model with ``record`` appended inside its graph (field 7)."""
    model = build()
    graph = wirecodec.encode(model.graph) + record
    model.ClearField("graph")
    return wirecodec.encode(model) + b"\x3a" + encode_varint(len(graph)) + graph


UNKNOWN_99 = encode_varint(99 << 3) + b"\x05"  # field 99, varint 5


def test_an_unknown_field_resolves_by_number_and_dump_prints_it(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _with_unknown_in_graph(UNKNOWN_99)
    model = wirecodec.decode(ModelProto, data)
    assert fieldpath.resolve(model, "graph.#99") == [UNKNOWN_99]
    assert fieldpath.resolve(model, "ModelProto.graph.#99[0]") == UNKNOWN_99
    with pytest.raises(PathError, match="no unknown field 98"):
        fieldpath.resolve(model, "graph.#98")
    (tmp_path / "m.onnx").write_bytes(data)
    assert main(["dump", str(tmp_path / "m.onnx"), "graph.#99[0]"]) == 0
    assert capsys.readouterr().out == repr(UNKNOWN_99) + "\n"


def test_a_decode_error_in_an_unknown_field_prints_a_path_resolve_takes() -> None:
    broken = encode_varint(99 << 3 | 2) + b"\x7f"  # field 99, a length past the end
    with pytest.raises(DecodeError) as caught:
        wirecodec.decode(ModelProto, _with_unknown_in_graph(broken))
    path = caught.value.path
    assert path == "ModelProto.graph.#99"
    fieldpath.parse(path)  # the dialect's own syntax: no PathError


def test_a_stream_event_names_an_unknown_field_the_same_way() -> None:
    data = wirecodec.encode(build()) + UNKNOWN_99
    with stream(data) as events:
        paths = [getattr(event, "path", None) for event in events if type(event).__name__ == "UnknownField"]
    assert paths == ["ModelProto.#99"]
    model = wirecodec.decode(ModelProto, data)
    assert fieldpath.resolve(model, paths[0]) == [UNKNOWN_99]
