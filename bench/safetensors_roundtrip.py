"""The safetensors round trip: one weights file written by wirecodec, read by two runtimes.

    python bench/safetensors_roundtrip.py [MODEL] [--repeat 3]

MODEL is a single-file ONNX model (default: the 540 MB PyTorch dynamo export of
``bench/run.py``'s inputs, ``--cache`` as there). Each step runs in a fresh process,
timed after the imports, the libraries taking turns, median of ``--repeat``:

1. **write**: ``wirecodec convert MODEL st/model.onnx --to safetensors`` against onnx
   doing what it needs for an external-data copy (``onnx.load`` + ``onnx.save_model(...,
   save_as_external_data=True)``);
2. **read the weights back**: ``safetensors.numpy.load_file`` of the file wirecodec wrote
   (checked equal to the model's initializers, tensor by tensor), beside
   ``wirecodec.load`` + ``to_array`` of every initializer of the safetensors-backed model
   and ``onnx.load`` + ``numpy_helper.to_array`` of onnx's external-data copy;
3. **run**: an onnxruntime session on the safetensors-backed model and on MODEL itself
   (creation + one run on the same random input; the outputs must be equal).

Prints a Markdown table (seconds · peak RSS of the step's process).
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_MODEL = pathlib.Path("bench/.cache/gpt-torch-v32000-d768-l12/model.onnx")

# Each child: the imports, then the clock around one step; prints {"seconds", "rss_mb", ...}.
_PRELUDE = """
import json, resource, sys, time
sys.path.insert(0, {root!r})
"""
# A step: (imports, the statements timed, what follows the clock). Each read step leaves
# ``arrays``, each run step its session's outputs.
_COUNT_ARRAYS = 'extra = {{"tensors": len(arrays), "bytes": sum(a.nbytes for a in arrays.values())}}'
_RUN = (
    "session = onnxruntime.InferenceSession({path!r}, providers=['CPUExecutionProvider'])\n"
    "outputs = session.run(None, {{feeds}})"
)
_SAVE_OUTPUT = "np.save({{out!r}} + '/{name}.npy', outputs[0])"
_STEPS: dict[str, tuple[str, str, str]] = {
    "write-wirecodec": (
        "from wirecodec.cli import main",
        'assert main(["convert", {model!r}, {out!r} + "/st/model.onnx", "--to", "safetensors"]) == 0',
        "",
    ),
    "write-onnx": (
        "import onnx",
        "onnx.save_model(onnx.load({model!r}), {out!r} + '/pb/model.onnx', save_as_external_data=True,\n"
        "                all_tensors_to_one_file=True, location='model.onnx.data')",
        "",
    ),
    "read-safetensors": (
        "import safetensors.numpy",
        "arrays = safetensors.numpy.load_file({out!r} + '/st/model.safetensors')",
        _COUNT_ARRAYS,
    ),
    "read-wirecodec": (
        "import wirecodec",
        "m = wirecodec.load({out!r} + '/st/model.onnx')\n"
        "arrays = {{t.name: wirecodec.to_array(t) for t in m.graph.initializer}}",
        _COUNT_ARRAYS,
    ),
    "read-onnx": (
        "import onnx\nfrom onnx import numpy_helper",
        "m = onnx.load({out!r} + '/pb/model.onnx')\n"
        "arrays = {{t.name: numpy_helper.to_array(t) for t in m.graph.initializer}}",
        _COUNT_ARRAYS,
    ),
    "run-safetensors": (
        "import numpy as np, onnxruntime",
        _RUN.format(path="{out}/st/model.onnx"),
        _SAVE_OUTPUT.format(name="run-safetensors"),
    ),
    "run-single": (
        "import numpy as np, onnxruntime",
        _RUN.format(path="{model}"),
        _SAVE_OUTPUT.format(name="run-single"),
    ),
}
_POSTLUDE = """
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"seconds": took, "rss_mb": rss, **globals().get("extra", {})}))
"""

# Rows: (what, wirecodec's step, the reference's step, the reference's name)
_ROWS = [
    ("write the weights as safetensors / as external data", "write-wirecodec", "write-onnx", "onnx"),
    ("read every weight: safetensors reads wirecodec's file", "read-safetensors", "read-onnx", "onnx"),
    ("read every weight: wirecodec.load of the safetensors model", "read-wirecodec", "read-onnx", "onnx"),
    ("onnxruntime: session + one run, safetensors model / single", "run-safetensors", "run-single", "ort"),
]


def _feeds(model: pathlib.Path) -> str:
    """Source of a feeds dict for the model's inputs: token ids 0-99, other numbers at random."""
    import wirecodec

    graph = wirecodec.load(model).graph
    initializers = {t.name for t in graph.initializer}
    parts = []
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else 1 for d in tensor.shape.dim]
        if tensor.elem_type == 7:  # INT64
            ids = f"(np.arange({math.prod(shape)}) % 100).reshape({shape})"
            parts.append(f"{value.name!r}: {ids}.astype(np.int64)")
        else:
            dtype = wirecodec.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
            parts.append(f"{value.name!r}: np.random.default_rng(0).random({shape}).astype({str(dtype)!r})")
    return "{" + ", ".join(parts) + "}"


