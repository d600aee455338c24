"""Zero copy from every input kind the docs name: bytes fields are views of the caller's buffer.

docs/format.md ("Zero copy where it pays"): ``bytes`` fields declared as views (in the ONNX
schema ``TensorProto.raw_data``) decode to memoryview slices of the input, the others to ``bytes``;
docs/tensors.md: ``to_array`` of ``raw_data`` looks straight into the buffer or mapped
file; docs/loading.md: ``load`` maps the file, tensor payloads (external data included)
are views of the map. Every ``bytes`` field of a model holding them in every place
(``raw_data`` of initializers, of a deferred small initializer, of an attribute's
tensor, ``AttributeProto.s``, ``strings``, ``string_data``) is checked, for bytes,
bytearray, memoryview (whole and sliced), mmap and ``load`` (path, file, bytes): the
view's ``.obj`` is the very buffer decoded from, and its memory lies inside it.
"""

from __future__ import annotations

import gc
import mmap
import pathlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl import Kind, Message
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
from tests.support.decode_modes import EVERY_ELEMENT
from wirecodec import decode, encode, from_array, to_array
from wirecodec.protobuf.lazy import waiting_record


def _model(big: int = 0) -> ModelProto:
    """Bytes fields everywhere: six small initializers (the fifth and sixth wait under lazy
    decoding), a larger one, and a node whose attribute holds a tensor, ``s`` and ``strings``."""
    small = [from_array(np.array([i, i + 1], dtype=np.int32), f"s{i}") for i in range(6)]
    large = from_array(np.arange(max(big, 64), dtype=np.float32), "large")
    words = TensorProto(
        name="words", data_type=TensorProto.DataType.STRING, dims=[2], string_data=[b"ab", b"cde"]
    )
    attribute = AttributeProto(
        name="a",
        type=AttributeProto.AttributeType.TENSOR,
        t=from_array(np.arange(8, dtype=np.int64), "t"),
        s=b"xyz",
        strings=[b"one", b"two"],
    )
    node = NodeProto(op_type="Constant", output=["c"], attribute=[attribute])
    graph = GraphProto(name="g", initializer=[*small, large, words], node=[node])
    return ModelProto(ir_version=10, graph=graph)


