"""Peak memory and time of reading a model from a file, a pipe and a URL: wirecodec beside onnx.

For each MODEL and each path, in fresh processes, best and worst of ``--repeat``:
- wirecodec: ``wirecodec inspect SRC`` (the structure, counts, the largest tensors), or
  with ``--convert`` ``wirecodec convert SRC OUT --to external``;
- onnx: ``onnx.load`` from the file, from ``sys.stdin.buffer``, or of the bytes
  downloaded with urllib (onnx has no range reads); with ``--convert`` then
  ``onnx.save_model(..., save_as_external_data=True)``;
each child reporting its own peak resident size (``VmHWM``: ``ru_maxrss`` after fork +
exec can report the parent's). URLs are served by Debian's nginx on the loopback
(tests/support/http_server.py), pipes are ``cat FILE |``.

    python bench/memory_paths.py bench/.cache/*/model.onnx --repeat 3

With ``--verbs`` each verb that takes ``-`` is run on the model from a pipe and from the
file (a model past 32 MiB shows the spooled pipe), beside onnx where onnx does the same
(``onnx.load`` from stdin, then shape inference, a save, or the checker):

    python bench/memory_paths.py MODEL --verbs --repeat 1

With ``--zip`` each model is first converted to an ``.onnxz`` container (``wirecodec
convert --to zip``), then opened with ``wirecodec.load_zip`` from the file, a pipe and a
URL (a pipe or a URL is copied to a temporary file piece by piece, then mapped: its size
must not show in the peak); the child counts the initializers and the bytes their
``raw_data`` says it holds, without reading them. onnx has no reader of the container.

    python bench/memory_paths.py MODEL --zip --repeat 3
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.http_server import Nginx  # noqa: E402

_PEAK = (
    "import os\n"
    "def _peak():\n"
    "    s = open('/proc/self/status').read()\n"
    "    os.write(2, ('\\nPEAK_KB ' + s.split('VmHWM:')[1].split()[0] + '\\n').encode())\n"
)
_WIRECODEC = _PEAK + (
    "import sys\nfrom wirecodec.cli import main\n"
    "argv = ['inspect', sys.argv[1]]\n"
    "if len(sys.argv) > 2:\n    argv = ['convert', sys.argv[1], sys.argv[2], '--to', 'external']\n"
    "try:\n    code = main(argv)\nfinally:\n    _peak()\nsys.exit(code)\n"
)
_ONNX = _PEAK + (
    "import sys, onnx, urllib.request\n"
    "src = sys.argv[1]\n"
    "if src == '-':\n    m = onnx.load(sys.stdin.buffer)\n"
    "elif '://' in src:\n    m = onnx.load_from_string(urllib.request.urlopen(src).read())\n"
    "else:\n    m = onnx.load(src)\n"
    "if len(sys.argv) > 2:\n"
    "    onnx.save_model(m, sys.argv[2], save_as_external_data=True, location='out.data')\n"
    "print(len(m.graph.node))\n_peak()\n"
)

_ZIP = _PEAK + (
    "import sys, wirecodec\n"
    "m = wirecodec.load_zip(sys.argv[1])\n"
    "print(len(m.graph.initializer), sum(len(t.raw_data) for t in m.graph.initializer))\n"
    "status = open('/proc/self/status').read()\n"
    "os.write(2, ('\\nANON_KB ' + status.split('RssAnon:')[1].split()[0] + '\\n').encode())\n"
    "_peak()\n"
)

_VERB = _PEAK + (
    "import sys\nfrom wirecodec.cli import main\n"
    "try:\n    code = main(sys.argv[2:])\nfinally:\n    _peak()\nsys.exit(code)\n"
)
_ONNX_VERB = _PEAK + (
    "import sys, onnx\n"
    "m = onnx.load(sys.stdin.buffer) if sys.argv[1] == '-' else onnx.load(sys.argv[1])\n"
    "verb = sys.argv[2]\n"
    "if verb == 'infer-shapes':\n    onnx.save(onnx.shape_inference.infer_shapes(m), 'out.onnx')\n"
    "elif verb in ('edit', 'convert-opset'):\n    onnx.save(m, 'out.onnx')\n"
    "elif verb == 'check':\n    onnx.checker.check_model(m)\n"
    "_peak()\n"
)
# (wirecodec arguments, SOURCE standing for the model; whether onnx has a like step)
_VERBS = [
    (["inspect", "SOURCE"], True),
    (["check", "SOURCE"], True),
    (["infer-shapes", "SOURCE", "out.onnx"], True),
    (["edit", "SOURCE", "-o", "out.onnx", "--set-producer", "piped:1"], True),
    (["tensors", "SOURCE", "--list"], False),
    (["diff", "SOURCE", "MODEL"], False),
    (["convert", "SOURCE", "out.onnx", "--to", "external"], False),
    # More verbs that take - (as tests/unit/files/test_long_pipes_x_every_stdin_verb.py runs them).
    (["dump", "SOURCE", "graph.node[0]"], False),
    (["draw", "SOURCE", "-o", "out.dot"], False),
    (["convert", "SOURCE", "out.onnx", "--to", "single"], False),
    (["convert", "SOURCE", "out.onnx", "--to", "safetensors"], False),
    (["convert", "SOURCE", "out.onnxz", "--to", "zip"], False),
    (["run", "SOURCE", "--seed", "1"], False),
]


def _verb(code: str, argv: list[str], source: str, model: pathlib.Path, work: pathlib.Path) -> int:
    """Peak kB of one child running ``argv`` in a fresh folder ``work`` (``-``: ``model``
    through a pipe, from a file: no ``cat`` process in between to buffer it)."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = [source if a == "SOURCE" else str(model) if a == "MODEL" else a for a in argv]
    with open(model if source == "-" else os.devnull, "rb") as given:
        done = subprocess.run(
            [sys.executable, "-c", code, source, *args],
            stdin=given,
            cwd=work,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
    if "PEAK_KB " not in done.stderr or done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(args)}: {done.stderr[-2000:]}")
    return int(done.stderr.rsplit("PEAK_KB ", 1)[1].split()[0])


