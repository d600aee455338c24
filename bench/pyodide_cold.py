"""Cold start: the first ``wirecodec.load`` of a third-party model in a fresh process,
native CPython against Pyodide (WebAssembly, under node; tests/pyodide/run.sh installs it).

Each run is a new process; the time is ``import wirecodec`` plus the first ``load`` and a
full ``encode`` (so every codec the model needs is made), measured inside the process
(Pyodide's own start-up, ~2-8 s, is not counted: it is the host's, not ours). In
parentheses, the part spent compiling the library's own ``.py`` modules.

Rows: native with the library's ``.pyc`` files (as pip installs it), with the codec cache
warm and with none (as where no cache can be written); Pyodide with no ``.pyc`` (as
micropip installs a pure-Python wheel: every module compiled in every process) and with
``.pyc`` made by Pyodide's CPython (as ``pyodide py-compile`` makes a wheel; kept in
``.ci/pyodide/pyc``). Each twice: codecs generated in the process
(``WIRECODEC_SHIPPED_CODECS=0``, as before they were shipped) and shipped in the package
(wirecodec/_codecs, wirecodec.protobuf.shipped).

    python -m bench.pyodide_cold [MODEL_KEY] [--runs N]     (default: silero-vad, 3 runs)
    python -m bench.pyodide_cold --ship    # Pyodide's shipped codecs: python -m wirecodec._codecs in it
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

_SHIP = """
import runpy, sys
sys.argv = ["wirecodec._codecs"]
try:
    runpy.run_module("wirecodec._codecs", run_name="__main__")
except SystemExit as stop:
    if stop.code:
        raise
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

_GENERATED = {"WIRECODEC_SHIPPED_CODECS": "0"}
Run = tuple[float, float]  # seconds, of which compiling modules


def _timed(path: str, pyc: str, env: dict[str, str], write: bool = False) -> str:
    return _TIMED.format(path=path, pyc=pyc, no_write=not write, env=env)


def native(path: pathlib.Path, cached: bool, env: dict[str, str], write: bool = False) -> Run:
    """A fresh native process, reading the library's .pyc; ``cached``: with the codec cache
    under the home directory (warm after the first run), else with none."""
    environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    environ.update({"PYTHONPATH": str(ROOT), **env})
    if not cached:
        environ["WIRECODEC_CODE_CACHE"] = ""
    code = _timed(str(path), str(NATIVE_PYC), env, write)
    out = subprocess.run(
        [sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True
    )
    total, modules = out.stdout.split()[-2:]
    return float(total), float(modules)


def _in_pyodide(code: str, model_dir: pathlib.Path) -> str:
    PYODIDE_PYC.mkdir(parents=True, exist_ok=True)
    script = _NODE.format(
        module=(PYODIDE / "pyodide.mjs").as_uri(),
        index=str(PYODIDE) + "/",
        src=str(ROOT),
        model_dir=str(model_dir),
        pyc_dir=str(PYODIDE_PYC),
        code=code,
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return out.stdout


def pyodide(path: pathlib.Path, pyc: bool, env: dict[str, str], write: bool = False) -> Run:
    """A fresh Pyodide process; ``pyc``: reading the library's .pyc made by Pyodide, else
    compiling every module from source."""
    code = _timed(f"/model/{path.name}", "/pyc" if pyc else "/tmp/no-pyc", env, write)
    total, modules = _in_pyodide(code, path.parent).split()[-2:]
    return float(total), float(modules)


def _median(runs: list[Run]) -> Run:
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default="silero-vad")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--ship", action="store_true", help="regenerate Pyodide's shipped codecs, and stop")
    args = parser.parse_args()
    if args.ship:
        print(_in_pyodide(_SHIP, ROOT).strip())
        return 0
    path = ensure(CACHE, args.model)
    size = path.stat().st_size
    for folder in (NATIVE_PYC, PYODIDE_PYC):  # .pyc of this very tree, made afresh
        shutil.rmtree(folder, ignore_errors=True)
    native(path, True, {}, write=True)  # writes the .pyc and fills the codec cache
    pyodide(path, True, {}, write=True)
    measures: dict[tuple[str, str], Callable[[], Run]] = {}
    for label, env in (("generated", _GENERATED), ("shipped", {})):
        measures["native, codec cache warm", label] = functools.partial(native, path, True, env)
        measures["native, no codec cache", label] = functools.partial(native, path, False, env)
        measures["Pyodide, no .pyc", label] = functools.partial(pyodide, path, False, env)
        measures["Pyodide, .pyc", label] = functools.partial(pyodide, path, True, env)
    runs: dict[tuple[str, str], list[Run]] = {key: [] for key in measures}
    for _ in range(args.runs):  # round after round, so a busier minute weighs on every row alike
        for key, measure in measures.items():
            runs[key].append(measure())
    rows = {key: _median(found) for key, found in runs.items()}
    print(f"{args.model} ({size / 1e6:.1f} MB), median of {args.runs} rounds of fresh processes,")
    print(f"native CPython {sys.version.split()[0]}: import + first load + encode")
    print("(in parentheses: the part spent compiling the library's modules)")
    for label, title in (("generated", "codecs generated in the process"), ("shipped", "codecs shipped")):
        print(f"  {title}:")
        warm = rows["native, codec cache warm", label][0]
        for (where, which), (total, modules) in rows.items():
            if which == label:
                ratio = f"  {total / warm:.1f}x native warm" if where.startswith("Pyodide") else ""
                print(f"    {where + ':':26} {total:.3f} s ({modules:.3f} s){ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