def bytes_fields(message: Message, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every non-empty ``bytes`` value in a message tree, with its path (reads load what waits)."""
    path = path or type(message).__qualname__
    for spec in message.__schema__.fields:
        value = getattr(message, spec.name)
        values = list(value) if spec.repeated else [value] if message.HasField(spec.name) else []
        for i, item in enumerate(values):
            where = f"{path}.{spec.name}" + (f"[{i}]" if spec.repeated else "")
            if spec.kind is Kind.BYTES and len(item):
                if not spec.view:  # the short bytes fields read as bytes, as protobuf's do
                    assert type(item) is bytes, f"{where} is a {type(item).__name__}, not bytes"
                    continue
                yield where, item
            elif spec.kind is Kind.MESSAGE:
                yield from bytes_fields(item, where)


def _bytes(array: Any) -> np.ndarray[Any, np.dtype[np.uint8]]:
    return np.frombuffer(array, dtype=np.uint8)


def assert_views_of(message: ModelProto, buffer: Any) -> int:
    """Every bytes field is a memoryview exported by ``buffer`` itself, inside its memory,
    and every tensor's array shares that memory; returns how many fields were checked."""
    whole = _bytes(buffer)
    fields = list(bytes_fields(message))
    for where, view in fields:
        assert isinstance(view, memoryview), f"{where} is a {type(view).__name__}, not a view"
        assert view.obj is buffer, f"{where} views a {type(view.obj).__name__}, not the input"
        assert np.shares_memory(_bytes(view), whole), f"{where} lies outside the input"
    tensors = [t for t in message.graph.initializer if t.HasField("raw_data")]
    tensors.append(message.graph.node[0].attribute[0].t)
    for tensor in tensors:
        assert np.shares_memory(to_array(tensor), whole), f"to_array({tensor.name}) is a copy"
    # raw_data of 7 initializers and of the attribute's tensor
    assert len(fields) == 8, [where for where, _ in fields]
    return len(fields)


DATA = encode(_model())


def _as_bytes() -> tuple[Any, Any]:
    data = bytes(DATA)  # a bytes object of its own, so identity says something
    return data, data


def _as_bytearray() -> tuple[Any, Any]:
    data = bytearray(DATA)
    return data, data


def _as_memoryview_of_bytes() -> tuple[Any, Any]:
    data = bytes(DATA)
    return memoryview(data), data


def _as_memoryview_of_bytearray() -> tuple[Any, Any]:
    data = bytearray(DATA)
    return memoryview(data), data


def _as_memoryview_slice() -> tuple[Any, Any]:
    data = b"\x00\x00\x00" + DATA + b"\x00"  # the message in the middle of a larger buffer
    return memoryview(data)[3:-1], data


INPUTS = {
    "bytes": _as_bytes,
    "bytearray": _as_bytearray,
    "memoryview of bytes": _as_memoryview_of_bytes,
    "memoryview of bytearray": _as_memoryview_of_bytearray,
    "memoryview slice": _as_memoryview_slice,
}


@pytest.mark.parametrize("lazy", [True, False], ids=["lazy", "eager"])
@pytest.mark.parametrize("kind", INPUTS)
def test_every_bytes_field_views_the_input(kind: str, lazy: bool) -> None:
    given, underlying = INPUTS[kind]()
    model = decode(ModelProto, given, lazy=lazy)
    assert assert_views_of(model, underlying) == 8


@pytest.mark.parametrize("kind", INPUTS)
def test_deferred_elements_view_the_input_too(kind: str) -> None:
    given, underlying = INPUTS[kind]()
    model = decode(ModelProto, given, representation=EVERY_ELEMENT)
    assert_views_of(model, underlying)


def test_the_deferred_initializers_did_wait() -> None:
    """The fifth and sixth small initializers are built on first read (what the tests above read)."""
    graph = decode(ModelProto, bytes(DATA)).graph
    assert waiting_record(graph, "initializer") is not None
    assert len(graph.initializer) == 8
    assert list(graph.initializer)[5].name and waiting_record(graph, "initializer") is None


@pytest.mark.parametrize("access", [mmap.ACCESS_READ, mmap.ACCESS_COPY], ids=["read-only", "copy-on-write"])
def test_mmap_input(tmp_path: pathlib.Path, access: int) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(DATA)
    with path.open("rb") as file:
        mapped = mmap.mmap(file.fileno(), 0, access=access)
    model = decode(ModelProto, mapped)
    assert_views_of(model, mapped)
    del model
    gc.collect()  # reading unset sub-messages links stubs to their owners: cycles, until collected
    mapped.close()  # every view is gone, so the map can close


def _offset_in(view: memoryview, buffer: Any) -> int:
    """Where ``view`` starts inside ``buffer`` (both exported by the same object)."""
    start: int = _bytes(view).__array_interface__["data"][0]
    base: int = _bytes(buffer).__array_interface__["data"][0]
    return start - base


def assert_views_of_file(model: ModelProto, content: bytes) -> None:
    """Every bytes field views one read-only map of a file holding ``content``, at its place."""
    fields = list(bytes_fields(model))
    maps = {id(view.obj): view.obj for _, view in fields}
    assert len(maps) == 1, "one map for the whole file"
    (mapped,) = maps.values()
    assert isinstance(mapped, mmap.mmap) and len(mapped) == len(content)
    for where, view in fields:
        at = _offset_in(view, mapped)
        assert content[at : at + len(view)] == bytes(view), f"{where} is not the file's bytes at {at}"
    assert np.shares_memory(to_array(model.graph.initializer[0]), _bytes(mapped))
    assert len(fields) == 8


def test_load_path_views_the_map(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(DATA)
    assert_views_of_file(wirecodec.load(path), DATA)


def test_load_open_file_views_the_map(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(DATA)
    with path.open("rb") as file:
        model = wirecodec.load(file)
    assert_views_of_file(model, DATA)


def test_load_weight_heavy_file_views_the_map(tmp_path: pathlib.Path) -> None:
    """Payloads of 64 KB and more: load decodes a sparse copy, but bytes fields still view the map."""
    data = encode(_model(big=64 * 1024))
    path = tmp_path / "heavy.onnx"
    path.write_bytes(data)
    model = wirecodec.load(path)
    assert_views_of_file(model, data)
    large = next(t for t in model.graph.initializer if t.name == "large")
    assert to_array(large).nbytes == 256 * 1024


def test_load_without_mapping_views_the_bytes_it_read(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(DATA)
    model = wirecodec.load(path, lazy=False)
    (buffer,) = {id(view.obj): view.obj for _, view in bytes_fields(model)}.values()
    assert bytes(buffer) == DATA
    assert_views_of(model, buffer)


def test_load_bytes_views_them() -> None:
    data = bytes(DATA)
    assert_views_of(wirecodec.load(data), data)


def test_external_data_views_the_data_files_map(tmp_path: pathlib.Path) -> None:
    wirecodec.save(_model(big=4096), tmp_path / "model.onnx", external_data=True, location="weights.bin")
    content = (tmp_path / "weights.bin").read_bytes()
    model = wirecodec.load(tmp_path / "model.onnx")
    large = next(t for t in model.graph.initializer if t.name == "large")
    view = large.raw_data
    assert isinstance(view, memoryview) and isinstance(view.obj, mmap.mmap)
    assert len(view.obj) == len(content)
    at = _offset_in(view, view.obj)
    assert content[at : at + len(view)] == bytes(view) == np.arange(4096, dtype=np.float32).tobytes()
    assert np.shares_memory(to_array(large), _bytes(view.obj))


def test_a_copy_is_a_copy() -> None:
    """The check can fail: a copied payload shares nothing with the input."""
    data = bytes(DATA)
    tensor = decode(ModelProto, data).graph.initializer[6]
    assert not np.shares_memory(to_array(tensor, copy=True), _bytes(data))
    assert not np.shares_memory(_bytes(bytes(tensor.raw_data)), _bytes(data))


def test_views_are_as_writable_as_the_input() -> None:
    """docs/format.md: views of a bytes object are read-only; views of a bytearray write through."""
    assert all(view.readonly for _, view in bytes_fields(decode(ModelProto, bytes(DATA))))
    buffer = bytearray(DATA)
    views = [view for _, view in bytes_fields(decode(ModelProto, buffer))]
    assert views and not any(view.readonly for view in views)
    views[0][0] ^= 0xFF
    assert buffer != DATA  # the write reached the caller's buffer
