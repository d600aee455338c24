"""Models through a pipe (wirecodec/files/opener.py _from_pipe): the two sizes that decide
what is kept (PIPE_WHOLE, PIPE_KEEP) at their edges, a pipe that gives its bytes in short
reads, and convert's spool, byte for byte against the same model read from a file."""

from __future__ import annotations

import io
import os
import pathlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import IO

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec.errors import PayloadPassedError
from wirecodec.files.opener import PIPE_KEEP, PIPE_WHOLE


def _tensor(name: str, size: int) -> TensorProto:
    data = bytes((i * 7 + len(name)) % 251 for i in range(min(size, 4096))) * (size // 4096 + 1)
    return TensorProto(name=name, data_type=TensorProto.UINT8, dims=[size], raw_data=data[:size])


def _model(sizes: dict[str, int], total: int | None = None) -> bytes:
    """A model whose tensors have these raw_data sizes; with ``total``, a tensor 'pad'
    sized so that the encoding is exactly ``total`` bytes."""
    tensors = [_tensor(name, size) for name, size in sizes.items()]
    data = wirecodec.encode(ModelProto(ir_version=10, graph=GraphProto(name="g", initializer=tensors)))
    if total is None:
        return data
    pad = total - len(data) - 16
    for _ in range(4):  # the pad's own length and dims fields settle in a step or two
        model = ModelProto(
            ir_version=10, graph=GraphProto(name="g", initializer=[*tensors, _tensor("pad", pad)])
        )
        data = wirecodec.encode(model)
        pad += total - len(data)
    assert len(data) == total
    return data


@contextmanager
def _pipe(data: bytes, buffered: bool = True) -> Iterator[IO[bytes]]:
    """A real pipe whose writer (a thread) sends ``data``; unbuffered, reads come short."""
    read_end, write_end = os.pipe()

    def send() -> None:
        with suppress(BrokenPipeError), os.fdopen(write_end, "wb") as sink:  # a reader may stop early
            sink.write(data)

    writer = threading.Thread(target=send)
    writer.start()
    try:
        with os.fdopen(read_end, "rb", buffering=-1 if buffered else 0) as pipe:
            yield pipe
    finally:
        writer.join()


def _raw(model: ModelProto, name: str) -> bytes:
    return bytes(next(t for t in model.graph.initializer if t.name == name).raw_data)


def test_a_pipe_of_exactly_pipe_whole_bytes_is_kept_whole() -> None:
    data = _model({"big": PIPE_KEEP + 1}, total=PIPE_WHOLE)
    with _pipe(data) as pipe:
        model = wirecodec.load(pipe)
    assert _raw(model, "big") == bytes(_tensor("big", PIPE_KEEP + 1).raw_data)
    assert wirecodec.encode(model) == data


def test_a_pipe_one_byte_longer_passes_big_payloads_by_and_keeps_those_up_to_pipe_keep() -> None:
    data = _model({"edge": PIPE_KEEP, "over": PIPE_KEEP + 1}, total=PIPE_WHOLE + 1)
    with _pipe(data) as pipe:
        model = wirecodec.load(pipe)
    assert _raw(model, "edge") == bytes(_tensor("edge", PIPE_KEEP).raw_data)  # kept: exactly PIPE_KEEP
    over = next(t for t in model.graph.initializer if t.name == "over")
    assert over.HasField("raw_data")
    with pytest.raises(PayloadPassedError, match=r"tensor 'over': its raw_data \(65,537 bytes\)"):
        _ = over.raw_data


def test_a_pipe_giving_short_reads_is_read_to_its_end() -> None:
    # An unbuffered pipe returns what the kernel has (64 KiB at most here): a short read
    # is not the end of the input.
    data = _model({f"w{i}": 50_000 for i in range(8)})
    with _pipe(data, buffered=False) as pipe:
        assert wirecodec.encode(wirecodec.load(pipe)) == data


def test_convert_from_a_long_pipe_spools_the_payloads_it_passed_by(tmp_path: pathlib.Path) -> None:
    # Longer than PIPE_WHOLE: read front to back, payloads spooled beside the output; the
    # result equals converting the same model from a file.
    data = _model({"a": PIPE_KEEP + 1, "b": 3 * PIPE_KEEP, "c": 100}, total=PIPE_WHOLE + 4096)
    source = tmp_path / "m.onnx"
    source.write_bytes(data)
    (tmp_path / "from_file").mkdir()
    (tmp_path / "from_pipe").mkdir()
    wirecodec.convert(source, tmp_path / "from_file" / "m.onnx", to="external")
    with _pipe(data) as pipe:
        wirecodec.convert(pipe, tmp_path / "from_pipe" / "m.onnx", to="external")
    for name in sorted(os.listdir(tmp_path / "from_file")):
        assert (tmp_path / "from_pipe" / name).read_bytes() == (tmp_path / "from_file" / name).read_bytes(), (
            name
        )
    assert sorted(os.listdir(tmp_path / "from_pipe")) == sorted(os.listdir(tmp_path / "from_file"))


def test_a_bytes_io_is_not_a_pipe() -> None:
    # Seekable: read as bytes, whatever its size (every payload kept).
    data = _model({"big": PIPE_KEEP + 1}, total=PIPE_WHOLE + 1)
    assert _raw(wirecodec.load(io.BytesIO(data)), "big") == bytes(_tensor("big", PIPE_KEEP + 1).raw_data)


def _typed_first_model(total: int) -> bytes:
    """A typed-data tensor ('typed': float_data, no raw_data), then two payloads passed by
    ('a', 'b'), a small kept one ('c'), padded to ``total`` bytes."""
    data = _model({"a": PIPE_KEEP + 1, "b": 2 * PIPE_KEEP, "c": 100}, total=total)
    model = wirecodec.decode(ModelProto, data)
    typed = TensorProto(name="typed", data_type=TensorProto.FLOAT, dims=[3], float_data=[1.0, 2.0, 3.0])
    model.graph.initializer.insert(0, typed)
    model.graph.initializer.insert(2, TensorProto(name="empty", data_type=TensorProto.FLOAT, dims=[0]))
    return wirecodec.encode(model)


def test_payloads_passed_by_are_told_apart_from_tensors_with_typed_data() -> None:
    # The index of a passed payload counts every initializer, whether it has raw_data or not.
    data = _typed_first_model(PIPE_WHOLE + 1)
    with _pipe(data) as pipe:
        model = wirecodec.load(pipe)
    by_name = {t.name: t for t in model.graph.initializer}
    assert list(by_name["typed"].float_data) == [1.0, 2.0, 3.0]
    assert not by_name["typed"].HasField("raw_data") and not by_name["empty"].HasField("raw_data")
    for name in ("a", "b"):
        assert by_name[name].HasField("raw_data")
        with pytest.raises(PayloadPassedError, match=f"tensor '{name}'"):
            _ = by_name[name].raw_data
    assert _raw(model, "c") == bytes(_tensor("c", 100).raw_data)


def test_convert_from_a_pipe_puts_each_spooled_payload_in_its_own_tensor(tmp_path: pathlib.Path) -> None:
    data = _typed_first_model(PIPE_WHOLE + 4096)
    (tmp_path / "out").mkdir()
    with _pipe(data) as pipe:
        wirecodec.convert(pipe, tmp_path / "out" / "m.onnx", to="single")
    model = wirecodec.load(tmp_path / "out" / "m.onnx")
    assert wirecodec.encode(model) == data