def _child(step: str, model: pathlib.Path, out: pathlib.Path, feeds: str) -> dict[str, float]:
    imports, timed, after = (
        part.format(model=str(model), out=str(out), feeds=feeds) for part in _STEPS[step]
    )
    body = f"{imports}\nstart = time.perf_counter()\n{timed}\ntook = time.perf_counter() - start\n{after}\n"
    source = _PRELUDE.format(root=str(ROOT)) + body + _POSTLUDE
    found = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, check=False)
    if found.returncode != 0:
        raise SystemExit(f"{step} failed:\n{found.stderr[-3000:]}")
    result: dict[str, float] = json.loads(found.stdout.strip().splitlines()[-1])
    return result


def _check(model: pathlib.Path, out: pathlib.Path) -> str:
    """What the round trip must give: safetensors' arrays equal the model's, ORT's outputs equal."""
    import numpy as np
    import safetensors.numpy

    import wirecodec

    theirs = safetensors.numpy.load_file(str(out / "st" / "model.safetensors"))
    mine = {t.name: wirecodec.to_array(t) for t in wirecodec.load(model).graph.initializer}
    from wirecodec.files.opener import open_model

    stored = open_model(out / "st" / "model.onnx").model  # references left as written
    by_location = {t.name: dict((e.key, e.value) for e in t.external_data) for t in stored.graph.initializer}
    compared = 0
    for name, array in mine.items():
        if by_location[name].get("location") != "model.safetensors":
            continue  # small tensors stay in the model
        # The key is the tensor's name, unless it had to be made unique (safetensors_names).
        keys = [name] if name in theirs else [k for k in theirs if theirs[k].shape == array.shape]
        if not any(np.array_equal(theirs[key], array) for key in keys):
            raise SystemExit(f"{name}: not found in the safetensors file with equal contents")
        compared += 1
    if not compared:
        raise SystemExit("no weight of the model refers to model.safetensors")
    ours, single = np.load(out / "run-safetensors.npy"), np.load(out / "run-single.npy")
    if not np.array_equal(ours, single):
        raise SystemExit("onnxruntime's outputs differ between the safetensors model and the single file")
    return f"{compared} weights equal as safetensors reads them; onnxruntime's outputs equal ({ours.shape})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?", type=pathlib.Path, default=DEFAULT_MODEL)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    model = args.model.resolve()
    if not model.exists():
        raise SystemExit(f"{model}: not found (build the bench inputs: python bench/run.py --only load)")
    feeds = _feeds(model)
    with tempfile.TemporaryDirectory() as scratch:
        out = pathlib.Path(scratch)
        times: dict[str, list[dict[str, float]]] = {step: [] for step in _STEPS}
        for run in range(args.repeat):
            for sub in ("st", "pb"):  # each write starts from nothing
                for old in (out / sub).glob("*"):
                    old.unlink()
                (out / sub).mkdir(exist_ok=True)
            order = list(_STEPS)  # the writes first (the reads need both files)
            if run % 2:  # and who goes first takes turns
                order[0], order[1] = order[1], order[0]
            for step in order:
                times[step].append(_child(step, model, out, feeds))
                print(f"run {run + 1}: {step} {times[step][-1]['seconds']:.3f} s", file=sys.stderr)
        verdict = _check(model, out)
        size = model.stat().st_size
    runs = f"median of {args.repeat} fresh processes per step"
    print(f"`{model.parent.name}` ({size / 1e6:,.0f} MB), {runs}; {verdict}.\n")
    print("| step | wirecodec side | reference | ratio |")
    print("|---|---|---|---|")
    for what, ours, reference, name in _ROWS:
        mine = statistics.median(r["seconds"] for r in times[ours])
        theirs = statistics.median(r["seconds"] for r in times[reference])
        rss_mine = statistics.median(r["rss_mb"] for r in times[ours])
        rss_theirs = statistics.median(r["rss_mb"] for r in times[reference])
        print(
            f"| {what} | {mine:.3f} s · {rss_mine:,.0f} MB | {name}: {theirs:.3f} s · {rss_theirs:,.0f} MB "
            f"| {mine / theirs:.2f}× |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
