"""convert(): every layout to every other, re-sharding, safety, and the ``convert`` verb.

Real models from PyTorch's exporters go single -> external -> single -> zip -> single;
at each step every tensor equals the original and onnxruntime still runs the model
(checked against onnx's own reading of the files too).
"""

from __future__ import annotations

import io
import os
import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, StringStringEntryProto, TensorProto
from tests.support.exports import Export
from wirecodec import DecodeError, ExternalDataError, convert, to_array
from wirecodec.cli import main
from wirecodec.cli.convert import Progress, byte_count
from wirecodec.examples.build_mlp import build
from wirecodec.files.base.walk import iter_tensors


def _weights(path: pathlib.Path) -> dict[str, bytes]:
    """Every tensor of a model as name -> raw bytes, read through wirecodec.load."""
    model = wirecodec.load(path)
    return {t.name: to_array(t).tobytes() for t in iter_tensors(model)}


def _structure(path: pathlib.Path) -> ModelProto:
    """The model without its tensors' data and data references (what conversion may change)."""
    model = wirecodec.load(path)
    for tensor in iter_tensors(model):
        for name in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "data_location"):
            tensor.ClearField(name)
        tensor.ClearField("external_data")
    return model


def _big_model(sizes: tuple[int, ...] = (5000, 300, 70_000, 2000)) -> ModelProto:
    model = build()
    rng = np.random.default_rng(3)
    for i, size in enumerate(sizes):
        model.graph.initializer.append(
            wirecodec.from_array(rng.standard_normal(size).astype(np.float32), f"extra{i}")
        )
    return model


@pytest.fixture
def single(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "src" / "model.onnx"
    path.parent.mkdir()
    wirecodec.save(_big_model(), path)
    return path


def test_single_external_single(single: pathlib.Path, tmp_path: pathlib.Path) -> None:
    split = tmp_path / "split.onnx"
    convert(single, split, to="external")
    assert (tmp_path / "split.onnx.data").stat().st_size >= 4 * (5000 + 70_000 + 2000)
    back = tmp_path / "back.onnx"
    convert(split, back, to="single")
    assert _weights(split) == _weights(back) == _weights(single)
    assert _structure(back) == _structure(single)
    external = wirecodec.load(split, load_external_data=False).graph.initializer
    # The four extra tensors reach the default 1024-byte threshold; the mlp's own do not.
    assert [t.name for t in external if t.data_location == TensorProto.EXTERNAL] == [
        f"extra{i}" for i in range(4)
    ]


def test_resharding_and_layout_options(single: pathlib.Path, tmp_path: pathlib.Path) -> None:
    sharded = tmp_path / "sharded.onnx"
    convert(single, sharded, to="external", location="weights.bin", max_shard_size=100_000, align=256)
    shards = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("weights.bin"))
    assert shards == ["weights.bin.0", "weights.bin.1", "weights.bin.2"]
    for tensor in wirecodec.load(sharded, load_external_data=False).graph.initializer:
        entries = {e.key: e.value for e in tensor.external_data}
        if entries and int(entries["length"]) >= 256:
            assert int(entries["offset"]) % 256 == 0
    per_tensor = tmp_path / "per_tensor" / "m.onnx"
    per_tensor.parent.mkdir()
    convert(sharded, per_tensor, to="external", all_tensors_to_one_file=False, size_threshold=4096)
    # Tensors of at least 4096 bytes get a file each, named after them.
    assert sorted(p.name for p in per_tensor.parent.iterdir()) == ["extra0", "extra2", "extra3", "m.onnx"]
    assert _weights(per_tensor) == _weights(single)


def test_converting_in_place(single: pathlib.Path) -> None:
    before = _weights(single)
    convert(single, single, to="external")
    assert single.with_name("model.onnx.data").exists()
    assert _weights(single) == before
    # In place, tensors already in a data file stay there, unread: only the model is rewritten.
    data = single.with_name("model.onnx.data")
    stamp = data.stat().st_mtime_ns, data.stat().st_ino
    convert(single, single, to="external", align=64)
    assert sorted(p.name for p in single.parent.iterdir()) == ["model.onnx", "model.onnx.data"]
    assert (data.stat().st_mtime_ns, data.stat().st_ino) == stamp
    assert _weights(single) == before
    convert(single, single, to="single")
    assert _weights(single) == before


