"""check --full on container entries larger than the 1 MiB pieces their CRC-32 is computed
in: a sound archive passes, one flipped byte past the first piece is found. zipfile is
the judge of which archive is sound."""

from __future__ import annotations

import pathlib
import zipfile

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, OperatorSetIdProto
from wirecodec.cli import main
from wirecodec.files.zip.container import save_zip


def _container(path: pathlib.Path) -> bytes:
    weights = np.arange(700_000, dtype=np.float32)  # 2.8 MB: three pieces
    graph = GraphProto(name="g", initializer=[wirecodec.from_array(weights, "big")])
    model = ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)
    save_zip(model, path)
    return path.read_bytes()


def test_a_sound_big_entry_passes(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ok.onnxz"
    _container(path)
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() is None
    assert main(["check", "--full", str(path)]) == 0, capsys.readouterr().out


def test_a_flipped_byte_past_the_first_mebibyte_is_found(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.onnxz"
    data = bytearray(_container(path))
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("big")
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + 2_000_000] ^= 0xFF
    path.write_bytes(bytes(data))
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() == "big"
    assert main(["check", "--full", str(path)]) == 1
    out = capsys.readouterr().out
    assert "entry 'big'" in out and "[container-crc]" in out
