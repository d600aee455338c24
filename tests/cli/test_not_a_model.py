"""Issue 35, item 8: a file that is not a model says what it looks like."""

from __future__ import annotations

import pathlib
import zipfile

import pytest

from tests.support import odd_models
from tests.support.http_server import BadServer
from wirecodec import save
from wirecodec.cli import main
from wirecodec.files.zip.container import save_zip


def _write_text(path: pathlib.Path) -> None:
    path.write_text("name,value\nlearning_rate,0.001\n" * 20)


def _write_html(path: pathlib.Path) -> None:
    path.write_text(
        "<!DOCTYPE html>\n<html><head><title>Index of /models</title></head><body></body></html>\n"
    )


def _write_safetensors(path: pathlib.Path) -> None:
    save(odd_models.weights_model(), path.parent / "m.onnx", external_data=path.name, size_threshold=0)


def _write_zip(path: pathlib.Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("weights.bin", bytes(64))


def _write_torch(path: pathlib.Path) -> None:
    torch = pytest.importorskip("torch")
    torch.save({"w": torch.zeros(4)}, path)


@pytest.mark.parametrize(
    ("name", "write", "expected"),
    [
        ("notes.txt", _write_text, "a text file"),
        ("listing.onnx", _write_html, "an HTML page"),
        ("weights.safetensors", _write_safetensors, "a safetensors file"),
        ("archive.onnxz", _write_zip, "a zip archive without the __MODEL_PROTO entry"),
        ("model.pt", _write_torch, "a PyTorch checkpoint"),
    ],
)
@pytest.mark.parametrize("verb", ["inspect", "check", "tensors"])
def test_what_a_non_model_looks_like_is_said(
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    write: object,
    expected: str,
    verb: str,
) -> None:
    path = tmp_path / name
    write(path)  # type: ignore[operator]
    assert main([verb, str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{path}: not an ONNX model: this looks like {expected}" in err, err


def test_a_damaged_container_keeps_its_own_error(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnxz"
    save_zip(odd_models.weights_model(), path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("__MODEL_PROTO")
    data[info.header_offset + 30 + len("__MODEL_PROTO") + 2] ^= 0xFF  # inside the model's bytes
    path.write_bytes(bytes(data))
    assert main(["inspect", str(path)]) == 1
    err = capsys.readouterr().err
    assert "not an ONNX model" not in err and "ContainerError" in err


def test_an_html_page_by_url(bad_server: BadServer, capsys: pytest.CaptureFixture[str]) -> None:
    _write_html(bad_server.root / "index.html")
    bad_server.behave("ignore-range")  # as a directory listing does: 200 with the whole page
    assert main(["inspect", bad_server.url("index.html")]) == 1
    err = capsys.readouterr().err
    assert "not an ONNX model: this looks like an HTML page" in err, err
