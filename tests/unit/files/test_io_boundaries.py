"""File I/O at its boundaries: positional reads around the read sizes and past 2 and 4 GiB,
and what the file holds at each step of a durable save.

Reads: the streaming reader fetches a payload with ``pread`` in pieces of at most 16 MiB
(``stream_input._CHUNK``) and reads headers through a 64 KiB window (``_WINDOW``). Each
read here starts and ends around those sizes and around the 2 GiB and 4 GiB offsets,
where a 32-bit offset or a piece read from the wrong place would show. The big files
are sparse (``truncate`` then a few marks written), so they cost no disk: every byte
not marked reads as zero, and each mark (8 bytes: its own offset) says where it came
from.

Durability: ``os.fsync``, ``os.replace`` and the directory fsync are recorded with
what the file held at that moment (read back through ``/proc/self/fd``), so a save that
syncs before it flushes, renames before it syncs or syncs the directory before the
rename is caught by what the disk would have held, not by which calls were made.
"""

from __future__ import annotations

import os
import pathlib
import stat
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto
from wirecodec.files.stream import input as stream_input
from wirecodec.files.stream.input import FileInput
from wirecodec.files.zip.container import save_zip

CHUNK = stream_input._CHUNK
WINDOW = stream_input._WINDOW
GIB = 1 << 30
MARK_EVERY = 1 << 20  # a mark every MiB of the windows around each boundary


# -- a sparse model with tensors across 2 GiB and 4 GiB ------------------------------------------------


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _tensor_head(name: str, length: int) -> bytes:
    """A UINT8 TensorProto up to its raw_data's payload (field numbers from onnx.proto)."""
    fields = b"\x08" + _varint(length) + b"\x10\x02" + b"\x42" + _varint(len(name)) + name.encode()
    return fields + b"\x4a" + _varint(length)


def _layout(
    sizes: list[tuple[str, int]],
) -> tuple[bytes, list[tuple[str, int, int]], list[tuple[int, bytes]]]:
    """The bytes other than payloads: (prefix, [(name, payload offset, length)], [(offset, bytes)])."""
    tensors = [_tensor_head(name, length) for name, length in sizes]
    records = [b"\x2a" + _varint(len(t) + length) + t for t, (_, length) in zip(tensors, sizes, strict=True)]
    graph_length = sum(len(r) + length for r, (_, length) in zip(records, sizes, strict=True))
    prefix = b"\x08\x0a" + b"\x3a" + _varint(graph_length)  # ir_version 10, then graph
    pieces, where, position = [(0, prefix)], [], len(prefix)
    for record, (name, length) in zip(records, sizes, strict=True):
        pieces.append((position, record))
        position += len(record)
        where.append((name, position, length))
        position += length
    return prefix, where, pieces


