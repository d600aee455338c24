"""Cold start: the first ``wirecodec.load`` of a third-party model in a fresh process,
native CPython against Pyodide (WebAssembly, under node; tests/pyodide/run.sh installs it),
for this tree and, with ``--before REF``, for the tree of a git revision (``git archive``
into ``.ci/before-REF``) in the same rounds.

Each run is a new process; the time is ``import wirecodec`` plus the first ``load`` and a
full ``encode`` (so every codec the model needs is made), measured inside the process
(Pyodide's own start-up, ~2-8 s, is not counted: it is the host's, not ours). In
parentheses, the part spent compiling ``.py`` modules (the library's, and the shipped
codecs': wirecodec/_codecs).

Rows, each with no codec cache under the home directory (``WIRECODEC_CODE_CACHE=``, as
where none can be written): native with ``.pyc`` files (as pip installs a wheel), native
compiling from source (no ``.pyc``); Pyodide compiling from source (as micropip installs
a pure-Python wheel) and with ``.pyc`` made by Pyodide's CPython (as ``pyodide
py-compile`` makes a wheel; kept in ``.ci/pyodide/pyc``). Pyodide's ratio is to the
native process with ``.pyc`` (issue 48: at most 4x).

    python -m bench.pyodide_cold [MODEL_KEY] [--runs N] [--before REF] [--no-pyodide]
        (default: silero-vad, 2.3 MB, 3 runs)
"""

from __future__ import annotations

import argparse
import functools
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
from collections.abc import Callable
from typing import Final

from bench.models_people_have import ensure

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYODIDE = ROOT / ".ci" / "pyodide" / "node_modules" / "pyodide"
PYODIDE_PYC = ROOT / ".ci" / "pyodide" / "pyc"  # Pyodide's .pyc of the library (git-ignored)
NATIVE_PYC = ROOT / ".ci" / "pyc-native"
CACHE = ROOT / "bench" / ".cache"

# {pyc}: where .pyc files are read and written (sys.pycache_prefix); {write}: whether to write them.
_TIMED = """
import os, sys, time
import importlib._bootstrap_external as loading
sys.pycache_prefix = {pyc!r}
sys.dont_write_bytecode = {no_write!r}
os.environ.update({env!r})
compiling = [0.0]
to_code = loading.SourceLoader.source_to_code
def timed_to_code(*args, **kwargs):
    began = time.perf_counter()
    try:
        return to_code(*args, **kwargs)
    finally:
        compiling[0] += time.perf_counter() - began
loading.SourceLoader.source_to_code = timed_to_code
started = time.perf_counter()
import wirecodec
model = wirecodec.load({path!r})
wirecodec.encode(model)
print(f"{{time.perf_counter() - started:.4f}} {{compiling[0]:.4f}}")
"""

_NODE = """
const {{ loadPyodide }} = await import({module!r});
const pyodide = await loadPyodide({{ indexURL: {index!r} }});
for (const [where, root] of [["/src", {src!r}], ["/model", {model_dir!r}], ["/pyc", {pyc_dir!r}]]) {{
  pyodide.FS.mkdirTree(where);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, {{ root }}, where);
}}
pyodide.runPython("import sys; sys.path.insert(0, '/src')");
pyodide.runPython({code!r});
"""

Run = tuple[float, float]  # seconds, of which compiling modules
_NO_CODE_CACHE: Final = {"WIRECODEC_CODE_CACHE": ""}


def _timed(path: str, pyc: str, env: dict[str, str], write: bool = False) -> str:
    return _TIMED.format(path=path, pyc=pyc, no_write=not write, env=env)


