"""The ``wirecodec`` program (``python -m wirecodec``: cli.program()) exits with main()'s
status, and quietly when its standard output's reader is gone before the exit flush."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from wirecodec.cli import EXAMPLE

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Buffered standard output (as a program's is by default): what it printed is still in the
# buffer when it exits.
ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}, "PYTHONPATH": str(ROOT)}


def _program(*args: str, stdout: int = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "wirecodec", *args]
    return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True, env=ENV, timeout=120)


def test_the_program_exits_with_the_status_main_returns(tmp_path: pathlib.Path) -> None:
    assert _program("inspect", str(EXAMPLE)).returncode == 0
    missing = _program("inspect", str(tmp_path / "absent.onnx"))
    assert missing.returncode == 1 and "absent.onnx" in missing.stderr
    (tmp_path / "bad.onnx").write_bytes(b"\x08")  # ir_version with its value cut off
    bad = _program("check", str(tmp_path / "bad.onnx"))
    assert bad.returncode == 1, bad.stderr


def test_a_reader_gone_before_the_exit_flush_is_not_an_error() -> None:
    # inspect's few lines stay in the program's buffer until it exits; the pipe's reader
    # is already gone, so the flush at exit is what meets the broken pipe.
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _program("inspect", str(EXAMPLE), stdout=write_end)
    finally:
        os.close(write_end)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
