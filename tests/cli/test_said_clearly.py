"""Issue 35, items 5-7 and 12: what convert, inspect and tensors say and write."""

from __future__ import annotations

import pathlib
import re

import numpy as np
import pytest

from tests.support import odd_models
from wirecodec import load, save
from wirecodec.cli import main
from wirecodec.tensors import to_array


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- item 5: convert says what it moved -------------------------------------------------------


@pytest.mark.parametrize("to", ["safetensors", "external"])
def test_convert_says_constant_weights_stayed(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], to: str
) -> None:
    src = tmp_path / "c.onnx"
    save(odd_models.constant_weights_model(), src)
    code, out, _ = _run(capsys, "convert", str(src), str(tmp_path / "out.onnx"), "--to", to)
    assert code == 0
    assert f"wrote {tmp_path / 'out.onnx'}" in out
    assert "0 tensors moved" in out and "--convert-attribute" in out
    code, out, _ = _run(
        capsys, "convert", str(src), str(tmp_path / "moved.onnx"), "--to", to, "--convert-attribute"
    )
    assert code == 0 and "2 tensors moved (8,192 bytes)" in out and "--convert-attribute" not in out


@pytest.mark.parametrize("to", ["single", "zip"])
def test_convert_prints_what_it_wrote(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], to: str
) -> None:
    src = tmp_path / "m.onnx"
    save(odd_models.weights_model(), src)
    dst = tmp_path / ("out.onnxz" if to == "zip" else "out.onnx")
    code, out, _ = _run(capsys, "convert", str(src), str(dst), "--to", to)
    assert code == 0
    assert out.strip() == f"wrote {dst} ({dst.stat().st_size:,} bytes, {to})"


# -- item 12: every tensor into the safetensors file when asked ---------------------------------


def test_all_tensors_makes_the_complete_state_dict(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    safetensors = pytest.importorskip("safetensors.numpy")
    src = tmp_path / "m.onnx"
    model = odd_models.weights_model()
    save(model, src)
    code, out, _ = _run(capsys, "convert", str(src), str(tmp_path / "d.onnx"), "--to", "safetensors")
    assert code == 0 and "3 tensors under 1,024 bytes stayed inline" in out and "--all-tensors" in out
    partial = safetensors.load_file(str(tmp_path / "d.safetensors"))
    assert sorted(partial) == ["w0", "w1", "w2"]
    code, out, _ = _run(
        capsys, "convert", str(src), str(tmp_path / "all.onnx"), "--to", "safetensors", "--all-tensors"
    )
    assert code == 0 and "0 weights left inline" in out
    state = safetensors.load_file(str(tmp_path / "all.safetensors"))
    expected = {t.name: to_array(t) for t in model.graph.initializer}
    assert sorted(state) == sorted(expected)
    assert all(np.array_equal(state[k], v) for k, v in expected.items())


def test_convert_help_names_the_default_and_urls(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "default 1024" in text and "--all-tensors" in text and "URL" in text and "safetensors" in text


# -- item 6: inspect never breaks a path or a name ---------------------------------------------


def test_inspect_keeps_paths_and_names_whole(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.onnx"
    model = odd_models.deep_constant_model()
    save(model, path)
    code, out, _ = _run(capsys, "inspect", str(path))
    assert code == 0
    name = model.graph.node[0].attribute[1].g.node[80].attribute[0].t.name
    assert name in out.split(), "the tensor's name is printed whole, as one token"
    paths = re.findall(r"\bgraph\.\S+", out)
    assert paths
    for field in paths:
        code, _, err = _run(capsys, "dump", str(path), field)
        assert code == 0, (field, err)


# -- item 7: one path per tensor; -o derived, never overwriting -------------------------------


def test_tensors_and_inspect_name_a_constant_the_same_way(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.onnx"
    save(odd_models.constant_weights_model(), path)
    _, listed, _ = _run(capsys, "tensors", str(path))
    _, inspected, _ = _run(capsys, "inspect", str(path))
    listed_paths = {line.split("\t")[-1] for line in listed.splitlines()}
    inspected_paths = set(re.findall(r"\bgraph\.\S+", inspected))
    assert inspected_paths and inspected_paths <= listed_paths
    assert "graph.node[0].attribute[0].t" in listed_paths


def test_tensors_output_is_named_from_the_tensor_and_never_overwritten(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.onnx"
    model = odd_models.constant_weights_model()
    save(model, path)
    monkeypatch.chdir(tmp_path)
    for wanted, expected_file in (("graph.node[0].attribute[0].t", "w0.npy"), ("graph.node[2]", "w1.npy")):
        code, _, err = _run(capsys, "tensors", str(path), wanted)
        assert code == 0, err
        assert (tmp_path / expected_file).exists()
    np.testing.assert_array_equal(
        np.load(tmp_path / "w0.npy"), to_array(load(path).graph.node[0].attribute[0].t)
    )
    before = (tmp_path / "w1.npy").read_bytes()
    code, _, err = _run(capsys, "tensors", str(path), "w1")
    assert code == 2 and "--force" in err
    (tmp_path / "w1.npy").write_bytes(b"mine")
    code, _, err = _run(capsys, "tensors", str(path), "w1")
    assert code == 2 and (tmp_path / "w1.npy").read_bytes() == b"mine"
    code, _, _ = _run(capsys, "tensors", str(path), "w1", "--force")
    assert code == 0 and (tmp_path / "w1.npy").read_bytes() == before
    code, _, _ = _run(capsys, "tensors", str(path), "graph.node[0]", "-o", "w1.npy")  # named: replaced
    assert code == 0 and (tmp_path / "w1.npy").read_bytes() != before
