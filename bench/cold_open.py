"""A fresh process opens a PyTorch export and reads every weight as an array, against onnx.

    python bench/cold_open.py [--runs N] [--cache DIR] [KEY...]     # default: gpt gpt-small

What a script pays end to end, interpreter start and imports included: each measurement
is one fresh process (``bench/cli_verbs.py``'s ``measure``: wall time, CPU time, peak
RSS, reaped with ``os.wait4``), the two libraries taking turns, ``--runs`` times each
(default 5); wall times are medians ± half the spread (max - min). Each process runs
the same program on its library:

* onnx: ``onnx.load(M)`` and ``onnx.numpy_helper.to_array(t)`` of every initializer;
* wirecodec: ``wirecodec.load(M)`` and ``wirecodec.to_array(t)`` of every initializer.

Each process sums one value of every array (so both read the same weights and the
answers are compared: a row whose sums differ says so). Inputs are ``bench/inputs.py``'s
dynamo exports (``gpt``: 540 MB in one file; ``gpt-small``: 52 MB), built if missing.
As in ``bench/cli_verbs.py``, wirecodec's modules are byte-compiled first, as an
installed wheel has them.
"""

from __future__ import annotations

import argparse
import compileall
import os
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from cli_verbs import measure  # noqa: E402  (bench/ is not a package)

PROGRAMS = {
    "onnx": (
        "import sys, onnx\nfrom onnx import numpy_helper\n"
        "m = onnx.load(sys.argv[1])\n"
        "arrays = [numpy_helper.to_array(t) for t in m.graph.initializer]\n"
        "print(len(arrays), sum(float(a.reshape(-1)[-1]) for a in arrays if a.size))\n"
    ),
    "wirecodec": (
        "import sys, wirecodec\n"
        "m = wirecodec.load(sys.argv[1])\n"
        "arrays = [wirecodec.to_array(t) for t in m.graph.initializer]\n"
        "print(len(arrays), sum(float(a.reshape(-1)[-1]) for a in arrays if a.size))\n"
    ),
}


def answer(library: str, model: pathlib.Path) -> str:
    """What the library's program prints (the arrays' count and a checksum)."""
    env = {**os.environ, "PYTHONPATH": str(HERE.parent)}
    argv = [sys.executable, "-c", PROGRAMS[library], str(model)]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    return done.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", default=["gpt", "gpt-small"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cache", type=pathlib.Path, default=HERE / ".cache")
    args = parser.parse_args(argv)
    import inputs

    for package in ("wirecodec", "schema_dsl"):
        compileall.compile_dir(str(HERE.parent / package), quiet=1)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print(
        "| model | MB | wirecodec wall s (cpu s) · peak MB | onnx wall s (cpu s) · peak MB "
        "| ratio wall | ratio cpu | answers |"
    )
    print("|---|---|---|---|---|---|---|")
    for key in args.keys:
        model = inputs.ensure(args.cache, inputs.FULL, key)
        size = sum(p.stat().st_size for p in model.parent.iterdir()) / 1e6
        same = answer("wirecodec", model) == answer("onnx", model)
        figures: dict[str, list[dict[str, object]]] = {"wirecodec": [], "onnx": []}
        for run in range(args.runs):
            order = ("wirecodec", "onnx") if run % 2 == 0 else ("onnx", "wirecodec")
            for library in order:
                argv_ = [sys.executable, "-c", PROGRAMS[library], str(model)]
                figures[library].append(measure(argv_))
        cells = {}
        for library, runs in figures.items():
            walls = [float(r["wall"]) for r in runs]  # type: ignore[arg-type]
            cpu = statistics.median(float(r["cpu"]) for r in runs)  # type: ignore[arg-type]
            peak = statistics.median(float(r["peak_mb"]) for r in runs)  # type: ignore[arg-type]
            cells[library] = (statistics.median(walls), (max(walls) - min(walls)) / 2, cpu, peak)
        (w1, s1, c1, p1), (w2, s2, c2, p2) = cells["wirecodec"], cells["onnx"]
        print(
            f"| {key} | {size:,.0f} | {w1:.3f} ±{s1:.3f} ({c1:.3f}) · {p1:,.0f} "
            f"| {w2:.3f} ±{s2:.3f} ({c2:.3f}) · {p2:,.0f} "
            f"| {w1 / w2:.3f}× | {c1 / c2:.3f}× | {'equal' if same else 'DIFFER'} |"
        )
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