def _verbs(models: list[pathlib.Path], repeat: int, work: pathlib.Path) -> None:
    print("| model | size | verb | from | wirecodec peak | onnx peak |")
    print("|---|---|---|---|---|---|")
    for model in models:
        size = model.stat().st_size
        for argv, like in _VERBS:
            verb = " ".join(argv[:1] + (argv[argv.index("--to") :][:2] if "--to" in argv else []))
            for how, source in (("file", str(model.resolve())), ("pipe", "-")):
                ours = [_verb(_VERB, argv, source, model, work) for _ in range(repeat)]
                runs = repeat if like else 0
                theirs = [_verb(_ONNX_VERB, [argv[0]], source, model, work) for _ in range(runs)]
                onnx_peak = _spread([float(p) for p in theirs], " MB", 1024) if theirs else "-"
                print(
                    f"| {model.parent.name}/{model.name} | {size / 2**20:,.1f} MB | {verb} | {how} "
                    f"| {_spread([float(p) for p in ours], ' MB', 1024)} | {onnx_peak} |",
                    flush=True,
                )


_last_stderr: list[str] = [""]  # what the last child of _zip wrote on stderr


def _run(
    code: str, source: str, file: pathlib.Path, out: pathlib.Path | None, stderr: list[str] | None = None
) -> tuple[float, int]:
    """Seconds and peak kB of one child reading ``source`` (``-``: ``file`` through a pipe),
    writing ``out`` when given (then removed, with its data)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-c", code, source, *([str(out)] if out is not None else [])]
    started = time.perf_counter()
    if source == "-":
        with subprocess.Popen(["cat", str(file)], stdout=subprocess.PIPE) as cat:
            done = subprocess.run(command, stdin=cat.stdout, capture_output=True, text=True, env=env)
            assert cat.stdout is not None
            cat.stdout.close()
    else:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{source}: {done.stderr[-2000:]}")
    peak = int(done.stderr.rsplit("PEAK_KB ", 1)[1].split()[0])
    if stderr is not None:
        stderr[0] = done.stderr
    if out is not None:
        for written in out.parent.iterdir():
            written.unlink()
    return seconds, peak


def _zip(models: list[pathlib.Path], repeat: int, work: pathlib.Path) -> None:
    """Peak and time of ``load_zip`` of each model's container from a file, a pipe and a URL."""
    server = Nginx(work)
    try:
        # The peak counts the archive's file pages mapped around each entry's header; the
        # anonymous memory (RssAnon, at the end) is what the process itself holds.
        print("| model | container size | from | wirecodec peak | of it anonymous | wirecodec time |")
        print("|---|---|---|---|---|---|")
        for index, model in enumerate(models):
            container = server.root / f"{index}.onnxz"
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            made = subprocess.run(
                [sys.executable, "-m", "wirecodec", "convert", str(model), str(container), "--to", "zip"],
                capture_output=True,
                text=True,
                env=env,
                check=False,
            )
            if made.returncode != 0:
                raise RuntimeError(f"{model}: {made.stderr[-2000:]}")
            size = container.stat().st_size
            url = server.url(container.name)
            for path, source in (("file", str(container)), ("pipe", "-"), ("URL", url)):
                runs, anon = [], []
                for _ in range(repeat):
                    runs.append(_run(_ZIP, source, container, None, _last_stderr))
                    anon.append(float(_last_stderr[0].rsplit("ANON_KB ", 1)[1].split()[0]))
                print(
                    f"| {model.parent.name}/{model.name} | {size / 2**20:,.1f} MB | {path} "
                    f"| {_spread([p for _, p in runs], ' MB', 1024)} | {_spread(anon, ' MB', 1024)} "
                    f"| {_spread([t for t, _ in runs], ' ms', 1e-3)} |",
                    flush=True,
                )
            container.unlink()
    finally:
        server.stop()


