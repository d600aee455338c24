"""A pipe longer than any read buffer x every verb that reads standard input and that
tests/cli/test_long_pipes.py does not run (it has infer-shapes, edit, extract,
convert-opset, convert --to zip, tensors -o, diff and fuzz).

The longest buffer a pipe is read into is ``PIPE_WHOLE`` (a pipe that ends within it is
kept whole, like bytes); the model here is twice that and more, so every verb reads the pipe
front to back (spooling the weights where it needs their values). Each verb runs in a
fresh process from the file and from the pipe: the same exit status, the same standard
output (the source's name aside), the same files written, no spool left behind, and —
for the verbs that never read a weight's values — a peak resident size that holds the
structure, not the weights. (bench/memory_paths.py --verbs measures the same rows.)
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from wirecodec.files.opener import PIPE_WHOLE

ROOT = pathlib.Path(__file__).resolve().parents[3]
# Past the head a pipe is read into, by more than that head and the slack the peak is
# allowed: a verb that held the weights whole would show.
WEIGHTS = 2 * PIPE_WHOLE + (16 << 20)
SLACK_MB = 16

# One verb, then its peak resident size (kB) to PEAK_FILE; the high-water mark starts
# afresh (a child inherits its parent's on Linux).
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
    onnx = pytest.importorskip("onnx", reason="the model is built with onnx (test extra)")
    from onnx import TensorProto, helper, numpy_helper

    side = int((WEIGHTS // 4) ** 0.5) + 1
    weight = numpy_helper.from_array((np.arange(side * side, dtype=np.float32) % 7).reshape(side, side), "W")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "W"], ["h"]), helper.make_node("Relu", ["h"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, side])],
        [weight],
    )
    folder = tmp_path_factory.mktemp("long-pipe")
    path = folder / "big.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    assert path.stat().st_size > PIPE_WHOLE  # past the longest buffer: read front to back
    # The same weights in a safetensors file, for attach-weights.
    import wirecodec

    (folder / "st").mkdir()
    wirecodec.save(
        wirecodec.load(path), folder / "st" / "m.onnx", external_data="m.safetensors", size_threshold=0
    )
    return path


def _verb(args: list[str], cwd: pathlib.Path, stdin: pathlib.Path | None) -> tuple[int, str, str, float]:
    """(exit status, standard output, standard error, peak MB) of one verb in a fresh process."""
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
    # (onnxruntime writes a session id of its own, ``.ses``, in the temporary directory.)
    assert not [p for p in spool.iterdir() if p.name != ".ses"], "a spool file was left behind"
    return done.returncode, done.stdout, done.stderr, int(peak.read_text()) / 1024


# (arguments, SOURCE for the model; the files it writes; whether its peak is bounded by
# the structure: a verb that reads a weight's values maps them in from the spool)
VERBS = [
    (["inspect", "SOURCE", "--json"], [], True),
    (["check", "SOURCE", "--json"], [], True),
    (["dump", "SOURCE", "graph.node[0]"], [], True),
    (["tensors", "SOURCE", "--json"], [], True),
    (["draw", "SOURCE", "-o", "out.dot"], ["out.dot"], True),
    (["convert", "SOURCE", "out.onnx", "--to", "external"], ["out.onnx", "out.onnx.data"], True),
    (["convert", "SOURCE", "out.onnx", "--to", "single"], ["out.onnx"], True),
    (["convert", "SOURCE", "out.onnx", "--to", "safetensors"], ["out.onnx", "out.safetensors"], True),
    (["attach-weights", "SOURCE", "m.safetensors", "out.onnx"], ["out.onnx"], True),
    (["merge", "SOURCE", "MODEL", "out.onnx", "--io-map", "y:x", "--prefix2", "b/"], ["out.onnx"], False),
    (["run", "SOURCE", "--seed", "1"], [], False),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "written", "bounded"),
    VERBS,
    ids=[
        "-".join([v[0][0], *(a for a in v[0][2:] if a in ("external", "single", "safetensors"))])
        for v in VERBS
    ],
)
def test_a_pipe_past_every_buffer_works_as_the_path_does(
    tmp_path: pathlib.Path, model: pathlib.Path, args: list[str], written: list[str], bounded: bool
) -> None:
    if not pathlib.Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux's /proc/self/clear_refs to restart the peak RSS")
    if args[0] == "run":
        pytest.importorskip("onnxruntime", reason="run's default engine (test extra)")
    results = {}
    for how in ("path", "pipe"):
        folder = tmp_path / how
        folder.mkdir()
        source = str(model) if how == "path" else "-"
        if args[0] == "attach-weights":  # the weights must be beside the output
            shutil.copyfile(model.parent / "st" / "m.safetensors", folder / "m.safetensors")
        argv = [source if a == "SOURCE" else str(model) if a == "MODEL" else a for a in args]
        code, out, err, peak = _verb(argv, folder, model if how == "pipe" else None)
        assert code == 0, (how, err[-2000:])
        shown = out.replace(str(model), "SOURCE").replace("<stdin>", "SOURCE").replace('"-"', '"SOURCE"')
        files = {name: (folder / name).read_bytes() for name in written}
        results[how] = shown, files, peak
        print(f"{args[0]} from a {how}: peak {peak:.0f} MB")
    assert results["pipe"][1] == results["path"][1]  # the same files, byte for byte
    assert _without_sizes(results["pipe"][0], args[0]) == _without_sizes(results["path"][0], args[0])
    if bounded:
        # The structure and a pipe's head (PIPE_WHOLE, read to learn whether the pipe ends
        # within it), never the weights read whole.
        assert results["pipe"][2] < results["path"][2] + PIPE_WHOLE / 2**20 + SLACK_MB, results


def _without_sizes(shown: str, verb: str) -> str:
    """Standard output with what only a file has (its size, its layout line) left out."""
    if verb != "inspect":
        return shown
    import json

    summary = json.loads(shown)
    for key in ("size", "model", "layout", "byte_identical"):
        summary.pop(key, None)
    return json.dumps(summary, sort_keys=True)