def _sized_to_cross(boundaries: list[int], span: int) -> list[tuple[str, int, int]]:
    """Filler and crossing tensors placed so that each crossing payload is centred on a boundary."""
    sizes: list[tuple[str, int]] = []
    for i in range(len(boundaries)):
        sizes += [(f"filler{i}", 1), (f"cross{i}", span)]
    for _ in range(3):  # header lengths depend on the sizes: a few rounds settle them
        _, where, _ = _layout(sizes)
        for i, boundary in enumerate(boundaries):
            cross = next(w for w in where if w[0] == f"cross{i}")
            name, filler = sizes[2 * i]
            sizes[2 * i] = (name, filler + boundary - span // 2 - cross[1])
    _, where, _ = _layout(sizes)
    return where


class SparseModel:
    """A model file of ~4 GiB that holds only its headers and the marks."""

    def __init__(self, path: pathlib.Path, span: int = 40 << 20) -> None:
        self.path = path
        self.boundaries = [2 * GIB, 4 * GIB]
        sizes = _sized_to_cross(self.boundaries, span)
        self.tensors = {name: (offset, length) for name, offset, length in sizes}
        _, _, pieces = _layout([(name, length) for name, _, length in sizes])
        self.size = sizes[-1][1] + sizes[-1][2]
        self.marks: dict[int, bytes] = {}
        for name, (offset, length) in self.tensors.items():
            if name.startswith("cross"):
                for at in range(offset, offset + length - 8, MARK_EVERY):
                    self.marks[at] = at.to_bytes(8, "little")
                for boundary in self.boundaries:  # marks straddling the boundary itself
                    for at in (boundary - 8, boundary - 4, boundary, boundary + CHUNK - 4):
                        if offset <= at and at + 8 <= offset + length:
                            self.marks[at] = (at | 1 << 63).to_bytes(8, "little")
        with path.open("wb") as file:
            file.truncate(self.size)
            for at, data in [*pieces, *self.marks.items()]:
                file.seek(at)
                file.write(data)

    def expected(self, offset: int, length: int) -> bytes:
        """What the file holds in [offset, offset + length), from the plan, not from the file."""
        length = max(0, min(length, self.size - offset))
        out = bytearray(length)
        for at, data in self.marks.items():
            if offset - 8 < at < offset + length:
                for k, byte in enumerate(data):
                    if 0 <= at + k - offset < length:
                        out[at + k - offset] = byte
        _, _, pieces = _layout([(n, ln) for n, (_, ln) in self.tensors.items()])
        for at, data in pieces:
            for k, byte in enumerate(data):
                if 0 <= at + k - offset < length:
                    out[at + k - offset] = byte
        return bytes(out)


@pytest.fixture(scope="module")
def sparse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparseModel]:
    path = tmp_path_factory.mktemp("sparse") / "big.onnx"
    model = SparseModel(path)
    if path.stat().st_blocks * 512 > 256 << 20:
        path.unlink()
        pytest.skip("this file system does not keep sparse files sparse")
    yield model
    path.unlink()


LENGTHS = [1, 8, WINDOW - 1, WINDOW, WINDOW + 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 1]


