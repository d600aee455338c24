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


# -- the shared plumbing: verbs, exit codes, standard input, errors without tracebacks ----------


def test_every_verb_is_registered() -> None:
    from wirecodec.cli import VERBS

    assert {"inspect", "tensors", "diff", "edit"} <= set(VERBS)


def test_version_and_help_exit_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("wirecodec ")
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for verb in ("inspect", "tensors", "diff", "edit"):
        assert verb in out


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "--top", "-1"],
        ["inspect", "--no-such-option"],
        ["tensors", str(EXAMPLE), "no-such-tensor"],
        ["tensors", str(EXAMPLE), "w1", "--list"],
        ["diff", str(EXAMPLE)],
        ["diff", "-", "-"],
        ["diff", str(EXAMPLE), str(EXAMPLE), "--rtol", "-1"],
        ["edit", str(EXAMPLE)],  # no -o
        ["edit", str(EXAMPLE), "-o", "x.onnx", "--rename-input", "novalue"],
        ["edit", str(EXAMPLE), "-o", "x.onnx", "--rename-input", "nope=x2"],
        ["edit", str(EXAMPLE), "-o", "x.onnx", "--rename-input", "x=w1"],  # w1 is taken
        ["edit", str(EXAMPLE), "-o", "x.onnx", "--set-dim-value", "x:2=4"],  # x has 2 axes
        ["edit", str(EXAMPLE), "-o", "x.onnx", "--set-dim-value", "x:0=-4"],
        ["edit", str(EXAMPLE), "-o", "x.onnx", "--set-metadata", "=v"],
    ],
)
def test_usage_errors_exit_2_and_write_nothing(
    argv: list[str],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.strip() and "Traceback" not in captured.err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["inspect", "{bad}"],
        ["inspect", "--json", "{missing}"],
        ["tensors", "{bad}", "w"],
        ["tensors", "--list", "{missing}"],
        ["diff", "{bad}", str(EXAMPLE)],
        ["diff", str(EXAMPLE), "{missing}"],
        ["edit", "{bad}", "-o", "{out}"],
        ["edit", "{missing}", "-o", "{out}"],
        ["edit", str(EXAMPLE), "-o", "{missing}/out.onnx"],
        ["tensors", str(EXAMPLE), "w1", "-o", "{missing}/w1.npy"],
    ],
)
def test_bad_or_missing_models_exit_1_with_one_line(
    argv: list[str], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x3a\x05ab")  # a graph field that runs past the end
    names = {"bad": str(bad), "missing": str(tmp_path / "missing.onnx"), "out": str(tmp_path / "out.onnx")}
    assert main([a.format(**names) for a in argv]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert ("DecodeError" in err) or ("No such file" in err) or ("does not exist" in err)
    assert not (tmp_path / "out.onnx").exists()


def test_a_model_can_come_from_standard_input(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import json
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(EXAMPLE.read_bytes())))
    assert main(["-", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["model"] == "<stdin>" and summary["size"] == EXAMPLE.stat().st_size
    assert summary["operators"] == {"Gemm": 2, "Relu": 1}
    # Standard input goes through the one opener like a file: the same summary, the same
    # round-trip verdict.
    assert summary["byte_identical"] is True
    assert main([str(EXAMPLE), "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    assert from_file["byte_identical"] is True
    for key in ("operators", "parameters", "largest_tensors", "inputs", "outputs", "opset_import", "graph"):
        assert summary[key] == from_file[key], key


def test_empty_standard_input_is_a_problem(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
    assert main(["inspect", "-"]) == 1
    assert "empty input" in capsys.readouterr().err


def test_json_without_a_model_summarises_the_example(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    assert main(["--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["graph"]["name"] == "mlp" and summary["parameters"]["count"] == 16 * 4 + 16 + 3 * 16 + 3


# -- as a user runs it: the console script and python -m wirecodec, in a subprocess -------------

_ROOT = pathlib.Path(__file__).resolve().parents[2]


def _run(command: list[str], cwd: pathlib.Path, stdin: bytes = b"") -> tuple[int, str, str]:
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(_ROOT)}
    done = subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, timeout=120)
    return done.returncode, done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace")


def _console_script() -> list[str]:
    import sys

    script = pathlib.Path(sys.executable).with_name("wirecodec")
    if not script.exists():
        pytest.skip("the wirecodec console script is not installed in this environment")
    return [str(script)]


def test_python_m_wirecodec_summarises_the_example(tmp_path: pathlib.Path) -> None:
    import sys

    code, out, err = _run([sys.executable, "-m", "wirecodec"], tmp_path)
    assert (code, err) == (0, "")
    assert "3 nodes, 4 initializers" in out and "byte-identical" in out


def test_python_m_wirecodec_with_a_path_and_with_stdin(tmp_path: pathlib.Path) -> None:
    import json
    import sys

    code, out, _ = _run([sys.executable, "-m", "wirecodec", str(EXAMPLE)], tmp_path)
    assert code == 0 and "Gemm×2, Relu×1" in out
    code, out, _ = _run(
        [sys.executable, "-m", "wirecodec", "inspect", "--json", "-"], tmp_path, EXAMPLE.read_bytes()
    )
    assert code == 0 and json.loads(out)["operators"] == {"Gemm": 2, "Relu": 1}


def test_console_script_runs_every_verb(tmp_path: pathlib.Path) -> None:
    import json

    import numpy as np

    import wirecodec

    script = _console_script()
    code, out, _ = _run([*script, "inspect", "--json", str(EXAMPLE)], tmp_path)
    assert code == 0 and json.loads(out)["graph"]["nodes"] == 3

    code, out, _ = _run([*script, "tensors", str(EXAMPLE), "w1", "-o", "w1.npy"], tmp_path)
    assert code == 0
    expected = wirecodec.to_array(wirecodec.load(EXAMPLE).graph.initializer[0])
    assert np.array_equal(np.load(tmp_path / "w1.npy"), expected)

    code, out, _ = _run(
        [*script, "edit", str(EXAMPLE), "-o", "renamed.onnx", "--rename-input", "x=features"], tmp_path
    )
    assert code == 0 and "renamed input 'x' to 'features'" in out
    assert wirecodec.load(tmp_path / "renamed.onnx").graph.input[0].name == "features"

    code, out, _ = _run([*script, "diff", "--json", str(EXAMPLE), "renamed.onnx"], tmp_path)
    assert code == 1
    paths = [d["path"] for d in json.loads(out)["differences"]]
    assert paths == ["graph.node[0].input[0]", "graph.input[0].name"]
    code, out, _ = _run([*script, "diff", str(EXAMPLE), str(EXAMPLE)], tmp_path)
    assert (code, out) == (0, f"{EXAMPLE} and {EXAMPLE} are equal\n")

    code, _, err = _run([*script, "diff", str(EXAMPLE), "missing.onnx"], tmp_path)
    assert code == 1 and "No such file" in err and "Traceback" not in err
