"""Cold start: the first ``wirecodec.load`` of a third-party model in a fresh process,
native CPython against Pyodide (WebAssembly, under node; tests/pyodide/run.sh installs it).

Each run is a new process; the time is ``import wirecodec`` plus the first ``load`` and a
full ``encode`` (so every codec the model needs is generated), measured inside the
process (Pyodide's own start-up, ~2-8 s, is not counted: it is the host's, not ours).

    python -m bench.pyodide_cold [MODEL_KEY] [--runs N]     (default: silero-vad, 3 runs)
"""

from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import subprocess
import sys

from bench.models_people_have import ensure

ROOT = pathlib.Path(__file__).resolve().parents[1]
PYODIDE = ROOT / ".ci" / "pyodide" / "node_modules" / "pyodide"
CACHE = ROOT / "bench" / ".cache"

_TIMED = """
import sys, time
sys.dont_write_bytecode = True
started = time.perf_counter()
import wirecodec
model = wirecodec.load({path!r})
wirecodec.encode(model)
print(f"{{time.perf_counter() - started:.4f}}")
"""

_NODE = """
const {{ loadPyodide }} = await import({module!r});
const pyodide = await loadPyodide({{ indexURL: {index!r} }});
for (const [where, root] of [["/src", {src!r}], ["/model", {model_dir!r}]]) {{
  pyodide.FS.mkdirTree(where);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, {{ root }}, where);
}}
pyodide.runPython("import sys; sys.path.insert(0, '/src')");
pyodide.runPython({code!r});
"""


def native(path: pathlib.Path, cached: bool) -> float:
    """A fresh native process; ``cached``: with the codec cache under the home directory
    (warm after the first run), else as in Pyodide, with no cache (PYTHONDONTWRITEBYTECODE)."""
    code = _TIMED.format(path=str(path)).replace("sys.dont_write_bytecode = True", "")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not cached:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def pyodide(path: pathlib.Path) -> float:
    script = _NODE.format(
        module=(PYODIDE / "pyodide.mjs").as_uri(),
        index=str(PYODIDE) + "/",
        src=str(ROOT),
        model_dir=str(path.parent),
        code=_TIMED.format(path=f"/model/{path.name}"),
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True
    )
    return float(out.stdout.split()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", nargs="?", default="silero-vad")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    path = ensure(CACHE, args.model)
    size = path.stat().st_size
    native(path, cached=True)  # fills the cache
    warm = statistics.median(native(path, cached=True) for _ in range(args.runs))
    n = statistics.median(native(path, cached=False) for _ in range(args.runs))
    w = statistics.median(pyodide(path) for _ in range(args.runs))
    print(f"{args.model} ({size / 1e6:.1f} MB), median of {args.runs} fresh processes:")
    print(f"  native CPython {sys.version.split()[0]}, codec cache warm: {warm:.3f} s")
    print(f"  native, no cache (codecs generated):  {n:.3f} s")
    print(f"  Pyodide (WebAssembly, no cache):      {w:.3f} s  ({w / warm:.1f}x warm native, {w / n:.1f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