@pytest.mark.parametrize("boundary", [2 * GIB, 4 * GIB], ids=["2GiB", "4GiB"])
@pytest.mark.parametrize("length", LENGTHS)
def test_positional_reads_across_big_offsets(sparse: SparseModel, boundary: int, length: int) -> None:
    with sparse.path.open("rb") as file:
        source = FileInput(file.fileno(), 0, owned=False)
        for offset in {boundary - length // 2, boundary - length, boundary, boundary - 1}:
            got = bytes(source.read_at(offset, length))
            assert len(got) == min(length, sparse.size - offset), (offset, length)
            assert got == sparse.expected(offset, length), (offset, length)


def test_positional_reads_stop_at_the_end(sparse: SparseModel) -> None:
    with sparse.path.open("rb") as file:
        source = FileInput(file.fileno(), 0, owned=False)
        for length in (WINDOW + 1, CHUNK + 1):
            got = bytes(source.read_at(sparse.size - 10, length))
            assert got == sparse.expected(sparse.size - 10, 10)


def test_streamed_tensors_across_2_and_4_gib(sparse: SparseModel) -> None:
    """The public path: stream() gives each crossing tensor's bytes by read() and by chunks()."""
    seen = {}
    with wirecodec.stream(sparse.path) as events:
        for event in events:
            tensor = getattr(event, "tensor", None)
            if tensor is None or not tensor.name.startswith("cross"):
                continue
            offset, length = sparse.tensors[tensor.name]
            assert (tensor.raw_offset, tensor.raw_length) == (offset, length)
            want = sparse.expected(offset, length)
            assert bytes(tensor.read()) == want, tensor.name
            for size in (CHUNK - 1, CHUNK + 1):
                assert b"".join(bytes(c) for c in tensor.chunks(size)) == want, (tensor.name, size)
            seen[tensor.name] = offset
    assert seen["cross0"] < 2 * GIB < seen["cross0"] + (40 << 20)
    assert seen["cross1"] < 4 * GIB < seen["cross1"] + (40 << 20)


# -- payloads around the chunk size, through every public read path ------------------------------


def _pattern(length: int) -> np.ndarray:
    """Bytes in which every 4-byte word is its own index: a piece read from elsewhere shows."""
    words = np.arange((length + 3) // 4, dtype="<u4")
    return words.view(np.uint8)[:length]


@pytest.mark.parametrize("length", [CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK + 3])
def test_payloads_around_the_chunk_size(tmp_path: pathlib.Path, length: int) -> None:
    data = _pattern(length)
    path = tmp_path / "m.onnx"
    graph = GraphProto(name="g", initializer=[wirecodec.from_array(data, "p")])
    wirecodec.save(ModelProto(ir_version=10, graph=graph), path)
    want = data.tobytes()
    with wirecodec.stream(path) as events:
        tensors = [e.tensor for e in events if getattr(e, "tensor", None) is not None]
        (tensor,) = tensors
        assert bytes(tensor.read()) == want
        assert b"".join(bytes(c) for c in tensor.chunks()) == want
    with path.open("rb") as file, wirecodec.stream(file) as events:  # an open file: pread too
        (tensor,) = [e.tensor for e in events if getattr(e, "tensor", None) is not None]
        assert bytes(tensor.read()) == want
    assert bytes(wirecodec.load(path).graph.initializer[0].raw_data) == want


# -- durability: what the file held at each fsync, rename and directory fsync ----------------------


def _content(fd: int) -> bytes | None:
    link = pathlib.Path(f"/proc/self/fd/{fd}")
    try:
        return pathlib.Path(os.readlink(link)).read_bytes()
    except OSError:
        return None


@pytest.fixture
def journal(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str, bytes | None]]:
    """Every flush of a file AtomicFiles writes, every fsync (of a file: its path and what it
    held; of a directory) and every rename, in order."""
    if not pathlib.Path("/proc/self/fd").is_dir():
        pytest.skip("reads what a descriptor holds through /proc/self/fd")
    events: list[tuple[str, str, bytes | None]] = []
    real_fsync, real_fdatasync, real_replace = os.fsync, os.fdatasync, os.replace

    def syncing(real: Any) -> Any:
        def sync(fd: int) -> None:
            where = os.readlink(f"/proc/self/fd/{fd}")
            if stat.S_ISDIR(os.fstat(fd).st_mode):
                events.append(("fsync-directory", where, None))
            else:
                events.append(("fsync", where, _content(fd)))
            real(fd)

        return sync

    def replace(source: Any, target: Any, **kwargs: Any) -> None:
        events.append(
            ("rename", f"{os.fspath(source)} -> {os.fspath(target)}", pathlib.Path(source).read_bytes())
        )
        real_replace(source, target, **kwargs)

    real_fdopen = os.fdopen

    class Recorded:
        """The file object AtomicFiles writes through, with each flush recorded."""

        def __init__(self, file: Any) -> None:
            self._file = file

        def flush(self) -> None:
            self._file.flush()
            events.append(
                ("flush", os.readlink(f"/proc/self/fd/{self._file.fileno()}"), _content(self._file.fileno()))
            )

        def __getattr__(self, name: str) -> Any:
            return getattr(self._file, name)

        def __enter__(self) -> Recorded:
            self._file.__enter__()
            return self

        def __exit__(self, *exc_info: Any) -> Any:
            return self._file.__exit__(*exc_info)

    monkeypatch.setattr(os, "fdopen", lambda *args, **kwargs: Recorded(real_fdopen(*args, **kwargs)))
    monkeypatch.setattr(os, "fsync", syncing(real_fsync))
    monkeypatch.setattr(os, "fdatasync", syncing(real_fdatasync))
    monkeypatch.setattr(os, "replace", replace)
    return events


def _model(n: int) -> ModelProto:
    graph = GraphProto(
        name="g", initializer=[wirecodec.from_array(_pattern(n), "w"), wirecodec.from_array(_pattern(7), "b")]
    )
    return ModelProto(ir_version=10, producer_name="durable", graph=graph)


def _check_journal(events: list[tuple[str, str, bytes | None]], folder: pathlib.Path) -> None:
    """Each file flushed whole, then synced whole, then renamed; the directory synced after
    the last rename."""
    renames = [(e[1].split(" -> "), e[2]) for e in events if e[0] == "rename"]
    assert renames, events
    for (source, target), held in renames:
        final = pathlib.Path(target).read_bytes()
        assert held == final, f"{target}: renamed before it was complete"
        synced = [i for i, e in enumerate(events) if e[0] == "fsync" and e[1] == source]
        assert synced, f"{source} was never fsync'd"
        assert events[synced[-1]][2] == final, f"{target}: what fsync saw is not what the file holds"
        rename_at = next(i for i, e in enumerate(events) if e[0] == "rename" and e[1].startswith(source))
        assert synced[-1] < rename_at, f"{target}: renamed before it was fsync'd"
        flushed = [i for i, e in enumerate(events) if e[0] == "flush" and e[1] == source]
        assert flushed and flushed[-1] < synced[-1], f"{target}: fsync'd before its last flush"
        assert events[flushed[-1]][2] == final, f"{target}: flushed before it was complete"
    last_rename = max(i for i, e in enumerate(events) if e[0] == "rename")
    directory_syncs = [i for i, e in enumerate(events) if e[0] == "fsync-directory" and e[1] == str(folder)]
    assert directory_syncs and directory_syncs[-1] > last_rename, (
        "the directory was not fsync'd after the rename"
    )


@pytest.mark.parametrize("size", [5, 3000, 200_000], ids=["tiny", "under-a-buffer", "many-buffers"])
def test_durable_save_syncs_whole_files_then_renames_then_syncs_the_directory(
    tmp_path: pathlib.Path, journal: list[tuple[str, str, bytes | None]], size: int
) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(b"the previous version")
    wirecodec.save(_model(size), path)
    _check_journal(journal, tmp_path.resolve())


def test_durable_save_with_external_data(
    tmp_path: pathlib.Path, journal: list[tuple[str, str, bytes | None]]
) -> None:
    wirecodec.save(_model(3000), tmp_path / "m.onnx", external_data=True, size_threshold=16)
    assert sum(e[0] == "rename" for e in journal) == 2
    _check_journal(journal, tmp_path.resolve())


def test_durable_save_zip(tmp_path: pathlib.Path, journal: list[tuple[str, str, bytes | None]]) -> None:
    save_zip(_model(3000), tmp_path / "m.onnxz")
    _check_journal(journal, tmp_path.resolve())


def test_not_durable_save_renames_whole_files_without_syncing(
    tmp_path: pathlib.Path, journal: list[tuple[str, str, bytes | None]]
) -> None:
    wirecodec.save(_model(3000), tmp_path / "m.onnx", durable=False)
    assert [e[0] for e in journal if e[0] != "flush"] == ["rename"]
    assert journal[-1][2] == (tmp_path / "m.onnx").read_bytes()


# -- a zip container past 4 GiB, sparse: ZIP64 offsets and sizes on a real file --------------------


def _sparse_zip(path: pathlib.Path) -> dict[str, Any]:
    """``big`` (4 GiB + 16 MiB of zeros with marks), then ``tail`` and ``__MODEL_PROTO`` past 4 GiB.

    Records from tests/support/zip_forge.py, numbers in ZIP64 extras where 32 bits do not hold
    them. The reader never checks a tensor entry's CRC-32, and 4 GiB of zeros are not
    worth summing: ``big``'s CRC is 0 in both of its records (``tail``'s and the model's
    are real, so zipfile reads those entries as well).
    """
    import zlib

    from tests.support.zip_cases import model_bytes
    from tests.support.zip_forge import U32, Member, _central, _local, end_record, zip64_extra

    big_length = (4 << 30) + (16 << 20)
    tail = _pattern(1 << 20).tobytes()
    proto = model_bytes([("big", "big", big_length, None), ("tail", "tail", len(tail), None)])
    big = Member(
        b"big",
        b"",
        local={"size": U32, "packed_size": U32, "crc": 0},
        local_extra=zip64_extra(big_length, big_length),
        central={"size": U32, "packed_size": U32, "crc": 0},
        central_extra=zip64_extra(big_length, big_length),
    )
    big_header = _local(big)
    big_data = len(big_header)
    tail_at = big_data + big_length
    tail_member = Member(b"tail", tail, central={"offset": U32}, central_extra=zip64_extra(tail_at))
    tail_header = _local(tail_member)
    model_at = tail_at + len(tail_header) + len(tail)
    model_member = Member(b"__MODEL_PROTO", proto)
    model_header = _local(model_member)
    directory_at = model_at + len(model_header) + len(proto)
    model_member.central.update(offset=U32)
    model_member.central_extra = zip64_extra(model_at)
    directory = _central(big, 0) + _central(tail_member, U32) + _central(model_member, U32)
    end64_at = directory_at + len(directory)
    end64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 3, 3, len(directory), directory_at)
    locator = struct.pack("<IIQI", 0x07064B50, 0, end64_at, 1)
    end = end_record(0xFFFF, U32, U32)
    marks = {at: (at | 1 << 63).to_bytes(8, "little") for at in (2 * GIB - 8, 2 * GIB, 4 * GIB - 8, 4 * GIB)}
    marks[big_data] = b"first!!!"
    marks[big_data + big_length - 8] = b"last!!!!"
    with path.open("wb") as file:
        file.truncate(end64_at + len(end64) + len(locator) + len(end))
        pieces = [(0, big_header), (tail_at, tail_header + tail), (model_at, model_header + proto)]
        pieces += [(directory_at, directory + end64 + locator + end), *marks.items()]
        for at, data in pieces:
            file.seek(at)
            file.write(data)
    assert zlib.crc32(tail) == struct.unpack_from("<I", tail_header, 14)[0]
    return {"big_data": big_data, "big_length": big_length, "tail_at": tail_at, "tail": tail, "marks": marks}