def _runs(
    code: str, source: str, file: pathlib.Path, out: pathlib.Path | None, repeat: int
) -> list[tuple[float, int]] | str:
    """``repeat`` runs of :func:`_run`, or the first words of the error of a library that
    cannot take the model that way (onnx has no reader of external data by pipe or URL)."""
    try:
        return [_run(code, source, file, out) for _ in range(repeat)]
    except RuntimeError as exc:
        lines = [line for line in str(exc).splitlines() if line.strip()]
        return "fails: " + (lines[-1][:80] if lines else "?")


def _column(runs: list[tuple[float, int]] | str, at: int, unit: str, scale: float) -> str:
    return runs if isinstance(runs, str) else _spread([float(r[at]) for r in runs], unit, scale)


def _spread(values: list[float], unit: str, scale: float) -> str:
    low, high = min(values) / scale, max(values) / scale
    return f"{low:,.0f}{unit}" if round(low) == round(high) else f"{low:,.0f}-{high:,.0f}{unit}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=pathlib.Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--convert", action="store_true", help="convert to external data instead of reading")
    parser.add_argument("--verbs", action="store_true", help="each verb from a pipe and a file")
    parser.add_argument("--zip", action="store_true", help="load_zip of each model's .onnxz, three ways")
    args = parser.parse_args()
    if args.zip:
        with tempfile.TemporaryDirectory(prefix="memory-zip-") as work_name:
            _zip([m.resolve() for m in args.models], args.repeat, pathlib.Path(work_name))
        return
    if args.verbs:
        with tempfile.TemporaryDirectory(prefix="memory-verbs-") as work_name:
            _verbs([m.resolve() for m in args.models], args.repeat, pathlib.Path(work_name) / "w")
        return
    with tempfile.TemporaryDirectory(prefix="memory-paths-") as work_name:
        server = Nginx(pathlib.Path(work_name))
        try:
            print("| model | size | path | wirecodec peak | onnx peak | wirecodec time | onnx time |")
            print("|---|---|---|---|---|---|---|")
            for index, model in enumerate(args.models):
                folder = server.root / str(index)
                shutil.copytree(model.resolve().parent, folder)
                url = server.url(f"{index}/{model.name}")
                size = model.stat().st_size
                for path, source in (("file", str(model)), ("pipe", "-"), ("URL", url)):
                    out = pathlib.Path(work_name) / "out" / "out.onnx" if args.convert else None
                    if out is not None:
                        out.parent.mkdir(exist_ok=True)
                    ours = _runs(_WIRECODEC, source, model, out, args.repeat)
                    theirs = _runs(_ONNX, source, model, out, args.repeat)
                    print(
                        f"| {model.parent.name} | {size / 2**20:,.1f} MB | {path} "
                        f"| {_column(ours, 1, ' MB', 1024)} | {_column(theirs, 1, ' MB', 1024)} "
                        f"| {_column(ours, 0, ' ms', 1e-3)} | {_column(theirs, 0, ' ms', 1e-3)} |",
                        flush=True,
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
