"""Process-wide state stays the host's: the umask is read, never set; the CLI run in-process
leaves the caller's standard output alone on a broken pipe (docs/guide.md, "A guest")."""

from __future__ import annotations

import io
import os
import pathlib
import stat
import subprocess
import sys

import pytest

import wirecodec
from wirecodec.cli import EXAMPLE, main
from wirecodec.examples.build_mlp import build

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_a_save_without_proc_reads_the_umask_without_setting_it(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_read_text = pathlib.Path.read_text

    def no_proc(self: pathlib.Path, *args: object, **kwargs: object) -> str:
        if str(self).startswith("/proc"):
            raise FileNotFoundError(str(self))
        return real_read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    def umask_set(mask: int) -> int:
        raise AssertionError("os.umask called: it changes the mask for every thread")

    mask = os.umask(0o027)  # the test's own setting, given back below
    try:
        monkeypatch.setattr(pathlib.Path, "read_text", no_proc)
        monkeypatch.setattr(os, "umask", umask_set)
        wirecodec.save(build(), tmp_path / "m.onnx")
    finally:
        monkeypatch.undo()
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "m.onnx").stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx"]  # no probe left behind


class _Gone(io.TextIOBase):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_main_in_process_leaves_standard_output_alone_on_a_broken_pipe(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    before = os.fstat(1)
    monkeypatch.setattr(sys, "stdout", _Gone())
    assert main(["inspect", str(EXAMPLE)]) == 0
    after = os.fstat(1)
    assert (after.st_dev, after.st_ino) == (before.st_dev, before.st_ino)


def test_the_program_stops_quietly_when_its_reader_goes_away(tmp_path: pathlib.Path) -> None:
    from schema_dsl.onnx import TensorProto
    from wirecodec import helper

    # Far more text than a pipe's buffer holds, so the writes do meet the closed pipe.
    nodes = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"], name=f"relu{i}") for i in range(5000)]
    io_info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in ("v0", "v5000")]
    model = helper.make_model(helper.make_graph(nodes, "long", io_info[:1], io_info[1:]))
    wirecodec.save(model, tmp_path / "m.onnx")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "wirecodec", "dump", str(tmp_path / "m.onnx")]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as program:
        assert program.stdout is not None and program.stderr is not None
        program.stdout.read(10)
        program.stdout.close()  # the reader goes away, as `| head -c 10` does
        errors = program.stderr.read().decode()
        code = program.wait(timeout=60)
    assert code == 0, errors
    assert "Traceback" not in errors and "BrokenPipe" not in errors
