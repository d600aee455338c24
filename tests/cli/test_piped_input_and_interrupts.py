"""Issue 45, items 1 and 2: a piped input is diagnosed as a path is; Ctrl-C and a closed
standard output end every verb as ``dump`` ends (one line and 130; quiet and 0)."""

from __future__ import annotations

import gzip
import os
import pathlib
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from wirecodec.cli import EXAMPLE, main

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _program(*args: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "wirecodec", *args]
    return subprocess.run(command, stderr=subprocess.PIPE, text=True, env=ENV, timeout=120, **kwargs)  # type: ignore[call-overload, no-any-return]


def _html(path: pathlib.Path) -> None:
    path.write_text("<!DOCTYPE html><html><body>Index of /models</body></html>\n")


def _npy(path: pathlib.Path) -> None:
    with path.open("wb") as file:
        np.save(file, np.arange(12.0))


def _text(path: pathlib.Path) -> None:
    path.write_text("learning_rate = 0.001\nepochs = 10\n")


def _gzip(path: pathlib.Path) -> None:
    path.write_bytes(gzip.compress(EXAMPLE.read_bytes()))


@pytest.mark.parametrize(
    ("write", "expected"),
    [
        (_html, "an HTML page"),
        (_npy, "a NumPy .npy array"),
        (_text, "a text file"),
        (_gzip, "a gzip-compressed file"),
    ],
)
@pytest.mark.parametrize("verb", ["inspect", "check", "dump"])
def test_a_piped_non_model_is_named_as_from_a_path(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    write: object,
    expected: str,
    verb: str,
) -> None:
    path = tmp_path / "input"
    write(path)  # type: ignore[operator]
    assert main([verb, str(path)]) == 1
    from_path = capsys.readouterr().err
    with path.open("rb") as pipe:
        monkeypatch.setattr(sys, "stdin", type("Stdin", (), {"buffer": pipe})())
        assert main([verb, "-"]) == 1
    from_pipe = capsys.readouterr().err
    assert f"not an ONNX model: this looks like {expected}" in from_path
    assert from_pipe == from_path.replace(str(path), "<stdin>")


@pytest.mark.quick
def test_a_real_pipe_is_diagnosed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "page.html"
    _html(path)
    with path.open("rb") as stdin:
        done = _program("inspect", "-", stdin=stdin, stdout=subprocess.PIPE)
    assert done.returncode == 1
    assert done.stderr == "wirecodec inspect: <stdin>: not an ONNX model: this looks like an HTML page\n"


def test_a_piped_model_still_opens() -> None:
    with EXAMPLE.open("rb") as stdin:
        done = _program("inspect", "-", stdin=stdin, stdout=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert "'mlp': 3 nodes" in done.stdout


def _big_model(path: pathlib.Path) -> None:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.ones((512, 512), np.float32), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 512])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 512])],
        [weight],
    )
    onnx.save(helper.make_model(graph), path)


def _closed_stdout(*args: str) -> subprocess.CompletedProcess[str]:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first write (`| head -c 0`)
    try:
        return _program(*args, stdout=write_end)
    finally:
        os.close(write_end)


def test_tensors_to_a_closed_pipe_is_quiet(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("onnx")
    model = tmp_path / "big.onnx"
    _big_model(model)
    done = _closed_stdout("tensors", str(model), "W", "-o", "-")
    assert (done.returncode, done.stderr) == (0, "")


def test_head_reads_the_first_bytes_of_a_tensor(tmp_path: pathlib.Path) -> None:
    pytest.importorskip("onnx")
    model = tmp_path / "big.onnx"
    _big_model(model)
    command = [sys.executable, "-m", "wirecodec", "tensors", str(model), "W", "-o", "-"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV) as process:
        assert process.stdout is not None and process.stderr is not None
        head = process.stdout.read(10)
        process.stdout.close()  # as `| head -c 10`
        err = process.stderr.read()
        code = process.wait(timeout=60)
    assert head == b"\x93NUMPY\x01\x00v\x00"
    assert (code, err) == (0, b"")


@pytest.mark.parametrize(
    "args",
    [
        ["inspect", "{m}"],
        ["inspect", "{m}", "--json"],
        ["check", "{m}"],
        ["dump", "{m}"],
        ["tensors", "{m}"],
        ["tensors", "{m}", "--json"],
        ["diff", "{m}", "{m}"],
        ["edit", "{m}", "-o", "{t}/e.onnx", "--toposort"],
        ["convert", "{m}", "{t}/c.onnx", "--to", "single"],
        ["extract", "{m}", "{t}/x.onnx", "--outputs", "y"],
        ["merge", "--io-map", "y:x", "--prefix2", "q_", "{m}", "{m}", "{t}/mm.onnx"],
        ["draw", "{m}"],
        ["infer-shapes", "{m}", "{t}/i.onnx"],
        ["fuzz", "rewrite", "{m}", "-n", "2", "-o", "{t}/fz"],
    ],
    ids=lambda args: " ".join(a for a in args[:2] if "{" not in a),
)
def test_every_verb_is_quiet_when_its_reader_is_gone(tmp_path: pathlib.Path, args: list[str]) -> None:
    done = _closed_stdout(*(a.format(m=EXAMPLE, t=tmp_path) for a in args))
    assert (done.returncode, done.stderr) == (0, "")


def test_ctrl_c_is_one_line_and_130(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "corpus"
    fuzz = ["fuzz", "rewrite", str(EXAMPLE), "-n", "1000000", "-o", str(out)]
    command = [sys.executable, "-m", "wirecodec", *fuzz]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    deadline = time.monotonic() + 60
    while not (out.exists() and len(list(out.iterdir())) > 3) and time.monotonic() < deadline:
        time.sleep(0.05)  # until it is writing
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert (process.returncode, err) == (130, "wirecodec fuzz: interrupted\n")
    assert not [p.name for p in out.iterdir() if ".tmp" in p.name]


def test_ctrl_c_while_writing_leaves_no_temporary_file(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "save", interrupted)
    try:
        code = main(["tensors", str(EXAMPLE), "w1", "-o", str(tmp_path / "w1.npy")])
    except KeyboardInterrupt:
        pytest.fail("the interrupt went through main()")
    assert code == 130
    assert capsys.readouterr().err == "wirecodec tensors: interrupted\n"
    assert list(tmp_path.iterdir()) == []
