"""The zip model container: layout checked with zipfile and unzip, round trips, ZIP64,
replace_model leaving the weights in place, and hostile archives refused by name."""

from __future__ import annotations

import contextlib
import io
import os
import pathlib
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import textwrap
import warnings
import zipfile
import zlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import wirecodec
from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
)
from tests.support.exports import Export
from wirecodec import ContainerError, ExternalDataError, WireCodecError, from_array, to_array
from wirecodec.examples.build_mlp import build
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.zip import replace as zip_replace
from wirecodec.files.zip.container import is_zip, load_zip, replace_model, save_zip
from wirecodec.files.zip.layout import EntryNames

ROOT = pathlib.Path(__file__).resolve().parents[3]
C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
LOCAL = struct.Struct("<IHHHHHIIIHH")


# -- helpers: read the archive with zipfile and raw bytes, never with our reader ---------------


def data_offsets(path: pathlib.Path) -> dict[str, int]:
    """Each entry's data offset, from zipfile's directory and the local headers' bytes."""
    raw = path.read_bytes()
    offsets = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            fields = LOCAL.unpack_from(raw, info.header_offset)
            assert fields[0] == 0x04034B50
            offsets[info.filename] = info.header_offset + LOCAL.size + fields[9] + fields[10]
    return offsets


