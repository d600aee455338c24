"""Issue 47, item 3: every verb that takes ``-`` handles a pipe of any length. A pipe past
32 MiB is read front to back; a verb that reads the weights gets them spooled to a file
deleted as soon as it is closed (nothing left behind), and writes what it writes from a
path; peak memory holds the structure, never the weights."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
WEIGHTS = 96 << 20  # past the 32 MiB a pipe is kept whole within, and past any buffer

# Runs one verb, then writes its peak resident memory (kB) where PEAK_FILE says. (The
# high-water mark starts afresh: a child inherits its parent's, the test runner's, on Linux.)
_CHILD = """
import os, pathlib, sys
pathlib.Path("/proc/self/clear_refs").write_text("5")
from wirecodec.cli import main
code = main(sys.argv[1:])
status = pathlib.Path("/proc/self/status").read_text().splitlines()
peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
pathlib.Path(os.environ["PEAK_FILE"]).write_text(peak)
sys.exit(code)
"""


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    side = int((WEIGHTS // 4) ** 0.5)
    weight = numpy_helper.from_array(np.arange(side * side, dtype=np.float32).reshape(side, side), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, side])],
        [weight],
    )
    path = tmp_path_factory.mktemp("long-pipe") / "big.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    assert path.stat().st_size > 2 * (32 << 20)
    return path


def _verb(args: list[str], cwd: pathlib.Path, stdin: pathlib.Path | None) -> tuple[int, str, float]:
    """(exit status, standard error, peak memory in MB) of one verb in a fresh process."""
    peak = cwd / "peak.txt"
    spool = cwd / "tmp"
    spool.mkdir(exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PEAK_FILE": str(peak), "TMPDIR": str(spool)}
    with open(stdin or os.devnull, "rb") as given:
        done = subprocess.run(
            [sys.executable, "-c", _CHILD, *args],
            stdin=given,
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert not list(spool.iterdir()), "a spool file was left behind"
    return done.returncode, done.stderr, int(peak.read_text()) / 1024


# (arguments with SOURCE for the model, the file it writes or None, whether its peak
# memory is bounded by the structure: a verb that reads a weight's values maps them in)
VERBS = [
    (["infer-shapes", "SOURCE", "out.onnx"], "out.onnx", True),
    (["edit", "SOURCE", "-o", "out.onnx", "--set-producer", "piped:1"], "out.onnx", True),
    (["extract", "SOURCE", "out.onnx", "--inputs", "x", "--outputs", "h"], "out.onnx", True),
    (["convert-opset", "SOURCE", "out.onnx", "--to-opset", "18"], "out.onnx", True),
    (["convert", "SOURCE", "out.onnxz", "--to", "zip"], "out.onnxz", True),
    (["tensors", "SOURCE", "W", "-o", "out.npy"], "out.npy", False),
    (["diff", "SOURCE", "MODEL"], None, False),
    (["fuzz", "SOURCE", "-o", "out"], None, False),
]


@pytest.mark.parametrize(("args", "written", "bounded"), VERBS, ids=[v[0][0] for v in VERBS])
def test_a_long_pipe_works_as_the_path_does(
    tmp_path: pathlib.Path, model: pathlib.Path, args: list[str], written: str | None, bounded: bool
) -> None:
    if not pathlib.Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux's /proc/self/clear_refs to restart the peak RSS")
    results = {}
    for how in ("path", "pipe"):
        folder = tmp_path / how
        folder.mkdir()
        source = str(model) if how == "path" else "-"
        argv = [source if a == "SOURCE" else str(model) if a == "MODEL" else a for a in args]
        code, err, peak = _verb(argv, folder, model if how == "pipe" else None)
        assert code == 0, (how, err[-2000:])
        results[how] = ((folder / written).read_bytes() if written else None), peak
        print(f"{args[0]} from a {how}: peak {peak:.0f} MB")
    assert results["pipe"][0] == results["path"][0]
    if bounded:
        # The structure and a pipe's 32 MiB head, never the 96 MiB of weights.
        assert results["pipe"][1] < results["path"][1] + 48, results
