"""The streaming reader (wirecodec.stream) and writer (encode_into / stream_encode).

The reader is held to decode's contract differentially: on the backend corpus and on
mutated copies of it (truncations, bit flips, inserted bytes), from bytes, from a path
and from a non-seekable stream fed a few bytes at a time, ``stream`` either rebuilds
exactly the model ``decode`` returns or raises exactly the error ``decode`` raises
(class, byte offset, field path, reason).
"""

from __future__ import annotations

import errno
import gzip
import io
import mmap
import os
import pathlib
import random
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wirecodec
from schema_dsl.onnx import (
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
)
from tests.support.reference import CorpusItem, backend_corpus
from tests.support.strategies import messages
from wirecodec import DecodeError, EncodeError, LimitError, WireCodecError, decode, encode
from wirecodec.examples.build_mlp import build
from wirecodec.files.stream import records as stream_records
from wirecodec.files.stream import tensor as stream_tensor
from wirecodec.files.stream.events import (
    Function,
    GraphField,
    GraphStart,
    Initializer,
    ModelField,
    Node,
    OpsetImport,
    UnknownField,
    ValueInfo,
)
from wirecodec.files.stream.reader import assemble, stream
from wirecodec.protobuf import payloads
from wirecodec.protobuf.stream_encode import plan


class Trickle(io.RawIOBase):
    """A non-seekable stream that hands out at most ``step`` bytes per read, like a pipe."""

    def __init__(self, data: bytes, step: int = 7) -> None:
        self._data = io.BytesIO(data)
        self._step = step

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._data.read(min(len(buffer), self._step))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def _outcome(run: Callable[[], ModelProto]) -> tuple[Any, ...]:
    try:
        return ("ok", run())
    except DecodeError as exc:
        return ("error", type(exc), exc.offset, exc.path, exc.reason)


def _streamed(source: Any, **options: Any) -> ModelProto:
    with stream(source, **options) as events:
        return assemble(events)


Sources = dict[str, Callable[[bytes], Any]]


def _sources(tmp_path: pathlib.Path) -> Sources:
    def path(data: bytes) -> Any:
        target = tmp_path / "model.onnx"
        target.write_bytes(data)
        return target

    return {
        "bytes": lambda data: data,
        "path": path,
        "pipe": lambda data: io.BufferedReader(Trickle(data), buffer_size=16),
    }


def _check_agrees(data: bytes, sources: Sources, label: str, **options: Any) -> None:
    expected = _outcome(lambda: decode(ModelProto, data, **options))
    for kind, make in sources.items():
        got = _outcome(lambda make=make: _streamed(make(data), **options))
        assert got == expected, f"{label} from {kind}: stream gave {got[:5]}, decode {expected[:5]}"


