"""Issue 45, item 3: progress on a terminal's standard error (a pseudo-terminal here) for
``infer-shapes``, ``edit`` and ``fuzz compare``; never with --json or --quiet, never when
standard error is not a terminal; ``convert --quiet`` silences convert's progress."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

from tests.cli.test_progress_on_terminals import ENV, _on_terminal
from wirecodec.cli import EXAMPLE

CASES = [
    (["infer-shapes", "{m}", "{t}/typed.onnx"], "wirecodec infer-shapes: inferring shapes of 3 nodes"),
    (["edit", "{m}", "-o", "{t}/e.onnx", "--fold-constants"], "wirecodec edit: folding constants of 3 nodes"),
    (["edit", "{m}", "-o", "{t}/e.onnx", "--set-metadata", "a=b"], "wirecodec edit: writing {t}/e.onnx"),
    (["fuzz", "compare", "{t}/corpus", "--parser", "wirecodec"], "wirecodec fuzz: [1/2] "),
]


def _args(args: list[str], tmp_path: pathlib.Path) -> list[str]:
    corpus = tmp_path / "corpus"
    if not corpus.exists():
        corpus.mkdir()
        shutil.copy(EXAMPLE, corpus / "a.onnx")
        (corpus / "b.onnx").write_bytes(b"\x08\x07not a model")
    return [a.format(m=EXAMPLE, t=tmp_path) for a in args]


@pytest.mark.parametrize(("args", "shown"), CASES)
def test_progress_on_a_terminal_only(args: list[str], shown: str, tmp_path: pathlib.Path) -> None:
    argv = _args(args, tmp_path)
    code, out, terminal = _on_terminal(*argv)
    assert code in (0, 1), terminal
    assert shown.format(t=tmp_path) in terminal
    assert "\x1b[K" in terminal.rsplit(shown.format(t=tmp_path), 1)[1]  # wiped when done
    assert "\r\x1b[K" not in out
    quiet_code, _, quiet = _on_terminal(*argv, "--quiet")
    assert quiet_code == code and "\x1b[K" not in quiet
    json_code, json_out, with_json = _on_terminal(*argv, "--json")
    assert json_code == code and "\x1b[K" not in with_json and json_out.lstrip().startswith("{")
    piped = subprocess.run(
        [sys.executable, "-m", "wirecodec", *argv], capture_output=True, text=True, env=ENV, timeout=120
    )
    assert piped.returncode == code and "\x1b[K" not in piped.stderr and "\r" not in piped.stderr


def test_convert_quiet_silences_its_progress(tmp_path: pathlib.Path) -> None:
    argv = ["convert", str(EXAMPLE), str(tmp_path / "x.onnx"), "--to", "external", "--all-tensors"]
    code, _, terminal = _on_terminal(*argv)
    assert code == 0 and "100%" in terminal  # convert's own progress line, on a terminal
    code, _, quiet = _on_terminal(*[*argv[:2], str(tmp_path / "y.onnx"), *argv[3:]], "--quiet")
    assert code == 0 and "100%" not in quiet and "\r" not in quiet
    code, out, with_json = _on_terminal(*[*argv[:2], str(tmp_path / "z.onnx"), *argv[3:]], "--json")
    assert code == 0 and "100%" not in with_json and out.lstrip().startswith("{")