def native(tree: pathlib.Path, path: pathlib.Path, pyc: bool, write: bool = False) -> Run:
    """A fresh native process of the library in ``tree``; ``pyc``: reading its .pyc (made
    by the first, writing, run), else compiling every module from source."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ.update({"PYTHONPATH": str(tree), **_NO_CODE_CACHE})
    folder = NATIVE_PYC / tree.name if pyc else NATIVE_PYC / "none"
    code = _timed(str(path), str(folder), _NO_CODE_CACHE, write)
    out = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True
    )
    total, modules = out.stdout.split()[-2:]
    return float(total), float(modules)


def _in_pyodide(tree: pathlib.Path, code: str, model_dir: pathlib.Path) -> str:
    pyc_dir = PYODIDE_PYC / tree.name
    pyc_dir.mkdir(parents=True, exist_ok=True)
    script = _NODE.format(
        module=(PYODIDE / "pyodide.mjs").as_uri(),
        index=str(PYODIDE) + "/",
        src=str(tree),
        model_dir=str(model_dir),
        pyc_dir=str(pyc_dir),
        code=code,
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return out.stdout


def pyodide(tree: pathlib.Path, path: pathlib.Path, pyc: bool, write: bool = False) -> Run:
    """A fresh Pyodide process; ``pyc``: reading the library's .pyc made by Pyodide, else
    compiling every module from source."""
    code = _timed(f"/model/{path.name}", "/pyc" if pyc else "/tmp/no-pyc", _NO_CODE_CACHE, write)
    total, modules = _in_pyodide(tree, code, path.parent).split()[-2:]
    return float(total), float(modules)


def _median(runs: list[Run]) -> Run:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def _tree_of(ref: str) -> pathlib.Path:
    """The library as of git revision ``ref``, exported (sources only) under .ci/."""
    target = ROOT / ".ci" / f"before-{ref.replace('/', '-')}"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", ref, "wirecodec", "schema_dsl"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default="silero-vad")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", metavar="REF", help="also measure the library of this git revision")
    parser.add_argument("--no-pyodide", action="store_true", help="native rows only")
    args = parser.parse_args()
    path = ensure(CACHE, args.model)
    size = path.stat().st_size
    trees = {"this tree": ROOT}
    if args.before:
        trees = {f"before ({args.before})": _tree_of(args.before), "after (this tree)": ROOT}
    with_pyodide = not args.no_pyodide and (PYODIDE / "pyodide.mjs").exists()
    measures: dict[tuple[str, str], Callable[[], Run]] = {}
    for label, tree in trees.items():
        for folder in (NATIVE_PYC / tree.name, PYODIDE_PYC / tree.name):  # .pyc made afresh
            shutil.rmtree(folder, ignore_errors=True)
        native(tree, path, True, write=True)
        measures[label, "native, .pyc"] = functools.partial(native, tree, path, True)
        measures[label, "native, from source"] = functools.partial(native, tree, path, False)
        if with_pyodide:
            pyodide(tree, path, True, write=True)
            measures[label, "Pyodide, .pyc"] = functools.partial(pyodide, tree, path, True)
            measures[label, "Pyodide, from source"] = functools.partial(pyodide, tree, path, False)
    runs: dict[tuple[str, str], list[Run]] = {key: [] for key in measures}
    for _ in range(args.runs):  # round after round, so a busier minute weighs on every row alike
        for key, measure in measures.items():
            runs[key].append(measure())
    rows = {key: _median(found) for key, found in runs.items()}
    print(f"{args.model} ({size / 1e6:.1f} MB), median of {args.runs} rounds of fresh processes,")
    print(f"native CPython {sys.version.split()[0]}: import + first load + encode, no codec cache")
    print("(in parentheses: the part spent compiling .py modules)")
    for label in trees:
        print(f"  {label}:")
        base = rows[label, "native, .pyc"][0]
        for (which, where), (total, modules) in rows.items():
            if which == label:
                ratio = f"  {total / base:.1f}x native .pyc" if where.startswith("Pyodide") else ""
                print(f"    {where + ':':24} {total:.3f} s ({modules:.3f} s){ratio}")
    if not with_pyodide:
        print("(no Pyodide rows: bash tests/pyodide/run.sh installs it under .ci/pyodide)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
