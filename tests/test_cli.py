"""The command line: the quick start's main job on the bundled model, and bad inputs."""

from __future__ import annotations

import pathlib

import pytest

from wirecodec.cli import EXAMPLE, main


def test_summarises_the_bundled_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr().out
    assert "3 nodes, 4 initializers" in out
    assert "Gemm×2, Relu×1" in out
    assert "byte-identical" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "empty file"), (b"\x3a\x05ab", "DecodeError"), (b"\x08", "truncated varint")],
)
def test_bad_files_fail_with_a_message(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], content: bytes, message: str
) -> None:
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    assert main([str(path)]) == 1
    assert message in capsys.readouterr().err


def test_missing_file(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "nope.onnx")]) == 1
    assert "No such file" in capsys.readouterr().err


def test_onnxruntime_runs_the_bundled_model() -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    np = pytest.importorskip("numpy")
    session = ort.InferenceSession(str(EXAMPLE), providers=["CPUExecutionProvider"])
    x = np.ones((2, 4), dtype=np.float32)
    (y,) = session.run(None, {"x": x})
    assert y.shape == (2, 3)
    assert np.all(np.isfinite(y))


def test_bundled_model_is_what_the_builder_makes() -> None:
    from wirecodec import encode
    from wirecodec.examples.build_mlp import build

    assert encode(build()) == EXAMPLE.read_bytes()
