"""Issue 45, item 3: progress on a terminal's standard error (a pseudo-terminal here),
never when standard error is not a terminal, never with --json, never with --quiet."""

from __future__ import annotations

import io
import os
import pathlib
import subprocess
import sys

import pytest

from wirecodec.cli import EXAMPLE
from wirecodec.cli.progress import Status

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX")

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "300"}  # the lines whole, paths and all


def _on_terminal(*args: str, both: bool = False) -> tuple[int, str, str]:
    """Run the program with standard error (``both``: and standard output) on a
    pseudo-terminal: (code, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "wirecodec", *args],
            stdout=slave if both else subprocess.PIPE,
            stderr=slave,
            text=True,
            env=ENV,
            timeout=120,
        )
        os.close(slave)
        slave = -1
        chunks = []
        while True:
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # EIO: the terminal's other end is closed and all was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    return done.returncode, done.stdout or "", b"".join(chunks).decode()


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["check", "{m}", "{m}"], "wirecodec check: [1/2] "),
        (["check", "{m}", "--full"], "wirecodec check: {m}: strict shape inference"),
        (["extract", "{m}", "{t}/x.onnx", "--outputs", "a"], "wirecodec extract: inferring shapes"),
        (
            ["merge", "{m}", "{m}", "{t}/m.onnx", "--io-map", "y:x", "--prefix2", "b/"],
            "wirecodec merge: merging",
        ),
        (["draw", "{m}", "-o", "{t}/g.dot"], "wirecodec draw: laying out the graph"),
        (["fuzz", "rewrite", "{m}", "-n", "3", "-o", "{t}/fz"], "wirecodec fuzz: [1/3] mlp.rewrite-0.onnx"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else "",
)
def test_progress_on_a_terminal_only(tmp_path: pathlib.Path, args: list[str], shown: str) -> None:
    argv = [a.format(m=EXAMPLE, t=tmp_path) for a in args]
    code, out, terminal = _on_terminal(*argv)
    assert code == 0, terminal
    assert shown.format(m=EXAMPLE) in terminal
    assert terminal.endswith("\r\x1b[K")  # wiped when done: what follows stands alone
    code, _, terminal = _on_terminal(*argv, "--quiet")
    assert (code, terminal) == (0, "")
    piped = subprocess.run(
        [sys.executable, "-m", "wirecodec", *argv], capture_output=True, text=True, env=ENV, timeout=120
    )
    assert (piped.returncode, piped.stderr) == (0, "")
    assert piped.stdout == out


@pytest.mark.parametrize(
    ("args", "printed"),
    [
        (["extract", "{m}", "{t}/x.onnx", "--outputs", "a"], "wrote "),
        (["merge", "{m}", "{m}", "{t}/m.onnx", "--io-map", "y:x", "--prefix2", "b/"], "wrote "),
        (["draw", "{m}", "-o", "{t}/g.dot"], "wrote "),
        (["check", "{m}", "{m}"], "{m}: valid"),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else "",
)
def test_output_on_the_same_terminal_starts_on_a_wiped_line(
    tmp_path: pathlib.Path, args: list[str], printed: str
) -> None:
    code, _, terminal = _on_terminal(*(a.format(m=EXAMPLE, t=tmp_path) for a in args), both=True)
    assert code == 0, terminal
    assert "\r\x1b[K" + printed.format(m=EXAMPLE) in terminal, terminal


def test_never_with_json(tmp_path: pathlib.Path) -> None:
    code, out, terminal = _on_terminal("check", str(EXAMPLE), str(EXAMPLE), "--json")
    assert code == 0 and out.startswith("{") and terminal == ""


@pytest.mark.quick
def test_a_status_line_is_cut_to_the_terminal_and_wiped() -> None:
    out = io.StringIO()
    with Status("check", out) as status:
        status("x" * 500)
        status.count(2, 10, "second")  # within the interval after a drawn line: not redrawn
    text = out.getvalue()
    assert text.count("\r\x1b[K") == 2 and len(text) < 300 and "second" not in text
    silent = io.StringIO()
    with Status("check", None) as status:
        status("anything")
    assert silent.getvalue() == ""
