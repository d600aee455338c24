"""What importing costs, in fresh interpreters: wall times and ``-X importtime`` by package.

    python bench/import_time.py [--rounds N] [--root DIR]...   # default root: this checkout

For each root (a checkout: another commit's tree, made with ``git archive REF wirecodec
schema_dsl | tar -x -C DIR``, can be set beside this one), and for each statement
below, runs ``python -c STATEMENT`` in a fresh process with only that root on
``PYTHONPATH`` (from ``/``, so that no checkout in the current directory is imported
instead), in interleaved rounds so that a change in the machine's load falls on all
of them. Prints the median and fastest wall time of each (interpreter start included),
then the ``-X importtime`` self times summed by package, the fastest of the rounds for
each module.
"""

from __future__ import annotations

import argparse
import collections
import os
import pathlib
import re
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
STATEMENTS = {
    "the interpreter alone": "pass",
    "import numpy": "import numpy",
    "import onnx": "import onnx",
    "import wirecodec": "import wirecodec",
    "from wirecodec import load": "from wirecodec import load",
    "decode's imports": "from wirecodec import decode; from schema_dsl.onnx import ModelProto",
    "import wirecodec.cli": "import wirecodec.cli",
}
# Statements that do not depend on the checkout: measured for the first root only.
SHARED = ("the interpreter alone", "import numpy", "import onnx")
GROUPS = (
    "schema_dsl",
    "wirecodec.protobuf",
    "wirecodec.files",
    "wirecodec.tensors",
    "wirecodec.checker",
    "wirecodec.cli",
    "wirecodec._helper",
    "wirecodec._textual",
    "wirecodec",
    "numpy",
    "onnx",
    "google",
)
_LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)")


def _run(root: pathlib.Path, statement: str, *flags: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    command = [sys.executable, *flags, "-c", statement]
    return subprocess.run(command, env=env, cwd="/", capture_output=True, text=True, check=True)


def _group(module: str) -> str:
    return next((g for g in GROUPS if module == g or module.startswith(g + ".")), "standard library, others")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--root", type=pathlib.Path, action="append", help="a checkout (repeatable)")
    args = parser.parse_args(argv)
    roots = args.root or [ROOT]
    walls: dict[tuple[int, str], list[float]] = collections.defaultdict(list)
    selfs: dict[tuple[int, str], dict[str, list[int]]] = collections.defaultdict(
        lambda: collections.defaultdict(list)
    )
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    for _ in range(args.rounds):
        for index, root in enumerate(roots):
            for label, statement in STATEMENTS.items():
                if index and label in SHARED:
                    continue
                started = time.perf_counter()
                _run(root, statement)
                walls[index, label].append(time.perf_counter() - started)
                for line in _run(root, statement, "-X", "importtime").stderr.splitlines():
                    found = _LINE.match(line)
                    if found:
                        selfs[index, label][found[2]].append(int(found[1]))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}\n")
    print("| statement | " + " | ".join(f"`{root}`" for root in roots) + " |")
    print("|---" * (1 + len(roots)) + "|")
    for label in STATEMENTS:
        cells = []
        for index in range(len(roots)):
            times = walls.get((index, label))
            cells.append(
                f"{statistics.median(times) * 1e3:.0f} ms (fastest {min(times) * 1e3:.0f})" if times else ""
            )
        print(f"| {label} | " + " | ".join(cells) + " |")
    for (index, label), modules in selfs.items():
        groups: dict[str, float] = collections.defaultdict(float)
        for module, micros in modules.items():
            groups[_group(module)] += min(micros) / 1000
        print(f"\n`{label}` at `{roots[index]}`: {sum(groups.values()):.0f} ms of -X importtime self time")
        print(", ".join(f"{name} {ms:.0f}" for name, ms in sorted(groups.items(), key=lambda kv: -kv[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