def entry_bytes(path: pathlib.Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def unzip_test(path: pathlib.Path) -> None:
    if shutil.which("unzip") is None:
        pytest.skip("unzip is not installed")
    result = subprocess.run(["unzip", "-t", str(path)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def check_layout(path: pathlib.Path) -> None:
    """The container's promises, checked with zipfile: valid, stored, aligned, model last."""
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
        infos = archive.infolist()
        assert all(info.compress_type == zipfile.ZIP_STORED for info in infos)
        assert infos[-1].filename == "__MODEL_PROTO"
        assert max(infos, key=lambda i: i.header_offset).filename == "__MODEL_PROTO"
        names = [info.filename for info in infos[:-1]]
    assert all(C_IDENTIFIER.fullmatch(name) for name in names), names
    assert len({name.lower() for name in names}) == len(names)
    offsets = data_offsets(path)
    assert all(offsets[name] % 64 == 0 for name in names), offsets


def same_tensors(a: ModelProto, b: ModelProto) -> None:
    left, right = list(iter_tensors(a)), list(iter_tensors(b))
    assert [t.name for t in left] == [t.name for t in right]
    for x, y in zip(left, right, strict=True):
        ax, ay = to_array(x), to_array(y)
        assert ax.dtype == ay.dtype and ax.shape == ay.shape, x.name
        assert ax.tobytes() == ay.tobytes(), x.name


@pytest.fixture
def mlp_zip(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "mlp.onnxz"
    save_zip(build(), path)
    return path


# -- PyTorch exports ----------------------------------------------------------------------------


def test_pytorch_exports_as_zip(pytorch_exports: list[Export], tmp_path: pathlib.Path) -> None:
    onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
    from onnx import numpy_helper

    for item in pytorch_exports:
        path = tmp_path / f"{item.name}.onnxz"
        original = wirecodec.load(item.data)
        save_zip(original, path)
        check_layout(path)
        unzip_test(path)
        loaded = wirecodec.load(path)
        same_tensors(original, loaded)
        # and against onnx's own reading of the export, bit for bit
        reference = {
            t.name: numpy_helper.to_array(t) for t in onnx.load_from_string(item.data).graph.initializer
        }
        ours = {t.name: to_array(t) for t in loaded.graph.initializer}
        assert reference.keys() == ours.keys(), item.name
        for name, want in reference.items():
            assert want.dtype == ours[name].dtype and want.tobytes() == ours[name].tobytes(), (
                item.name,
                name,
            )


def test_round_trip_is_the_saved_model(mlp_zip: pathlib.Path) -> None:
    # Tensors stored as raw_data come back as they were: the whole model encodes the same.
    assert wirecodec.encode(load_zip(mlp_zip)) == wirecodec.encode(build())
    assert wirecodec.encode(load_zip(mlp_zip, lazy=False)) == wirecodec.encode(build())


def test_views_are_zero_copy_and_aligned(mlp_zip: pathlib.Path) -> None:
    model = load_zip(mlp_zip)
    for tensor in model.graph.initializer:
        view = tensor.raw_data
        assert isinstance(view, memoryview) and view.readonly
        assert type(view.obj).__name__ == "mmap"
        assert np.frombuffer(view, np.uint8).ctypes.data % 64 == 0


def test_every_tensor_kind_goes_to_an_entry(tmp_path: pathlib.Path) -> None:
    typed = TensorProto(name="typed", data_type=TensorProto.FLOAT, dims=[3], float_data=[1.0, 2.0, 3.0])
    strings = TensorProto(name="s", data_type=TensorProto.STRING, dims=[1], string_data=[b"hi"])
    constant = NodeProto(op_type="Constant", output=["c"], attribute=[_tensor_attribute("value", "c.value")])
    graph = GraphProto(name="g", node=[constant], initializer=[typed, strings, from_array(np.eye(3), "w")])
    model = ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=17)], graph=graph)
    path = tmp_path / "kinds.onnxz"
    save_zip(model, path)
    with zipfile.ZipFile(path) as archive:
        assert archive.namelist() == ["typed", "w", "c_value", "__MODEL_PROTO"]
    loaded = load_zip(path)
    assert to_array(loaded.graph.initializer[0]).tolist() == [1.0, 2.0, 3.0]
    assert list(loaded.graph.initializer[1].string_data) == [b"hi"]  # strings stay inline
    assert to_array(loaded.graph.node[0].attribute[0].t).tolist() == [0, 1, 2, 3, 4, 5]


def _tensor_attribute(name: str, tensor_name: str) -> AttributeProto:
    return AttributeProto(
        name=name, type=AttributeProto.TENSOR, t=from_array(np.arange(6, dtype=np.int64), tensor_name)
    )


def test_save_zip_leaves_the_callers_model_alone(tmp_path: pathlib.Path) -> None:
    model = build()
    before = wirecodec.encode(model)
    save_zip(model, tmp_path / "m.onnxz")
    assert wirecodec.encode(model) == before


def test_save_zip_is_deterministic(tmp_path: pathlib.Path) -> None:
    save_zip(build(), tmp_path / "a.onnxz")
    save_zip(build(), tmp_path / "b.onnxz")
    assert (tmp_path / "a.onnxz").read_bytes() == (tmp_path / "b.onnxz").read_bytes()


@pytest.mark.parametrize("align", [1, 4, 64, 4096])
def test_alignment_is_honoured(tmp_path: pathlib.Path, align: int) -> None:
    path = tmp_path / "m.onnxz"
    save_zip(build(), path, align=align)
    offsets = data_offsets(path)
    assert all(offset % align == 0 for name, offset in offsets.items() if name != "__MODEL_PROTO")
    assert zipfile.ZipFile(path).testzip() is None
    same_tensors(build(), load_zip(path))


@pytest.mark.parametrize("align", [0, 3, 65536])
def test_bad_alignment_is_refused(tmp_path: pathlib.Path, align: int) -> None:
    with pytest.raises(ValueError, match="align"):
        save_zip(build(), tmp_path / "m.onnxz", align=align)


def test_a_failed_save_leaves_the_old_file(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.onnxz"
    save_zip(build(), path)
    before = path.read_bytes()
    from wirecodec.files.zip import container as zip_container

    calls = []

    def failing(*args: object) -> None:
        calls.append(args)
        if len(calls) == 2:
            raise OSError("disk full")
        original(*args)  # type: ignore[arg-type]

    original = zip_container._write_entry
    monkeypatch.setattr(zip_container, "_write_entry", failing)
    with pytest.raises(OSError, match="disk full"):
        save_zip(build(), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnxz"]


def test_unresolved_external_data_is_refused(tmp_path: pathlib.Path) -> None:
    wirecodec.save(build(), tmp_path / "ext.onnx", external_data=True, size_threshold=0)
    model = wirecodec.load(tmp_path / "ext.onnx", load_external_data=False)
    with pytest.raises(ExternalDataError, match="load the model with its external data"):
        save_zip(model, tmp_path / "m.onnxz")


# -- entry names --------------------------------------------------------------------------------


def test_entry_names_are_unique_c_identifiers(tmp_path: pathlib.Path) -> None:
    names = ["conv.weight", "conv_weight", "CONV_WEIGHT", "1st", "", "", "ü/../x", "__MODEL_PROTO"]
    graph = GraphProto(
        name="g", initializer=[from_array(np.full(2, i, np.float32), n) for i, n in enumerate(names)]
    )
    path = tmp_path / "names.onnxz"
    save_zip(ModelProto(ir_version=10, graph=graph), path)
    with zipfile.ZipFile(path) as archive:
        entries = archive.namelist()
    assert entries == [
        "conv_weight", "conv_weight_2", "CONV_WEIGHT_3", "_1st", "tensor", "tensor_2", "_____x",
        "__MODEL_PROTO_2", "__MODEL_PROTO",
    ]  # fmt: skip
    loaded = load_zip(path)
    assert [t.name for t in loaded.graph.initializer] == names
    assert [to_array(t)[0] for t in loaded.graph.initializer] == list(range(len(names)))


@given(st.lists(st.text(max_size=12), max_size=30))
def test_entry_names_property(tensor_names: list[str]) -> None:
    names = EntryNames()
    taken = [names.take(name) for name in tensor_names]
    assert all(C_IDENTIFIER.fullmatch(name) for name in taken)
    lowered = [name.lower() for name in taken]
    assert len(set(lowered)) == len(lowered) and "__model_proto" not in lowered
    again = EntryNames()
    assert [again.take(name) for name in tensor_names] == taken  # deterministic


# -- is_zip and load() ------------------------------------------------------------------------------


def test_is_zip_by_content(mlp_zip: pathlib.Path, tmp_path: pathlib.Path) -> None:
    plain = tmp_path / "plain.onnxz"  # the extension says nothing
    wirecodec.save(build(), plain)
    assert is_zip(mlp_zip) and not is_zip(plain)
    assert is_zip(mlp_zip.read_bytes()) and not is_zip(plain.read_bytes())
    with mlp_zip.open("rb") as file:
        file.seek(3)
        assert not is_zip(file) and file.tell() == 3
        file.seek(0)
        assert is_zip(file) and file.tell() == 0
    assert not is_zip(b"")


def test_load_opens_the_container_from_any_source(mlp_zip: pathlib.Path) -> None:
    want = wirecodec.encode(build())
    assert wirecodec.encode(wirecodec.load(mlp_zip)) == want
    assert wirecodec.encode(wirecodec.load(str(mlp_zip), lazy=False)) == want
    with mlp_zip.open("rb") as file:
        assert wirecodec.encode(wirecodec.load(file)) == want
    assert wirecodec.encode(wirecodec.load(mlp_zip.read_bytes())) == want
    assert wirecodec.encode(wirecodec.load(io.BytesIO(mlp_zip.read_bytes()))) == want
    kept = wirecodec.load(mlp_zip, load_external_data=False)
    refs = {e.key: e.value for e in kept.graph.initializer[0].external_data}
    assert refs == {"location": "w1", "length": "256"}
    assert kept.graph.initializer[0].data_location == TensorProto.EXTERNAL


def test_unzipped_container_is_a_model_with_external_data(
    mlp_zip: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    """The references are ordinary external data: unpacked, the archive is a model onnx reads."""
    onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
    folder = tmp_path / "unpacked"
    with zipfile.ZipFile(mlp_zip) as archive:
        archive.extractall(folder)
    (folder / "__MODEL_PROTO").rename(folder / "model.onnx")
    theirs = onnx.load(str(folder / "model.onnx"))
    from onnx import numpy_helper

    for ours, their in zip(build().graph.initializer, theirs.graph.initializer, strict=True):
        assert to_array(ours).tobytes() == numpy_helper.to_array(their).tobytes()


# -- ZIP64 ------------------------------------------------------------------------------------------


def test_more_than_65535_entries(tmp_path: pathlib.Path) -> None:
    count = 70_000
    graph = GraphProto(
        name="many", initializer=[from_array(np.array([i], np.int32), f"t{i}") for i in range(count)]
    )
    path = tmp_path / "many.onnxz"
    save_zip(ModelProto(ir_version=10, graph=graph), path)
    with zipfile.ZipFile(path) as archive:
        assert len(archive.infolist()) == count + 1
    tail = path.read_bytes()[-200:]
    assert b"PK\x06\x06" in tail and b"PK\x06\x07" in tail  # ZIP64 end record and locator
    unzip_test(path)
    loaded = load_zip(path)
    values = [int(to_array(t)[0]) for t in loaded.graph.initializer]
    assert values == list(range(count))
    # replace_model writes its own ZIP64 end records (checked here with zipfile and unzip)
    loaded.producer_name = "renamed"
    replace_model(path, loaded)
    with zipfile.ZipFile(path) as archive:
        assert len(archive.infolist()) == count + 1
        again = wirecodec.decode(ModelProto, archive.read("__MODEL_PROTO"))
        assert archive.read(f"t{count - 1}") == np.array([count - 1], np.int32).tobytes()
    assert again.producer_name == "renamed" and len(again.graph.initializer) == count
    unzip_test(path)


BIG_SCRIPT = textwrap.dedent(
    """
    import json, mmap, sys, zipfile
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
    from wirecodec.files.zip.container import load_zip, replace_model, save_zip

    path = sys.argv[1]
    pattern = np.arange(64 << 20, dtype=np.uint32).view(np.uint8)  # 256 MiB, shared by three tensors
    # One entry past 4 GiB from a private anonymous map never written to: reads see the
    # kernel's zero page, so it costs no memory (numpy's zeros would ask for huge pages,
    # which the kernel may fill in).
    huge = mmap.mmap(-1, (4 << 30) + 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)

    def tensor(name, array):
        kind = TensorProto.UINT8
        view = memoryview(array).toreadonly()  # kept as it is (a writable buffer is copied)
        return TensorProto(name=name, data_type=kind, dims=[len(array)], raw_data=view)

    tensors = [tensor("huge", huge)] + [tensor(f"p{i}", pattern) for i in range(3)]
    save_zip(ModelProto(ir_version=10, graph=GraphProto(name="big", initializer=tensors)), path)
    # VmHWM is this program's own peak: ru_maxrss would also count the pytest process this
    # one was forked from, as Linux carries the peak across exec.
    status = open("/proc/self/status").read().split("VmHWM:")[1]
    peak_save = int(status.split()[0])
    model = load_zip(path)
    checks = [bytes(model.graph.initializer[0].raw_data[-8:]) == bytes(8)]
    for t in model.graph.initializer[1:]:
        view = t.raw_data
        checks.append(view.nbytes == pattern.size and bytes(view[:64]) == pattern[:64].tobytes())
        checks.append(bytes(view[-64:]) == pattern[-64:].tobytes())
    model.producer_name = "replaced"
    replace_model(path, model)
    renamed = load_zip(path).producer_name == "replaced"
    with zipfile.ZipFile(path) as archive:
        offsets = [i.header_offset for i in archive.infolist()]
        sizes = [i.file_size for i in archive.infolist()]
    print(json.dumps({"peak_kib": peak_save, "checks": checks, "renamed": renamed, "offsets": offsets,
                      "sizes": sizes}))
    """
)


@pytest.mark.slow
@pytest.mark.skipif(not pathlib.Path("/proc/self/status").exists(), reason="reads the peak RSS from /proc")
def test_archive_and_entry_past_4_gib(tmp_path: pathlib.Path) -> None:
    import json

    path = tmp_path / "big.onnxz"
    try:
        result = subprocess.run(
            [sys.executable, "-c", BIG_SCRIPT, str(path), str(ROOT)],
            capture_output=True,
            text=True,
            check=True,
        )
        report = json.loads(result.stdout)
        assert all(report["checks"]) and report["renamed"]
        assert report["sizes"][0] == (4 << 30) + 4096 and max(report["offsets"]) > 1 << 32
        # Peak RSS of the writer of a 5 GiB archive: the 256 MiB pattern, the interpreter and
        # 64 MiB slices (about 290 MB measured).
        assert report["peak_kib"] < 640 << 10, report["peak_kib"]
        assert path.stat().st_size > (4 << 30) + 3 * (256 << 20)
        with zipfile.ZipFile(path) as archive:
            assert archive.testzip() is None
        unzip_test(path)
    finally:
        path.unlink(missing_ok=True)


# -- replace_model ----------------------------------------------------------------------------------


def _tensor_entries(path: pathlib.Path) -> dict[str, tuple[int, int, bytes]]:
    offsets = data_offsets(path)
    contents = entry_bytes(path)
    with zipfile.ZipFile(path) as archive:
        headers = {i.filename: i.header_offset for i in archive.infolist()}
    return {n: (headers[n], offsets[n], contents[n]) for n in contents if n != "__MODEL_PROTO"}


def test_replace_model_leaves_the_weights_in_place(
    pytorch_exports: list[Export], tmp_path: pathlib.Path
) -> None:
    item = next(e for e in pytorch_exports if e.name.startswith("embedding"))
    path = tmp_path / "embed.onnxz"
    save_zip(wirecodec.load(item.data), path)
    before, size_before = _tensor_entries(path), path.stat().st_size
    old_proto = entry_bytes(path)["__MODEL_PROTO"]

    model = load_zip(path)
    model.doc_string = "rewritten " * 20
    model.graph.node[0].name = "first"
    replace_model(path, model)

    assert _tensor_entries(path) == before  # offsets and bytes of every weight unchanged
    new_proto = entry_bytes(path)["__MODEL_PROTO"]
    assert path.stat().st_size - size_before == len(new_proto) - len(old_proto)
    check_layout(path)
    unzip_test(path)
    loaded = load_zip(path)
    assert loaded.doc_string == model.doc_string and loaded.graph.node[0].name == "first"
    same_tensors(wirecodec.load(item.data), loaded)
    # The model used for the replace still reads its weights: they never moved.
    same_tensors(wirecodec.load(item.data), model)


def test_replace_model_grows_and_shrinks_with_the_model(mlp_zip: pathlib.Path) -> None:
    original_size = mlp_zip.stat().st_size
    model = load_zip(mlp_zip)
    model.doc_string = "x" * 100_000
    replace_model(mlp_zip, model)
    assert mlp_zip.stat().st_size == original_size + 100_000 + 4  # a 1-byte tag, a 3-byte length
    assert zipfile.ZipFile(mlp_zip).testzip() is None
    model = load_zip(mlp_zip)
    model.ClearField("doc_string")
    replace_model(mlp_zip, model)
    assert mlp_zip.stat().st_size == original_size
    assert wirecodec.encode(load_zip(mlp_zip)) == wirecodec.encode(build())


def test_replace_model_recognises_copies_by_content(mlp_zip: pathlib.Path) -> None:
    size = mlp_zip.stat().st_size
    model = load_zip(mlp_zip, lazy=False)
    model.producer_name = "copied"
    replace_model(mlp_zip, model)
    assert len(entry_bytes(mlp_zip)["__MODEL_PROTO"]) < 500  # weights not inlined
    assert abs(mlp_zip.stat().st_size - size) <= 16


def test_replace_model_inlines_data_from_elsewhere(mlp_zip: pathlib.Path, tmp_path: pathlib.Path) -> None:
    other = tmp_path / "other.onnxz"
    save_zip(build(), other)
    model = load_zip(other)  # views of another archive: not this one's entries
    model.graph.initializer.append(from_array(np.ones(4, np.float32), "extra"))
    before = _tensor_entries(mlp_zip)
    replace_model(mlp_zip, model)
    assert _tensor_entries(mlp_zip) == before
    loaded = load_zip(mlp_zip)
    assert to_array(loaded.graph.initializer[-1]).tolist() == [1.0] * 4
    same_tensors(model, loaded)


def test_replace_model_refuses_a_reference_to_no_entry(mlp_zip: pathlib.Path) -> None:
    model = load_zip(mlp_zip, load_external_data=False)
    model.graph.initializer[0].external_data[0].value = "missing"
    before = mlp_zip.read_bytes()
    with pytest.raises(ContainerError, match="'missing'"):
        replace_model(mlp_zip, model)
    assert mlp_zip.read_bytes() == before


def test_replace_model_killed_before_the_append_leaves_the_old_archive(
    mlp_zip: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def killed(file: object, offset: int, data: bytes) -> None:
        raise OSError("killed")

    monkeypatch.setattr(zip_replace, "_write_synced", killed)
    model = load_zip(mlp_zip)
    model.producer_name = "new"
    with pytest.raises(OSError, match="killed"):
        replace_model(mlp_zip, model)
    assert wirecodec.encode(load_zip(mlp_zip)) == wirecodec.encode(build())


def test_replace_model_crash_while_moving_the_tail_leaves_the_new_archive(
    mlp_zip: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 2 overwrites the old tail while the appended copy still ends the file."""
    real = zip_replace._write_synced
    calls: list[int] = []

    def crash_in_step_two(file: object, offset: int, data: bytes) -> None:
        calls.append(offset)
        if len(calls) == 2:
            real(file, offset, data[: len(data) // 2])  # type: ignore[arg-type]
            raise OSError("power cut")
        real(file, offset, data)  # type: ignore[arg-type]

    monkeypatch.setattr(zip_replace, "_write_synced", crash_in_step_two)
    model = load_zip(mlp_zip)
    model.producer_name = "new"
    with pytest.raises(OSError, match="power cut"):
        replace_model(mlp_zip, model)
    assert calls[0] > calls[1]  # appended first, then moved down
    assert zipfile.ZipFile(mlp_zip).testzip() is None
    unzip_test(mlp_zip)
    loaded = load_zip(mlp_zip)
    assert loaded.producer_name == "new"
    same_tensors(build(), loaded)


def test_replace_model_torn_append_keeps_the_old_archive_as_a_prefix(
    mlp_zip: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The documented window: a power cut while step 1's append reaches the disk leaves a
    partial tail after the old archive. load refuses the file; its prefix is the old archive."""
    old_size = mlp_zip.stat().st_size
    real = zip_replace._write_synced

    def torn(file: object, offset: int, data: bytes) -> None:
        real(file, offset, data[: len(data) // 2])  # type: ignore[arg-type]
        raise OSError("power cut")

    monkeypatch.setattr(zip_replace, "_write_synced", torn)
    model = load_zip(mlp_zip)
    model.producer_name = "new"
    with pytest.raises(OSError, match="power cut"):
        replace_model(mlp_zip, model)
    with pytest.raises(ContainerError, match="end of central directory"):
        load_zip(mlp_zip)
    assert wirecodec.encode(load_zip(mlp_zip.read_bytes()[:old_size])) == wirecodec.encode(build())


# -- hostile archives ---------------------------------------------------------------------------


def _zip(entries: list[tuple[str | zipfile.ZipInfo, bytes]], method: int = zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate names we want
        with zipfile.ZipFile(buffer, "w", method) as archive:
            for name, data in entries:
                archive.writestr(name, data)
    return buffer.getvalue()


def _model_bytes(location: str = "w", length: int = 16) -> bytes:
    tensor = TensorProto(
        name="weight",
        data_type=TensorProto.FLOAT,
        dims=[length // 4],
        data_location=TensorProto.EXTERNAL,
        external_data=[
            StringStringEntryProto(key="location", value=location),
            StringStringEntryProto(key="length", value=str(length)),
        ],
    )
    return wirecodec.encode(ModelProto(ir_version=10, graph=GraphProto(name="g", initializer=[tensor])))


def _valid() -> bytes:
    return _zip([("w", bytes(range(16))), ("__MODEL_PROTO", _model_bytes())])


def _find_central(data: bytes, name: bytes) -> int:
    position = data.index(b"PK\x01\x02")
    while True:
        name_size = struct.unpack_from("<H", data, position + 28)[0]
        if data[position + 46 : position + 46 + name_size] == name:
            return position
        position = data.index(b"PK\x01\x02", position + 4)


def _patch(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def _overlapping() -> bytes:
    """Entry 'b' hides inside entry 'a''s data: a local header for it and its bytes."""
    b_data = b"0123456789"
    b_local = LOCAL.pack(0x04034B50, 20, 0, 0, 0, 0x21, zlib.crc32(b_data), 10, 10, 1, 0) + b"b"
    a_data = b"x" * 30 + b_local + b_data + b"y" * 20
    proto = _model_bytes("a", 16)
    parts = [("a", a_data), ("__MODEL_PROTO", proto)]
    data = bytearray(_zip(parts))
    # Add a central record for 'b' pointing into 'a', and fix the end record.
    b_header = 30 + 1 + 30  # a's local header, its name, then 30 bytes of a's data
    record = (
        struct.pack(
            "<IHHHHHHIIIHHHHHII",
            0x02014B50,
            20,
            20,
            0,
            0,
            0,
            0x21,
            zlib.crc32(b_data),
            10,
            10,
            1,
            0,
            0,
            0,
            0,
            0,
            b_header,
        )
        + b"b"
    )
    end = data.rindex(b"PK\x05\x06")
    count, cd_size, cd_offset = struct.unpack_from("<HII", data, end + 10)
    data[end:end] = record
    end += len(record)
    struct.pack_into("<HHII", data, end + 8, count + 1, count + 1, cd_size + len(record), cd_offset)
    return bytes(data)


def _encrypted() -> bytes:
    data = _valid()
    central = _find_central(data, b"w")
    data = _patch(data, central + 8, "<H", 1)  # general purpose flag: encrypted
    return _patch(data, 0 + 6, "<H", 1)


def _lying_directory_offset() -> bytes:
    data = _valid()
    end = data.rindex(b"PK\x05\x06")
    return _patch(data, end + 16, "<I", struct.unpack_from("<I", data, end + 16)[0] + 1)


def _size_past_directory() -> bytes:
    data = _valid()
    central = _find_central(data, b"w")
    data = _patch(data, central + 20, "<I", 10_000)
    return _patch(data, central + 24, "<I", 10_000)


def _local_disagrees() -> bytes:
    data = _valid()
    return _patch(data, 14, "<I", 0xDEADBEEF)  # the local header's CRC


def _model_crc() -> bytes:
    data = bytearray(_valid())
    proto = _model_bytes()
    position = data.rindex(proto)
    data[position] ^= 0x01
    return bytes(data)


def _bad_proto() -> bytes:
    return _zip([("w", bytes(16)), ("__MODEL_PROTO", b"\x08\x80")])


def _case_duplicate() -> bytes:
    return _zip([("w", bytes(16)), ("W", bytes(16)), ("__MODEL_PROTO", _model_bytes())])


def _locator_to_nowhere() -> bytes:
    data = bytearray(_valid())
    end = data.rindex(b"PK\x05\x06")
    data[end:end] = struct.pack("<IIQI", 0x07064B50, 0, 123456, 1)
    return bytes(data)


HOSTILE: dict[str, tuple[Callable[[], bytes], str]] = {
    "overlapping entries": (_overlapping, r"entry 'b' .*overlaps entry 'a'"),
    "compressed entry": (
        lambda: _zip([("w", bytes(64)), ("__MODEL_PROTO", _model_bytes())], zipfile.ZIP_DEFLATED),
        r"entry 'w' is compressed",
    ),
    "encrypted entry": (_encrypted, r"entry 'w' is encrypted"),
    "path in a name": (
        lambda: _zip([("dir/w", bytes(16)), ("__MODEL_PROTO", _model_bytes())]),
        r"entry 'dir/w'.*path separator",
    ),
    "dot-dot in a name": (
        lambda: _zip([("..w", bytes(16)), ("__MODEL_PROTO", _model_bytes())]),
        r"entry '..w'.*'..'",
    ),
    "missing model": (lambda: _zip([("w", bytes(16))]), r"no __MODEL_PROTO entry"),
    "duplicate model": (
        lambda: _zip(
            [("w", bytes(16)), ("__MODEL_PROTO", _model_bytes()), ("__MODEL_PROTO", _model_bytes())]
        ),
        r"entry '__MODEL_PROTO' appears twice",
    ),
    "duplicate under down-casing": (_case_duplicate, r"entries 'w' and 'W' differ only in case"),
    "lying directory offset": (_lying_directory_offset, r"central directory lies"),
    "entry running into the directory": (_size_past_directory, r"entry 'w'.*run into the central directory"),
    "local header disagrees": (_local_disagrees, r"entry 'w'.*disagrees with the central directory"),
    "corrupt model entry": (_model_crc, r"entry '__MODEL_PROTO'.*CRC"),
    "model entry not a ModelProto": (_bad_proto, r"entry '__MODEL_PROTO': not a valid ModelProto"),
    "reference to a missing entry": (
        lambda: _zip([("w", bytes(16)), ("__MODEL_PROTO", _model_bytes("nothere"))]),
        r"tensor 'weight' refers to entry 'nothere'",
    ),
    "reference past an entry's end": (
        lambda: _zip([("w", bytes(8)), ("__MODEL_PROTO", _model_bytes("w", 16))]),
        r"tensor 'weight'.*entry 'w' lie past its end",
    ),
    "ZIP64 locator to nowhere": (_locator_to_nowhere, r"ZIP64"),
    "not an archive": (lambda: b"PK\x03\x04" + bytes(100), r"no end of central directory"),
    "empty archive": (lambda: _zip([]), r"no __MODEL_PROTO entry"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_archive_is_refused_by_name(case: str, tmp_path: pathlib.Path) -> None:
    make, message = HOSTILE[case]
    data = make()
    path = tmp_path / "hostile.onnxz"
    path.write_bytes(data)
    for load in (lambda: load_zip(path), lambda: wirecodec.load(path), lambda: load_zip(data, lazy=False)):
        with pytest.raises(ContainerError, match=message):
            load()
    assert _valid() != data


def test_the_valid_base_of_the_table_loads() -> None:
    model = load_zip(_valid())
    assert bytes(model.graph.initializer[0].raw_data) == bytes(range(16))


def test_truncated_archives_are_refused(mlp_zip: pathlib.Path) -> None:
    data = mlp_zip.read_bytes()
    for length in [0, 1, 4, 21, 22, 100, len(data) // 2, len(data) - 23, len(data) - 1]:
        with pytest.raises(ContainerError):
            load_zip(data[:length])
    empty = mlp_zip.with_name("empty.onnxz")
    empty.write_bytes(b"")
    with pytest.raises(ContainerError, match="empty"):
        load_zip(empty)


def test_trailing_bytes_are_refused(mlp_zip: pathlib.Path) -> None:
    with pytest.raises(ContainerError, match="end of central directory"):
        load_zip(mlp_zip.read_bytes() + b"junk")


# -- mutations ----------------------------------------------------------------------------------

_BASE = _valid()
_CENTRAL_W = _find_central(_BASE, b"w")
_END = _BASE.rindex(b"PK\x05\x06")
# (offset, struct format) of every number in the central record of 'w' and in the end record
_CENTRAL_FIELDS = [(8, "<H"), (10, "<H"), (20, "<I"), (24, "<I"), (28, "<H"), (30, "<H")]
_CENTRAL_FIELDS += [(32, "<H"), (34, "<H")]
_FIELDS = [(_CENTRAL_W + o, f) for o, f in [*_CENTRAL_FIELDS, (42, "<I")]]
_FIELDS += [(_END + o, f) for o, f in [(4, "<H"), (8, "<H"), (10, "<H"), (12, "<I"), (16, "<I"), (20, "<H")]]
_INTERESTING = [0, 1, 0xFF, 0xFFFF, 0xFFFFFFFF, len(_BASE), len(_BASE) - 1, 46, 22]


def _mutate(
    data: bytes, flips: list[tuple[int, int]], field: tuple[int, int] | None, cut: int | None
) -> bytes:
    out = bytearray(data)
    for position, mask in flips:
        out[position % len(out)] ^= mask
    if field is not None:
        (offset, fmt), value = _FIELDS[field[0] % len(_FIELDS)], _INTERESTING[field[1] % len(_INTERESTING)]
        struct.pack_into(fmt, out, offset, value & (0xFFFF if fmt == "<H" else 0xFFFFFFFF))
    return bytes(out[:cut] if cut is not None else out)


def _load_everything(data: bytes) -> None:
    model = load_zip(data)
    for tensor in iter_tensors(model):
        to_array(tensor)


def _mlp_archive() -> bytes:
    """The example model in our own layout: padded, aligned entries."""
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "mlp.onnxz"
        save_zip(build(), path)
        return path.read_bytes()


_MLP = _mlp_archive()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    mlp=st.booleans(),
    flips=st.lists(st.tuples(st.integers(0, 10_000), st.integers(1, 255)), max_size=4),
    field=st.none() | st.tuples(st.integers(0, 100), st.integers(0, 100)),
    cut=st.none() | st.integers(0, len(_MLP)),
)
def test_mutated_archives_raise_only_our_errors(
    mlp: bool, flips: list[tuple[int, int]], field: tuple[int, int] | None, cut: int | None
) -> None:
    # The field table points into _BASE's records; the padded mlp archive gets flips and cuts.
    data = _mutate(_MLP, flips, None, cut) if mlp else _mutate(_BASE, flips, field, cut)
    with contextlib.suppress(WireCodecError):
        _load_everything(data)


def test_mutations_do_get_refused() -> None:
    """The mutation test is not vacuous: each kind of mutation can make loading fail."""
    refused = 0
    for data in [
        _mutate(_BASE, [], (i, j), None) for i in range(len(_FIELDS)) for j in range(len(_INTERESTING))
    ]:
        try:
            _load_everything(data)
        except WireCodecError:
            refused += 1
    assert refused > len(_FIELDS) * len(_INTERESTING) // 2
    with pytest.raises(WireCodecError):
        _load_everything(_mutate(_BASE, [], None, len(_BASE) - 1))


def test_fuzz_harness_imports_without_atheris() -> None:
    """fuzz/fuzz_zip.py guards its atheris import; its one-input function runs on our seeds."""
    sys.path.insert(0, str(ROOT / "fuzz"))
    try:
        import fuzz_zip  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "fuzz"))
    fuzz_zip.test_one_archive(_BASE)
    fuzz_zip.test_one_archive(_BASE[:-5])
    fuzz_zip.test_one_archive(b"")
    fuzz_zip.test_one_input(b"")
    assert os.path.basename(fuzz_zip.__file__) == "fuzz_zip.py"