@pytest.fixture(scope="module")
def sparse_zip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[pathlib.Path, dict[str, Any]]]:
    path = tmp_path_factory.mktemp("sparse-zip") / "big.onnxz"
    plan = _sparse_zip(path)
    if path.stat().st_blocks * 512 > 256 << 20:
        path.unlink()
        pytest.skip("this file system does not keep sparse files sparse")
    yield path, plan
    path.unlink()


def test_zip_container_past_4_gib(sparse_zip: tuple[pathlib.Path, dict[str, Any]]) -> None:
    import zipfile

    from wirecodec.files.zip.container import load_zip

    path, plan = sparse_zip
    with zipfile.ZipFile(path) as archive:  # a second opinion on the ZIP64 records
        infos = {info.filename: info for info in archive.infolist()}
        assert infos["big"].file_size == plan["big_length"]
        assert infos["tail"].header_offset == plan["tail_at"] > 1 << 32
        assert archive.read("tail") == plan["tail"]
    for model in (load_zip(path), wirecodec.load(path)):
        big, tail = model.graph.initializer
        view = big.raw_data
        assert type(view.obj).__name__ == "mmap" and view.nbytes == plan["big_length"]
        for at, mark in plan["marks"].items():
            start = at - plan["big_data"]
            assert bytes(view[start : start + 8]) == mark, at
        assert bytes(tail.raw_data) == plan["tail"]
        assert bytes(view[(3 << 30) : (3 << 30) + 64]) == bytes(64)  # unmarked: the file's zeros