@pytest.fixture(scope="module")
def models(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


@pytest.fixture
def large_tensor_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every initializer takes the headers-only path meant for big tensors."""
    monkeypatch.setattr(stream_tensor, "SMALL_TENSOR", 0)
    monkeypatch.setattr(stream_records, "SMALL_PADDING", 0)


# -- agreement with decode ------------------------------------------------------------


def test_stream_rebuilds_every_corpus_model(models: list[CorpusItem], tmp_path: pathlib.Path) -> None:
    assert len(models) > 1500
    sources = _sources(tmp_path)
    for item in models:
        _check_agrees(item.data, sources, item.name)


def _mutations(data: bytes, rng: random.Random) -> Iterator[tuple[str, bytes]]:
    cut = rng.randrange(len(data))
    yield f"truncated at {cut}", data[:cut]
    flipped = bytearray(data)
    at = rng.randrange(len(data))
    flipped[at] ^= 1 << rng.randrange(8)
    yield f"bit flipped at {at}", bytes(flipped)
    inserted = bytearray(data)
    at = rng.randrange(len(data) + 1)
    inserted[at:at] = rng.randbytes(rng.randrange(1, 4))
    yield f"bytes inserted at {at}", bytes(inserted)


def test_stream_agrees_with_decode_on_mutated_models(
    models: list[CorpusItem], tmp_path: pathlib.Path
) -> None:
    rng = random.Random(20261123)
    sources = _sources(tmp_path)
    rejected = 0
    for item in rng.sample(models, 400):
        for label, data in _mutations(item.data, rng):
            _check_agrees(data, sources, f"{item.name} {label}")
            rejected += _outcome(lambda: decode(ModelProto, data))[0] == "error"  # noqa: B023
    assert rejected > 400  # the mutations do reach the error paths


@pytest.mark.usefixtures("large_tensor_path")
def test_headers_only_tensor_path_agrees_with_decode(
    models: list[CorpusItem], tmp_path: pathlib.Path
) -> None:
    rng = random.Random(7)
    sources = {k: v for k, v in _sources(tmp_path).items() if k != "bytes"}  # bytes are read in place
    with_tensors = [item for item in models if b"\x2a" in item.data]
    for item in rng.sample(with_tensors, 150):
        _check_agrees(item.data, sources, item.name)
        for label, data in _mutations(item.data, rng):
            _check_agrees(data, sources, f"{item.name} {label}")


def _model_with_tensors(*payload_sizes: int) -> ModelProto:
    rng = np.random.default_rng(1)
    tensors = [
        wirecodec.from_array(rng.integers(0, 255, size, dtype=np.uint8), f"t{i}")
        for i, size in enumerate(payload_sizes)
    ]
    tensors[0].doc_string = "after the payload"  # field 12 comes after raw_data (9)
    tensors[0].external_data.append(StringStringEntryProto(key="k", value="v"))
    graph = GraphProto(
        name="g",
        node=[NodeProto(op_type="Identity", input=[f"t{i}"], output=[f"y{i}"]) for i in range(len(tensors))],
        initializer=tensors,
    )
    return ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)


@pytest.mark.usefixtures("large_tensor_path")
def test_mutations_inside_tensor_headers(tmp_path: pathlib.Path) -> None:
    """Bit flips and truncations aimed at initializer records, payloads in between."""
    data = encode(_model_with_tensors(3000, 70, 5000))
    sources = {k: v for k, v in _sources(tmp_path).items() if k != "bytes"}
    start = data.index(b"\x2a")
    rng = random.Random(3)
    for _ in range(150):
        at = rng.randrange(start, len(data))
        flipped = bytearray(data)
        flipped[at] ^= 1 << rng.randrange(8)
        _check_agrees(bytes(flipped), sources, f"flip at {at}")
        _check_agrees(data[:at], sources, f"cut at {at}")


def test_byte_by_byte_input(models: list[CorpusItem]) -> None:
    for item in models[:40]:
        data = item.data
        expected = _outcome(lambda: decode(ModelProto, data))  # noqa: B023
        got = _outcome(lambda: _streamed(io.BufferedReader(Trickle(data, step=1), buffer_size=1)))  # noqa: B023
        assert got == expected, item.name


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 4, 6])
def test_depth_limit_matches_decode(models: list[CorpusItem], tmp_path: pathlib.Path, max_depth: int) -> None:
    sources = _sources(tmp_path)
    nested = [item for item in models if "loop" in item.name or "if" in item.name or "scan" in item.name]
    assert nested
    for item in nested[:30]:
        _check_agrees(item.data, sources, f"{item.name} max_depth={max_depth}", max_depth=max_depth)


def test_error_names_node_and_offset() -> None:
    model = ModelProto(
        graph=GraphProto(node=[NodeProto(op_type="Relu", name=f"n{i}") for i in range(13)]),
    )
    data = bytearray(encode(model))
    # Node 12's name gets a length past the end of its node.
    at = data.index(b"n12") - 2
    assert data[at] == 0x1A  # tag: name (3), length-delimited
    data[at + 1] = 0x7F
    with pytest.raises(DecodeError) as from_decode:
        decode(ModelProto, bytes(data))
    with pytest.raises(DecodeError) as from_stream:
        list(stream(bytes(data)))
    assert from_stream.value.path == from_decode.value.path
    assert from_stream.value.path.startswith("ModelProto.graph.node[12]")
    assert from_stream.value.offset == from_decode.value.offset == at + 1
    assert str(from_stream.value) == str(from_decode.value)


def test_a_lying_length_from_a_pipe_allocates_nothing_big() -> None:
    # A graph claiming a terabyte, then 100 bytes.
    data = b"\x3a" + bytes([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20]) + b"\x0a\x62" + bytes(98)
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError, match="runs past the end") as caught:
            list(stream(io.BufferedReader(Trickle(data, step=4096))))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    assert caught.value.path == "ModelProto.graph"


def test_an_initializer_claiming_more_than_the_input(tmp_path: pathlib.Path) -> None:
    data = encode(_model_with_tensors(100))
    at = data.index(b"\x2a")  # the initializer record: make its payload claim 2**40 bytes
    broken = data[: at + 1] + bytes([0x80, 0x80, 0x80, 0x80, 0x80, 0x20]) + data[at + 3 :]
    _check_agrees(broken, _sources(tmp_path), "lying initializer")


# -- the events ------------------------------------------------------------------------


def test_events_in_file_order_with_paths() -> None:
    model = build()
    model.doc_string = "doc"
    model.metadata_props.append(StringStringEntryProto(key="a", value="b"))
    model.functions.append(FunctionProto(name="f", domain="local"))
    data = encode(model)
    events = list(stream(data))
    assert [e.offset for e in events] == sorted(e.offset for e in events)
    kinds = {type(e) for e in events}
    assert {ModelField, OpsetImport, GraphStart, Node, Initializer, ValueInfo, GraphField, Function} <= kinds
    nodes = [e for e in events if isinstance(e, Node)]
    assert [n.node.op_type for n in nodes] == ["Gemm", "Relu", "Gemm"]
    assert [n.path for n in nodes] == [f"ModelProto.graph.node[{i}]" for i in range(3)]
    inputs = [e for e in events if isinstance(e, ValueInfo)]
    assert [(e.role, e.value_info.name) for e in inputs] == [("input", "x"), ("output", "y")]
    # Each event's offset and length cut out exactly its record.
    graph_start = next(e for e in events if isinstance(e, GraphStart))
    for event in events:
        record = data[event.offset : event.offset + event.length]
        if isinstance(event, GraphStart):
            assert decode(ModelProto, record) == ModelProto(graph=model.graph)
        elif graph_start.offset < event.offset < graph_start.offset + graph_start.length:
            graph = decode(GraphProto, record)
            if isinstance(event, Node):
                assert graph.node == [event.node]
            elif isinstance(event, Initializer):
                assert graph.initializer == [event.tensor.to_tensor()]
        else:
            assert len(decode(ModelProto, record).ListFields()) == 1
    names = [e for e in events if isinstance(e, GraphField)]
    assert names[0].name == "name" and names[0].value == "mlp"


def test_lazy_tensor_reads_its_payload(tmp_path: pathlib.Path) -> None:
    model = _model_with_tensors(3 << 20, 10)  # one over the headers-only threshold
    data = encode(model)
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    expected = [bytes(t.raw_data) for t in model.graph.initializer]
    with stream(path) as events:
        tensors = [e.tensor for e in events if isinstance(e, Initializer)]
        assert [bytes(t.read()) for t in tensors] == expected
        assert [
            bytes(data[t.raw_offset : t.raw_offset + t.raw_length]) for t in tensors if t.raw_offset
        ] == expected
        assert tensors[0].header.doc_string == "after the payload"
        assert not tensors[0].header.HasField("raw_data")
        assert tensors[0].to_tensor() == model.graph.initializer[0]
        assert tensors[0].dims == [3 << 20] and tensors[0].data_type == TensorProto.UINT8
    with pytest.raises(ValueError, match="closed"):
        tensors[0].read()


def test_a_path_is_read_without_its_payloads(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(encode(_model_with_tensors(8 << 20, 8 << 20)))
    read = 0
    real_pread = os.pread

    def counting_pread(fd: int, n: int, offset: int) -> bytes:
        nonlocal read
        data = real_pread(fd, n, offset)
        read += len(data)
        return data

    monkeypatch.setattr(os, "pread", counting_pread)
    with stream(path) as events:
        assert sum(isinstance(e, Initializer) for e in events) == 2
    assert read < 1 << 20  # headers only, of a 16 MiB file


def test_non_seekable_payloads_kept_or_skipped() -> None:
    model = _model_with_tensors(2 << 20, 30)
    data = encode(model)
    kept = [e.tensor for e in stream(io.BufferedReader(Trickle(data, 1 << 16))) if isinstance(e, Initializer)]
    assert [bytes(t.read()) for t in kept] == [bytes(t.raw_data) for t in model.graph.initializer]
    skipped = [
        e.tensor
        for e in stream(io.BufferedReader(Trickle(data, 1 << 16)), skip_payloads=True)
        if isinstance(e, Initializer)
    ]
    assert [t.raw_length for t in skipped] == [len(t.raw_data) for t in model.graph.initializer]
    with pytest.raises(WireCodecError, match="skipped"):
        skipped[0].read()


def test_bytes_and_mmap_sources_give_views(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(encode(build()))
    with open(path, "rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        events = stream(mapped)
        tensor = next(e.tensor for e in events if isinstance(e, Initializer))
        view = tensor.read()
        assert isinstance(view, memoryview) and view.obj is mapped
        view.release()
        del view, tensor
        events.close()


def test_stopping_early_closes_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(encode(build()))
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    events = stream(path)
    next(events)
    events.close()
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before
    with pytest.raises(StopIteration):
        next(events)


def test_a_file_object_is_read_from_its_position(tmp_path: pathlib.Path) -> None:
    data = encode(build())
    path = tmp_path / "m.bin"
    path.write_bytes(b"header!" + data)
    with open(path, "rb") as file:
        file.read(7)
        events = list(stream(file))
        assert file.tell() == 7 + len(data)  # left after the model, as load(file) leaves it
        assert assemble(events) == decode(ModelProto, data)
        assert events[0].offset == 0  # offsets count from where the model starts


def test_gzip_and_stdin_like_sources(tmp_path: pathlib.Path) -> None:
    data = encode(build())
    packed = tmp_path / "m.onnx.gz"
    with gzip.open(packed, "wb") as out:
        out.write(data)
    with gzip.open(packed, "rb") as source:
        assert _streamed(source) == decode(ModelProto, data)
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        assert _streamed(pipe) == decode(ModelProto, data)


def test_unknown_fields_and_merged_graphs_rebuild_exactly() -> None:
    model = build()
    first = encode(model)
    extra_graph = encode(ModelProto(graph=GraphProto(name="second", node=[NodeProto(op_type="Abs")])))
    unknown = b"\xf8\x07\x05" + b"\x3a\x03\xf8\x07\x01"  # field 127 in the model, and in a graph
    data = first + extra_graph + unknown
    events = list(stream(data))
    assert sum(isinstance(e, GraphStart) for e in events) == 3
    assert [e.owner for e in events if isinstance(e, UnknownField)] == ["ModelProto", "GraphProto"]
    assert assemble(events) == decode(ModelProto, data)
    node_indices = [e.index for e in events if isinstance(e, Node)]
    assert node_indices == [0, 1, 2, 3]


def test_empty_input_is_an_empty_model(tmp_path: pathlib.Path) -> None:
    assert list(stream(b"")) == []
    (tmp_path / "empty.onnx").write_bytes(b"")
    assert _streamed(tmp_path / "empty.onnx") == ModelProto()


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        stream(b"", max_depth=-1)
    with pytest.raises(TypeError, match="a URL, a binary file or bytes, not"):
        stream(12)  # type: ignore[arg-type]


def test_limit_error_is_a_limit_error() -> None:
    data = encode(build())
    with pytest.raises(LimitError):
        list(stream(data, max_depth=1))


# -- the streaming writer ----------------------------------------------------------------


def test_encode_into_writes_what_encode_returns(models: list[CorpusItem]) -> None:
    for item in models:
        model = decode(ModelProto, item.data)
        out = io.BytesIO()
        assert wirecodec.encode_into(model, out) == len(item.data)
        assert out.getvalue() == item.data, item.name
        assert plan(model).size == len(item.data)


def test_plan_then_write_refuses_a_changed_message() -> None:
    model = build()
    planned = plan(model)
    model.graph.node[0].name = "a much longer name than before"
    with pytest.raises(EncodeError, match="changed while it was being written"):
        planned.write(io.BytesIO())


def test_an_unencodable_value_fails_before_writing() -> None:
    model = build()
    list.append(model.graph.node[1].input, 7)  # past the container's check
    out = io.BytesIO()
    with pytest.raises(EncodeError, match=r"node\[1\]\.input"):
        wirecodec.encode_into(model, out)
    assert out.getvalue() == b""


def _source_model(tmp_path: pathlib.Path, size: int) -> tuple[ModelProto, bytes]:
    payload = np.random.default_rng(5).integers(0, 255, size, dtype=np.uint8).tobytes()
    data_file = tmp_path / "payload.bin"
    data_file.write_bytes(b"prefix" + payload)
    source = payloads.SourceMap.open(data_file)
    tensor = TensorProto(name="w", dims=[size], data_type=TensorProto.UINT8, raw_data=memoryview(source)[6:])
    return ModelProto(graph=GraphProto(initializer=[tensor])), payload


def test_source_map_payloads_are_copied_by_the_kernel(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, payload = _source_model(tmp_path, 3 << 20)
    copied = 0
    real = os.copy_file_range

    def spy(*args: Any, **kwargs: Any) -> int:
        nonlocal copied
        moved = real(*args, **kwargs)
        copied += moved
        return moved

    monkeypatch.setattr(os, "copy_file_range", spy)
    with open(tmp_path / "out.onnx", "wb") as out:
        wirecodec.encode_into(model, out)
    assert copied == len(payload)
    assert decode(ModelProto, (tmp_path / "out.onnx").read_bytes()).graph.initializer[0].raw_data == payload


@pytest.mark.parametrize("refused", [("copy_file_range",), ("copy_file_range", "sendfile")])
def test_copy_falls_back(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, refused: tuple[str, ...]
) -> None:
    model, payload = _source_model(tmp_path, 1 << 20)
    expected = encode(model)
    assert payload in expected

    def unsupported(*args: Any, **kwargs: Any) -> int:
        raise OSError(errno.EXDEV, "cross-device")

    for name in refused:
        monkeypatch.setattr(os, name, unsupported)
    with open(tmp_path / "out.onnx", "wb") as out:
        wirecodec.encode_into(model, out)
    assert (tmp_path / "out.onnx").read_bytes() == expected
    buffer = io.BytesIO()  # no descriptor at all: the portable path
    wirecodec.encode_into(model, buffer)
    assert buffer.getvalue() == expected


def test_mapped_payloads_are_released_page_by_page(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "m.onnx"
    wirecodec.save(_model_with_tensors(20 << 20), path)
    model = wirecodec.load(path)
    released: list[int] = []
    monkeypatch.setattr(payloads, "_release", lambda whole, offset, length: released.append(length))
    out = io.BytesIO()
    wirecodec.encode_into(model, out)
    assert out.getvalue() == path.read_bytes()
    # Unchanged, the model re-emits its whole source, released window by window.
    assert sum(released) == path.stat().st_size and max(released) <= payloads.WINDOW
    released.clear()
    model.graph.name = "changed"  # now only the (unchanged) tensor is re-emitted
    wirecodec.encode_into(model, io.BytesIO())
    assert sum(released) == model.graph.initializer[0].ByteSize() and max(released) <= payloads.WINDOW


def test_progress_reports_every_byte(tmp_path: pathlib.Path) -> None:
    model, _ = _source_model(tmp_path, 2 << 20)
    seen: list[int] = []
    with payloads.report_progress(seen.append), open(tmp_path / "out.onnx", "wb") as out:
        size = wirecodec.encode_into(model, out)
    assert sum(seen) == size


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(tensors=st.lists(messages(TensorProto, depth=2), min_size=1, max_size=3), data=st.data())
def test_random_initializers_mutated_agree_with_decode(
    tensors: list[TensorProto], data: st.DataObject
) -> None:
    """Hypothesis: random tensors (every field, repeated raw_data, unknown values...),
    cut, flipped or grown anywhere, through the headers-only path and the in-place one."""
    encoded = bytearray(encode(ModelProto(graph=GraphProto(name="g", initializer=tensors))))
    edits = st.tuples(st.integers(0, 2), st.integers(0, len(encoded)), st.integers(1, 255))
    for op, at, value in data.draw(st.lists(edits, max_size=3)):
        if op == 0:
            del encoded[at:]
        elif op == 1 and at < len(encoded):
            encoded[at] ^= value
        else:
            encoded[at:at] = bytes([value])
    model = bytes(encoded)
    with tempfile.TemporaryDirectory() as folder:
        sources = _sources(pathlib.Path(folder))
        _check_agrees(model, sources, "random tensors")
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(stream_tensor, "SMALL_TENSOR", 0)
            patch.setattr(stream_records, "SMALL_PADDING", 0)
            _check_agrees(model, sources, "random tensors, headers only")


def test_release_hands_back_mapped_pages_only(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "data.bin").write_bytes(bytes(1 << 20))
    source = payloads.SourceMap.open(tmp_path / "data.bin")
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(payloads, "_release", lambda whole, offset, length: calls.append((offset, length)))
    payloads.release(memoryview(source)[4096:8192])
    payloads.release(memoryview(bytearray(10)))  # not a map: nothing to hand back
    with mmap.mmap(-1, 4096) as anonymous, memoryview(anonymous) as view:
        payloads.release(view)  # writable: its pages may be all there is
    assert calls == [(4096, 4096)]


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _twice_raw_model(first: bytes, last: bytes) -> bytes:
    """A model of one initializer whose encoding holds ``raw_data`` twice: ``first``, then
    (after the other fields) ``last``, which protobuf keeps (the last value of a scalar wins)."""
    tensor = bytes([0x4A]) + _varint(len(first)) + first  # field 9 (raw_data), length-delimited
    tensor += encode(TensorProto(name="t", data_type=TensorProto.UINT8, dims=[len(last)], raw_data=last))
    graph = bytes([0x2A]) + _varint(len(tensor)) + tensor  # GraphProto.initializer (5)
    return encode(ModelProto(ir_version=10)) + bytes([0x3A]) + _varint(len(graph)) + graph


@pytest.mark.parametrize(
    ("first_size", "last_size"),
    [(10, 20), (20, 10), (10, (1 << 20) + 10), ((1 << 20) + 10, 10)],
    ids=["small", "shorter-last", "large-last", "large-first"],
)
@pytest.mark.parametrize("source", ["bytes", "path", "pipe"])
def test_a_repeated_raw_data_keeps_the_last_as_protobuf_does(
    tmp_path: pathlib.Path, source: str, first_size: int, last_size: int
) -> None:
    first, last = b"\x01" * first_size, bytes(i % 251 for i in range(last_size))
    data = _twice_raw_model(first, last)
    onnx = pytest.importorskip("onnx", reason="protobuf (through onnx) is the judge")
    assert onnx.ModelProto.FromString(data).graph.initializer[0].raw_data == last
    assert bytes(decode(ModelProto, data).graph.initializer[0].raw_data) == last
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    opened: Any = {"bytes": data, "path": path, "pipe": io.BufferedReader(Trickle(data, 1 << 16))}[source]
    with stream(opened) as events:
        tensors = [e.tensor for e in events if isinstance(e, Initializer)]
        assert len(tensors) == 1
        assert tensors[0].raw_length == last_size
        assert bytes(tensors[0].read()) == last
        if tensors[0].raw_offset is not None and source != "pipe":
            start = tensors[0].raw_offset
            assert data[start : start + last_size] == last
    with stream(io.BufferedReader(Trickle(data, 1 << 16)), skip_payloads=True) as events:
        skipped = [e.tensor for e in events if isinstance(e, Initializer)]
        assert skipped[0].raw_length == last_size