def test_payloads_are_copied_by_the_kernel(
    single: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied = 0
    real = os.copy_file_range

    def spy(*args: Any, **kwargs: Any) -> int:
        nonlocal copied
        moved = real(*args, **kwargs)
        copied += moved
        return moved

    monkeypatch.setattr(os, "copy_file_range", spy)
    # Only the 70 000-float tensor (280 000 bytes) reaches the threshold: it moves to the
    # data file file-to-file; the small ones go into the model file from memory.
    convert(single, tmp_path / "split.onnx", to="external", size_threshold=100_000)
    assert copied == 280_000
    convert(tmp_path / "split.onnx", tmp_path / "single.onnx", to="single")
    assert copied == 2 * 280_000  # and back inline, again by the kernel


def test_progress_is_reported(single: pathlib.Path, tmp_path: pathlib.Path) -> None:
    seen: list[tuple[int, int]] = []
    convert(
        single, tmp_path / "out.onnx", to="external", progress=lambda done, total: seen.append((done, total))
    )
    written = sum(p.stat().st_size for p in tmp_path.iterdir() if p.is_file())
    assert seen[-1][0] == written
    assert all(done <= total for done, total in seen)
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


def test_a_bad_source_writes_nothing(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(wirecodec.encode(build())[:-3])
    with pytest.raises(DecodeError):
        convert(bad, tmp_path / "out.onnx", to="external")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.onnx"]


def test_unsafe_external_references_are_refused(tmp_path: pathlib.Path) -> None:
    (tmp_path / "secret").write_bytes(b"s" * 64)
    folder = tmp_path / "model"
    folder.mkdir()
    model = build()
    tensor = model.graph.initializer[0]
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    tensor.external_data.append(StringStringEntryProto(key="location", value="../secret"))
    wirecodec.save(model, folder / "m.onnx")
    with pytest.raises(ExternalDataError, match=r"\.\."):
        convert(folder / "m.onnx", folder / "out.onnx", to="single")
    assert sorted(p.name for p in folder.iterdir()) == ["m.onnx"]


def test_bad_options(single: pathlib.Path, tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match="to must be"):
        convert(single, tmp_path / "x.onnx", to="bundle")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not to a single file"):
        convert(single, tmp_path / "x.onnx", to="single", align=64)
    with pytest.raises(ValueError, match="power of two"):
        convert(single, tmp_path / "x.onnx", to="external", align=100)
    assert not (tmp_path / "x.onnx").exists()


def test_zip_round_trips(single: pathlib.Path, tmp_path: pathlib.Path) -> None:
    packed = tmp_path / "model.zip"
    convert(single, packed, to="zip")
    from wirecodec.files.zip.container import is_zip

    assert is_zip(packed)
    split = tmp_path / "split.onnx"
    convert(packed, split, to="external")
    back = tmp_path / "back.onnx"
    convert(split, back, to="single")
    again = tmp_path / "again.zip"
    convert(back, again, to="zip", align=4096)
    for path in (split, back):
        assert _weights(path) == _weights(single)
    assert _structure(back) == _structure(single)


# -- real exports, checked by onnx and onnxruntime -------------------------------------


def _run(path: pathlib.Path, export: Export) -> list[np.ndarray]:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the converted models (test extra)")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    result: list[np.ndarray] = session.run(None, dict(zip(names, export.inputs, strict=True)))
    return result


def test_pytorch_exports_in_every_layout(pytorch_exports: list[Export], tmp_path: pathlib.Path) -> None:
    onnx = pytest.importorskip("onnx", reason="onnx reads the converted files as a reference (test extra)")
    from onnx import numpy_helper

    for export in pytorch_exports:
        folder = tmp_path / export.name
        folder.mkdir()
        source = folder / "source.onnx"
        source.write_bytes(export.data)
        steps = [("split.onnx", "external"), ("single.onnx", "single"), ("shards.onnx", "external")]
        previous = source
        for name, layout in steps:
            target = folder / name
            options: dict[str, Any] = {"max_shard_size": 50_000} if name == "shards.onnx" else {}
            convert(previous, target, to=layout, size_threshold=256, **options)  # type: ignore[arg-type]
            assert _weights(target) == _weights(source), (export.name, name)
            theirs = onnx.load(str(target))
            mine = {t.name: numpy_helper.to_array(t).tobytes() for t in theirs.graph.initializer}
            original = onnx.load_from_string(export.data)
            assert mine == {t.name: numpy_helper.to_array(t).tobytes() for t in original.graph.initializer}
            for got, want in zip(_run(target, export), export.expected, strict=True):
                np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
            previous = target


# -- the command line ------------------------------------------------------------------


def test_cli_convert(
    single: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli.onnx"
    code = main(
        ["convert", str(single), str(out), "--to", "external", "--max-shard-size", "100K", "--align", "64"]
    )
    assert code == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # not a terminal: no progress
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("cli.onnx.data")) == [
        "cli.onnx.data.0",
        "cli.onnx.data.1",
        "cli.onnx.data.2",
    ]
    assert main(["convert", str(out), str(tmp_path / "one.onnx"), "--to", "single"]) == 0
    assert _weights(tmp_path / "one.onnx") == _weights(single)


def test_cli_errors(single: pathlib.Path, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", str(single), str(tmp_path / "x.onnx"), "--to", "single", "--align", "64"]) == 2
    assert "not to a single file" in capsys.readouterr().err
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x3a\x05ab")
    assert main(["convert", str(bad), str(tmp_path / "y.onnx"), "--to", "single"]) == 1
    assert "DecodeError" in capsys.readouterr().err
    # A usage error: main returns argparse's exit code 2 instead of raising SystemExit.
    argv = ["convert", str(single), str(tmp_path / "z.onnx"), "--to", "single", "--max-shard-size", "lots"]
    assert main(argv) == 2
    assert "not a byte count" in capsys.readouterr().err


def test_byte_counts() -> None:
    assert [byte_count(t) for t in ("4096", "64K", "512M", "2G", "1GiB", "3 mb")] == [
        4096,
        64 << 10,
        512 << 20,
        2 << 30,
        1 << 30,
        3 << 20,
    ]


def test_progress_line() -> None:
    out = io.StringIO()
    progress = Progress(out, interval=0.0)
    progress(512 << 20, 1 << 30)
    progress(1 << 30, 1 << 30)
    progress.finish()
    text = out.getvalue()
    assert "512.0 MiB / 1.0 GiB   50%" in text
    assert "1.0 GiB / 1.0 GiB  100%" in text and "ETA 0s" in text
    assert text.endswith("\n") and text.count("\r") == 2
