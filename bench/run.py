"""Every benchmark, with the reference libraries measured in the same run: ``python bench/run.py``.

    python bench/run.py [--smoke] [--only NAME] [--repeat N] [--output PATH]

Runs each job once per library per repeat, each run in a fresh process (``bench/child.py``),
libraries taking turns within a repeat so that a change in the shared machine's load
falls on all of them (who goes first rotates from one repeat to the next). A job may also
run variants of wirecodec beside it (the save job:
``save(..., durable=False)``), each a row of its own against the same reference runs.
Reports medians, as wirecodec ÷ reference ratios and in absolute figures, and writes
the Markdown between the marker comments of ``docs/benchmarks.md`` (only for a full run
of every job, or for ``--only models --only edit --only start``, which writes the block
of those sections alone; other ``--smoke``, ``--only`` and ``--output`` runs print or
write elsewhere).
Inputs come from ``bench/inputs.py`` and are cached in ``bench/.cache/``.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.metadata
import json
import os
import pathlib
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

import inputs
import models_people_have

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHILD = pathlib.Path(__file__).resolve().parent / "child.py"
DOCS = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- bench/run.py writes from here: generated, edit bench/run.py instead -->"
END = "<!-- bench/run.py writes up to here -->"
# The issue-23 sections (models people have; edit, build, start) have a block of their own,
# so that `--only models --only edit --only start` can regenerate them without a full run.
BEGIN_23 = "<!-- bench/run.py writes the models, edit and start sections from here: generated -->"
END_23 = "<!-- bench/run.py writes the models, edit and start sections up to here -->"

LIBRARIES = ("wirecodec", "onnx", "protobuf-python", "onnx-ir")
REFERENCES = LIBRARIES[1:]
# wirecodec measured another way on some jobs (``Job.variants``), in the same turns as the
# others; each gets a row of its own, its step label followed by this.
VARIANT_SUFFIXES = {
    "wirecodec-not-durable": ", `durable=False`",
    "wirecodec-load": ": `from wirecodec import load`",
    "numpy-alone": ": `import numpy` alone",
}
# The jobs of the issue-23 sections (models people have; edit, build, start), each with a
# table of its own against onnx (upb) alone, and the hostile rows: not in the main tables.
TOOL_KINDS = ("tool",)
EDIT_KINDS = ("rename-all", "build", "retype")
FRESH_KINDS = ("import", "inspect")
OWN_SECTION = ("hostile", *TOOL_KINDS, *EDIT_KINDS, *FRESH_KINDS)
UPB_ONLY = ("onnx",)
LABELS = {
    "wirecodec": "wirecodec",
    "onnx": "onnx (upb)",
    "protobuf-python": "protobuf (pure Python)",
    "onnx-ir": "onnx-ir",
    **{variant: "wirecodec" + suffix for variant, suffix in VARIANT_SUFFIXES.items()},
    "numpy-alone": "numpy alone",
}
SAME_RUNS = "(as above)"  # a variant's row in the absolute table: the references ran once
# The arrays step of a model in one file, and of one with external data (inputs.GPT_INPUTS).
ARRAYS_LABELS = {
    False: "load + `to_array` of every initializer",
    True: "open + every initializer as an array",
}
STEP_LABELS = {
    ("graph", "decode+walk"): "decode + full walk",
    ("graph", "encode"): "encode the decoded model",
    ("graph", "encode-changed"): "encode after renaming one node",
    ("save", "save"): "save as one file",
    ("rename-all", "encode"): "encode after renaming every node",
    ("retype", "encode"): "encode after changing every initializer's `data_type`",
    ("build", "build"): "build from scratch with the library's `helper`",
    ("build", "encode"): "encode the model built from scratch",
    ("import", "import"): "import the library in a fresh interpreter",
    ("inspect", "inspect"): "a fresh process prints a summary (wall time)",
}


@dataclasses.dataclass(frozen=True)
class Job:
    """One benchmark: a child job on one input, run for every library."""

    name: str
    kind: str
    input: str
    max_repeat: int | None = None
    nodes: int = 0
    variants: tuple[str, ...] = ()
    library_caps: tuple[tuple[str, int], ...] = ()  # fewer runs for these libraries
    references: tuple[str, ...] = REFERENCES  # who wirecodec is measured against

    def runs_of(self, library: str, repeat: int) -> int:
        """How many runs ``library`` gets on this job."""
        runs = min(repeat, self.max_repeat or repeat)
        return min([runs, *(cap for name, cap in self.library_caps if name == library)])


def libraries_of(job: Job) -> tuple[str, ...]:
    """Who runs ``job``, in the order of their turns: wirecodec, its variants, the references."""
    return (LIBRARIES[0], *job.variants, *job.references)


def ours_of(job: Job) -> list[tuple[str, str]]:
    """wirecodec and its variants on ``job``, each with what its row adds to the step label."""
    return [(LIBRARIES[0], ""), *((variant, VARIANT_SUFFIXES[variant]) for variant in job.variants)]


def jobs_for(sizes: inputs.Sizes) -> list[Job]:
    """Every job, in the order of the table."""
    jobs = [Job("load", "arrays", "gpt"), Job("load-external", "arrays", "gpt-external", max_repeat=3)]
    # The two ends of the load series (how opening grows with the weights): ~50 MB and ~5 GB.
    jobs += [Job("load-small", "arrays", "gpt-small"), Job("load-huge", "arrays", "gpt-huge", max_repeat=3)]
    for nodes in sizes.meta_nodes:
        # From 100k nodes on, one run of the pure-Python reference takes minutes (over ten at
        # 1M, where onnx-ir's takes one or two); wirecodec and upb still get a median at 1M.
        cap = 3 if nodes >= 100_000 else None
        slow = (("protobuf-python", 1), ("onnx-ir", 1)) if nodes >= 1_000_000 else ()
        name = f"graph-{_short(nodes)}"
        jobs.append(Job(name, "graph", f"meta-{nodes}", max_repeat=cap, nodes=nodes, library_caps=slow))
    # The default save fsyncs (durable); onnx.save does not: the second row is the like-for-like one.
    jobs.append(Job("save", "save", "gpt", variants=("wirecodec-not-durable",)))
    jobs += [
        Job(f"hostile-{shape}", "hostile", f"hostile-{shape}", max_repeat=1)
        for shape in inputs.HOSTILE_SHAPES
    ]
    return jobs + issue_23_jobs(sizes)


def issue_23_jobs(sizes: inputs.Sizes) -> list[Job]:
    """Models people have, edits, building from scratch, starting: each against onnx (upb) alone."""
    shipped = models_people_have.catalogue(sizes.fetch_models)
    prefix = models_people_have.PREFIX
    jobs = [Job(f"models-{m.key}", "tool", prefix + m.key, references=UPB_ONLY) for m in shipped]
    # A real dynamo export (node metadata_props everywhere) and a graph with a value_info and
    # symbolic shapes for every intermediate, read the same way.
    jobs.append(Job("models-dynamo-export", "tool", "gpt-graph", references=UPB_ONLY))
    small = sizes.meta_nodes[0]
    jobs.append(Job(f"models-meta-{_short(small)}", "tool", f"meta-{small}", references=UPB_ONLY))
    mid = max(n for n in sizes.meta_nodes if n <= 100_000)
    return [
        *jobs,
        Job("edit-rename-all", "rename-all", f"meta-{mid}", max_repeat=3, references=UPB_ONLY),
        # Building 10k nodes with wirecodec.helper takes seconds (not timed in the encode step).
        Job("edit-build", "build", f"meta-{small}", max_repeat=3, references=UPB_ONLY),
        Job("edit-retype", "retype", "gpt", max_repeat=3, references=UPB_ONLY),
        Job("start-import", "import", "mlp", variants=("wirecodec-load", "numpy-alone"), references=UPB_ONLY),
        Job("start-inspect", "inspect", "mlp", references=UPB_ONLY),
    ]


def _short(n: int) -> str:
    for unit, size in (("M", 1_000_000), ("k", 1000)):
        if n >= size and n % size == 0:
            return f"{n // size}{unit}"
    return str(n)


def selected(jobs: list[Job], only: Sequence[str]) -> list[Job]:
    """The jobs named by ``--only`` (a job's name, or the part before one of its dashes)."""
    if not only:
        return jobs
    chosen = [job for job in jobs if any(job.name == n or job.name.startswith(n + "-") for n in only)]
    if not chosen:
        raise SystemExit(f"--only {' '.join(only)}: no such job; jobs: {', '.join(j.name for j in jobs)}")
    return chosen


# --- running children -----------------------------------------------------------------------


@dataclasses.dataclass
class Limits:
    """When to stop a child: wall-clock seconds and resident memory."""

    seconds: float
    rss_bytes: int


def child_environment(library: str) -> dict[str, str]:
    """The environment of a child: this checkout first on the path, the protobuf backend chosen."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION", None)
    if library == "protobuf-python":
        env["PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION"] = "python"
    return env


def run_child(
    job: Job, library: str, model: pathlib.Path, scratch: pathlib.Path | None, limits: Limits
) -> Any:
    """One fresh process: the figures of each step it finished, its checks, and why it failed, if it did."""
    command = [sys.executable, str(CHILD), job.kind, library, str(model)] + (
        [str(scratch)] if scratch else []
    )
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=child_environment(library), cwd=ROOT)
        stopped = _watch(process, limits)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    result: dict[str, Any] = {"steps": {}}
    for line in stdout.splitlines():
        if line.startswith("{"):
            message = json.loads(line)
            if "step" in message:
                result["steps"][message["step"]] = message["figures"]
            else:
                result.update(message)
    if stopped:
        result["error"] = stopped
    elif process.returncode != 0:
        last = (stderr.strip().splitlines() or [f"exit status {process.returncode}"])[-1]
        result["error"] = f"failed: {last[:160]}"
    return result


def _watch(process: subprocess.Popen[bytes], limits: Limits) -> str:
    """Wait for the child, stopping it past the limits; why it was stopped, or ''."""
    deadline = time.monotonic() + limits.seconds
    while process.poll() is None:
        if time.monotonic() > deadline:
            why = f"stopped after {limits.seconds:.0f} s"
        elif _rss(process.pid) > limits.rss_bytes:
            why = f"stopped at {_mb(limits.rss_bytes)} RSS"
        else:
            time.sleep(0.05)
            continue
        process.kill()
        process.wait()
        return why
    return ""


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def warm(files: list[pathlib.Path]) -> None:
    """Read the files once so every library starts from the same (warm) page cache."""
    for path in files:
        with path.open("rb") as file:
            while file.read(1 << 24):
                pass


def build_inputs(cache: pathlib.Path, smoke: bool, jobs: list[Job]) -> dict[str, float]:
    """Build every missing input in a child process; seconds spent per input built."""
    sizes = inputs.SMOKE if smoke else inputs.FULL
    spent = {}
    for name in dict.fromkeys(job.input for job in jobs):
        if inputs.path_of(cache, sizes, name).exists():
            continue
        _progress(f"building input {name} (cached in {cache})")
        started = time.monotonic()
        command = [sys.executable, str(pathlib.Path(inputs.__file__)), "--cache", str(cache), name]
        subprocess.run(command + (["--smoke"] if smoke else []), check=True, env=child_environment("onnx"))
        spent[name] = time.monotonic() - started
    return spent


def measure_all(
    jobs: list[Job], cache: pathlib.Path, sizes: inputs.Sizes, repeat: int, limits: Limits
) -> Any:
    """results[job][library] = list of child results, one per run."""
    results: dict[str, dict[str, list[Any]]] = {}
    for job in jobs:
        model = inputs.path_of(cache, sizes, job.input)
        runs = max(job.runs_of(library, repeat) for library in libraries_of(job))
        results[job.name] = {library: [] for library in libraries_of(job)}
        for run in range(runs):
            warm(inputs.files_of(model))
            # The turn order rotates: the first run after the warm-up is the slowest of a
            # repeat (measured: 0.059 s against 0.033-0.036 s for the same open), and no
            # library should always take it.
            turns = libraries_of(job)
            for library in turns[run % len(turns) :] + turns[: run % len(turns)]:
                if any("error" in r for r in results[job.name][library]):
                    continue  # it failed once: the cell says why; do not pay for it again
                if run >= job.runs_of(library, repeat):
                    continue
                scratch = (
                    pathlib.Path(tempfile.mkdtemp(dir=cache, prefix=".save-")) if job.kind == "save" else None
                )
                try:
                    result = run_child(job, library, model, scratch, limits)
                finally:
                    if scratch:
                        shutil.rmtree(scratch, ignore_errors=True)
                results[job.name][library].append(result)
                of = job.runs_of(library, repeat)
                _progress(f"{job.name} {library} run {run + 1}/{of}: {_summary(result)}")
    return results


def _summary(result: Any) -> str:
    steps = result["steps"].items()
    done = [f"{step} {m['seconds']:.3f} s {m['peak_rss'] / 1e6:.0f} MB" for step, m in steps]
    return ", ".join(done + ([str(result["error"])] if "error" in result else []))


def _progress(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- figures ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Figure:
    """The medians of one step for one library, or why there are none."""

    runs: int = 0
    seconds: float = 0.0
    low: float = 0.0
    high: float = 0.0
    peak: float = 0.0
    growth: float = 0.0
    error: str = ""


def figure(runs: list[Any], step: str) -> Figure:
    """Median time, peak RSS and RSS growth over the runs of a step."""
    errors = [r.get("error", "no figures") for r in runs if step not in r["steps"]]
    if errors or not runs:
        return Figure(error=errors[0] if errors else "not run")
    steps = [r["steps"][step] for r in runs]
    seconds = [s["seconds"] for s in steps]
    return Figure(
        runs=len(steps),
        seconds=statistics.median(seconds),
        low=min(seconds),
        high=max(seconds),
        peak=statistics.median(s["peak_rss"] for s in steps),
        growth=statistics.median(max(0, s["peak_rss"] - s["rss_before"]) for s in steps),
    )


def steps_of(job: Job) -> tuple[str, ...]:
    by_kind = {
        "arrays": ("arrays",),
        "graph": ("decode+walk", "encode", "encode-changed"),
        "save": ("save",),
        "tool": ("decode+tool-walk",),
        "rename-all": ("encode",),
        "retype": ("encode",),
        "build": ("build", "encode"),
        "import": ("import",),
        "inspect": ("inspect",),
    }
    return by_kind.get(job.kind, ("decode+read",))


def step_label(job: Job, step: str) -> str:
    if job.kind == "arrays":
        return ARRAYS_LABELS[inputs.GPT_INPUTS[job.input][1]]
    return STEP_LABELS.get((job.kind, step), step)


def _mb(n: float) -> str:
    if n < 1e6:
        return f"{n / 1e3:,.0f} kB"
    return f"{n / 1e6:,.0f} MB" if n >= 10e6 else f"{n / 1e6:,.1f} MB"


def _seconds(s: float) -> str:
    return f"{s:.3f} s" if s < 10 else f"{s:.1f} s"


def _ratio(ours: float, theirs: float) -> str:
    if theirs <= 0:
        return "n/a"
    r = ours / theirs
    return f"{r:.3f}×" if r < 0.1 else f"{r:.2f}×" if r < 10 else f"{r:.0f}×"


def _error_cell(f: Figure) -> str:
    return f"— ({f.error})"


# --- the report -------------------------------------------------------------------------------


def machine() -> list[str]:
    """Lines describing the machine and the software measured."""
    cpu = "unknown CPU"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        memory = next(
            int(line.split()[1]) * 1024
            for line in pathlib.Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal:")
        )
    except (OSError, StopIteration):
        memory = 0
    versions = []
    for package in ("numpy", "onnx", "protobuf", "onnx-ir", "torch"):
        try:
            versions.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{package} (not installed)")
    return [
        f"CPU: {cpu}, {os.cpu_count()} cores; RAM {memory / 2**30:.1f} GiB; "
        f"{platform.system()} {platform.release()}",
        f"Python {platform.python_version()}; {', '.join(versions)}; wirecodec at commit {_commit()}",
    ]


def _commit() -> str:
    try:
        head = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        )
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", "wirecodec", "schema_dsl"],
            capture_output=True,
            text=True,
        )
    except OSError:
        return "unknown"
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else "")


def describe_inputs(jobs: list[Job], results: Any, cache: pathlib.Path, sizes: inputs.Sizes) -> list[str]:
    """The inputs table: what each is, its size on disk, and what it holds."""
    lines = ["| input | made by | on disk | holds |", "|---|---|---|---|"]
    seen = set()
    for job in jobs:
        if job.input in seen:
            continue
        seen.add(job.input)
        model = inputs.path_of(cache, sizes, job.input)
        files = inputs.files_of(model)
        size = sum(p.stat().st_size for p in files)
        check = _first_check(results[job.name])
        if job.input.startswith("gpt"):
            made = (
                "`torch.onnx.export(..., dynamo=True)`"
                if sizes.use_torch
                else "`onnx.helper` stand-in (smoke)"
            )
            shape = inputs.gpt_shape(sizes, job.input)
            layout = (
                "weights in one file" if len(files) == 1 else f"weights in {len(files) - 1} external file"
            )
            holds = (
                f"GPT-like, vocab {shape.vocab}, width {shape.width}, {shape.layers} blocks; "
                f"{check.get('tensors', check.get('initializers', '?'))} initializers, {layout}"
            )
        elif job.input.startswith(models_people_have.PREFIX):
            shipped = models_people_have.BY_KEY[job.input.removeprefix(models_people_have.PREFIX)]
            made = f"`{shipped.package}`" + (" (installed)" if shipped.installed else "")
            holds = (
                f"{shipped.made_by}; producer_name `{check.get('producer') or '(empty)'}`; "
                f"{check.get('nodes', 0):,} nodes in {check.get('graphs', 0)} graphs, "
                f"{check.get('initializers', 0):,} initializers"
            )
        elif job.input == "mlp":
            made = "`wirecodec/examples/mlp.onnx`"
            holds = "the package's example: Gemm, Relu, Gemm"
        elif job.input.startswith("meta"):
            made = "`onnx.helper`"
            nodes = int(job.input.removeprefix("meta-"))
            holds = (
                f"{check.get('nodes', nodes):,} nodes, {check.get('attributes', 0):,} attributes, "
                f"{check.get('values', 0):,} typed values ({check.get('dims', 0):,} dims)"
                if "attributes" in check
                else f"{nodes:,} nodes, as in the `graph` rows"
            )
        else:
            made = "bytes (`bench/inputs.py`)"
            holds = f"GraphProto: {check.get('nodes', 0):,} nodes, {check.get('attributes', 0):,} attributes"
        lines.append(f"| `{job.input}` | {made} | {_mb(size)} | {holds} |")
    return lines


def _first_check(runs_by_library: dict[str, list[Any]]) -> dict[str, Any]:
    for runs in runs_by_library.values():
        for r in runs:
            if "check" in r:
                return dict(r["check"])
    return {}


def ratio_table(jobs: list[Job], results: Any) -> list[str]:
    """The main table: wirecodec's figures and its ratio to every reference, per step."""
    header = "| step | input | runs | wirecodec | " + " | ".join(f"÷ {LABELS[r]}" for r in REFERENCES) + " |"
    lines = [header, "|---" * (4 + len(REFERENCES)) + "|"]
    for job in jobs:
        if job.kind in OWN_SECTION:
            continue
        for step in steps_of(job):
            for library, suffix in ours_of(job):
                ours = figure(results[job.name][library], step)
                cells = [step_label(job, step) + suffix, f"`{job.input}`", str(ours.runs or "—")]
                cells.append(
                    _error_cell(ours) if ours.error else f"{_seconds(ours.seconds)} · {_mb(ours.peak)}"
                )
                for reference in REFERENCES:
                    theirs = figure(results[job.name][reference], step)
                    if theirs.error:
                        cells.append(_error_cell(theirs))
                    elif ours.error:
                        cells.append("—")
                    else:
                        ratios = f"{_ratio(ours.seconds, theirs.seconds)} · {_ratio(ours.peak, theirs.peak)}"
                        cells.append(ratios)
                lines.append("| " + " | ".join(cells) + " |")
    return lines


def absolute_table(jobs: list[Job], results: Any) -> list[str]:
    """Every library's own median seconds (range over the runs) and peak RSS."""
    lines = ["| step | input | " + " | ".join(LABELS[lib] for lib in LIBRARIES) + " |"]
    lines.append("|---" * (2 + len(LIBRARIES)) + "|")
    for job in jobs:
        if job.kind in OWN_SECTION:
            continue
        for step in steps_of(job):
            for ours, suffix in ours_of(job):
                # A variant's row: its own figures under wirecodec; the references' are the row above.
                cells = [step_label(job, step) + suffix, f"`{job.input}`"]
                for library in (ours, *REFERENCES):
                    if suffix and library != ours:
                        cells.append(SAME_RUNS)
                        continue
                    f = figure(results[job.name][library], step)
                    spread = f" ({_seconds(f.low)}–{_seconds(f.high)})" if f.runs > 1 else ""
                    own = f"{_seconds(f.seconds)}{spread} · {_mb(f.peak)}"
                    cells.append(_error_cell(f) if f.error else own)
                lines.append("| " + " | ".join(cells) + " |")
    return lines


def import_table(jobs: list[Job], results: Any) -> list[str]:
    """What a fresh process pays before the clock starts: the import, per library."""
    lines = [
        "| | " + " | ".join(LABELS[lib] for lib in LIBRARIES) + " |",
        "|---" * (1 + len(LIBRARIES)) + "|",
    ]
    cells = ["import"]
    for library in LIBRARIES:
        imports = [r["import"] for job in jobs for r in results[job.name].get(library, []) if "import" in r]
        if not imports:
            cells.append("—")
            continue
        seconds = statistics.median(i["seconds"] for i in imports)
        cells.append(f"{_seconds(seconds)} · {_mb(statistics.median(i['rss'] for i in imports))}")
    return [*lines, "| " + " | ".join(cells) + " |"]


def growth_table(jobs: list[Job], results: Any, step: str) -> list[str]:
    """Per node: µs and bytes of RSS growth, for each size of the metadata graph."""
    lines = [
        "| nodes | " + " | ".join(LABELS[lib] for lib in LIBRARIES) + " |",
        "|---" * (1 + len(LIBRARIES)) + "|",
    ]
    for job in jobs:
        if job.kind != "graph":
            continue
        cells = [f"{job.nodes:,}"]
        for library in LIBRARIES:
            f = figure(results[job.name][library], step)
            per_node = f"{f.seconds / job.nodes * 1e6:.1f} µs · {f.growth / job.nodes:,.0f} B"
            cells.append(_error_cell(f) if f.error else per_node)
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def weights_table(jobs: list[Job], results: Any, cache: pathlib.Path, sizes: inputs.Sizes) -> list[str]:
    """Opening a model and every initializer as an array, by the size of its weights: seconds · peak RSS."""
    lines = [
        "| weights | input | " + " | ".join(LABELS[lib] for lib in LIBRARIES) + " |",
        "|---" * (2 + len(LIBRARIES)) + "|",
    ]
    loads = [job for job in jobs if job.kind == "arrays"]
    on_disk = {
        job.name: sum(p.stat().st_size for p in inputs.files_of(inputs.path_of(cache, sizes, job.input)))
        for job in loads
    }
    for job in sorted(loads, key=lambda job: on_disk[job.name]):
        cells = [_mb(on_disk[job.name]), f"`{job.input}`"]
        for library in LIBRARIES:
            f = figure(results[job.name][library], "arrays")
            cells.append(_error_cell(f) if f.error else f"{_seconds(f.seconds)} · {_mb(f.peak)}")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def hostile_table(jobs: list[Job], results: Any, cache: pathlib.Path, sizes: inputs.Sizes) -> list[str]:
    """Memory amplification: peak RSS growth ÷ input size, and seconds, per library."""
    lines = [
        "| input | " + " | ".join(LABELS[lib] for lib in LIBRARIES) + " |",
        "|---" * (1 + len(LIBRARIES)) + "|",
    ]
    for job in jobs:
        if job.kind != "hostile":
            continue
        size = inputs.path_of(cache, sizes, job.input).stat().st_size
        cells = [f"`{job.input.removeprefix('hostile-')}` ({_mb(size)})"]
        for library in LIBRARIES:
            f = figure(results[job.name][library], "decode+read")
            cells.append(_error_cell(f) if f.error else f"{f.growth / size:.1f}× ({_seconds(f.seconds)})")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def models_table(jobs: list[Job], results: Any, cache: pathlib.Path, sizes: inputs.Sizes) -> list[str]:
    """Decode + graph-tool walk of each model, wirecodec against upb, and the totals."""
    step = "decode+tool-walk"
    lines = [
        "| model | producer_name | on disk | nodes | wirecodec | onnx (upb) | wirecodec ÷ upb |",
        "|---" * 7 + "|",
    ]
    totals: dict[str, list[float]] = {"shipped": [0.0, 0.0], "all": [0.0, 0.0]}
    for job in jobs:
        if job.kind not in TOOL_KINDS:
            continue
        ours, theirs = figure(results[job.name]["wirecodec"], step), figure(results[job.name]["onnx"], step)
        check = _first_check(results[job.name])
        size = inputs.path_of(cache, sizes, job.input).stat().st_size  # the file decoded, not its data
        producer = check.get("producer") or "(empty)"
        cells = [f"`{job.input}`", f"`{producer}`", _mb(size), f"{check.get('nodes', 0):,}"]
        cells += [
            _error_cell(f) if f.error else f"{_seconds(f.seconds)} · {_mb(f.peak)}" for f in (ours, theirs)
        ]
        fine = not (ours.error or theirs.error)
        cells.append(_ratio(ours.seconds, theirs.seconds) if fine else "—")
        lines.append("| " + " | ".join(cells) + " |")
        if fine:
            for key in ("all", "shipped") if job.input.startswith(models_people_have.PREFIX) else ("all",):
                totals[key][0] += ours.seconds
                totals[key][1] += theirs.seconds
    labels = {"shipped": "**total, the models from PyPI**", "all": "**total, every row**"}
    for key, (ours_total, theirs_total) in totals.items():
        cells = [labels[key], "", "", "", _seconds(ours_total), _seconds(theirs_total)]
        lines.append("| " + " | ".join([*cells, _ratio(ours_total, theirs_total)]) + " |")
    return lines


def edits_table(jobs: list[Job], results: Any) -> list[str]:
    """Edits, building from scratch, import and inspect: wirecodec (and its variants) against upb."""
    lines = ["| step | input | runs | wirecodec | onnx (upb) | wirecodec ÷ upb |", "|---" * 6 + "|"]
    for job in jobs:
        if job.kind not in (*EDIT_KINDS, *FRESH_KINDS):
            continue
        for step in steps_of(job):
            theirs = figure(results[job.name]["onnx"], step)
            for library, suffix in ours_of(job):
                ours = figure(results[job.name][library], step)
                cells = [step_label(job, step) + suffix, f"`{job.input}`", str(ours.runs or "—")]
                for f in (ours, theirs):
                    spread = f" ({_seconds(f.low)}–{_seconds(f.high)})" if f.runs > 1 else ""
                    own = f"{_seconds(f.seconds)}{spread} · {_mb(f.peak)}"
                    cells.append(_error_cell(f) if f.error else own)
                fine = not (ours.error or theirs.error)
                cells.append(_ratio(ours.seconds, theirs.seconds) if fine else "—")
                lines.append("| " + " | ".join(cells) + " |")
    return lines


def checks(jobs: list[Job], results: Any) -> list[str]:
    """Did every library read the same data? Notes for the report, one per disagreement or fact."""
    notes = []
    for job in jobs:
        by_library = {
            lib: r["check"] for lib, runs in results[job.name].items() for r in runs[:1] if "check" in r
        }
        if job.kind in FRESH_KINDS:
            continue
        if job.kind in EDIT_KINDS:
            digests = {lib: c["encoded_sha256"] for lib, c in by_library.items()}
            same = [LABELS[lib] for lib, d in digests.items() if d == digests.get("onnx")]
            other = [LABELS[lib] for lib, d in digests.items() if d != digests.get("onnx")]
            notes.append(
                f"`{job.name}`: byte-identical output from {', '.join(same)}"
                + (f"; different bytes from {', '.join(other)}" if other else "")
            )
            continue
        if job.kind == "graph":
            for c in by_library.values():
                c.pop("encoded_bytes")
            for key, step in (("encoded_sha256", "encode"), ("changed_sha256", "encode after the rename")):
                digests = {lib: c.pop(key) for lib, c in by_library.items() if key in c}
                same = [LABELS[lib] for lib, d in digests.items() if d == digests.get("onnx")]
                other = [LABELS[lib] for lib, d in digests.items() if d != digests.get("onnx")]
                notes.append(
                    f"`{job.name}` {step}: byte-identical output from {', '.join(same)}"
                    + (f"; different bytes from {', '.join(other)}" if other else "")
                )
        if job.kind == "save":
            sizes = {LABELS[lib]: c["written_bytes"] for lib, c in by_library.items()}
            notes.append(f"`{job.name}` bytes written: " + ", ".join(f"{k} {v:,}" for k, v in sizes.items()))
            continue
        if job.kind == "hostile":
            counted = {LABELS[lib]: c.pop("attributes") for lib, c in by_library.items()}
            if len(set(counted.values())) > 1:
                # onnx-ir keeps a node's attributes in a dict by name: same-named ones count once.
                notes.append(
                    f"`{job.name}` attributes seen: " + ", ".join(f"{k} {v:,}" for k, v in counted.items())
                )
        distinct = {json.dumps(c, sort_keys=True) for c in by_library.values()}
        if len(distinct) > 1:
            notes.append(f"**`{job.name}`: the libraries disagree on what they read**: {by_library}")
    return notes


def _library_caps(job: Job) -> str:
    """`` (1 for A and B)``: the libraries given fewer runs than the job's others."""
    by_cap: dict[int, list[str]] = {}
    for library, cap in job.library_caps:
        by_cap.setdefault(cap, []).append(LABELS[library])
    return "".join(f" ({cap} for {' and '.join(names)})" for cap, names in sorted(by_cap.items()))


def main_tables(jobs: list[Job], results: Any, repeat: int, capped: list[str]) -> list[str]:
    """The ratio table, every library's own figures and the import table."""
    return [
        "",
        "### wirecodec ÷ each reference",
        "",
        "Each ratio cell is *time · peak RSS*, wirecodec's median over the reference's median: below 1 "
        "wirecodec is faster or smaller. wirecodec's own cell is its median time · peak RSS. "
        f"Runs per library are in `runs`: {repeat} (`--repeat`)"
        + (
            f", fewer where the job caps them to keep a full run near half an hour: {', '.join(capped)} "
            "(one run of the pure-Python reference takes minutes from 100k nodes on; the hostile rows "
            "measure memory, which varies little between runs)."
            if capped
            else "."
        ),
        "",
        *ratio_table(jobs, results),
        "",
        "### Every library's own figures",
        "",
        "Median seconds (fastest–slowest run) · median peak RSS of the process during the step.",
        "",
        *absolute_table(jobs, results),
        "",
        "Not in the timings above: importing the library, median seconds · RSS after the import.",
        "",
        *import_table(jobs, results),
    ]


def report(
    jobs: list[Job],
    results: Any,
    cache: pathlib.Path,
    sizes: inputs.Sizes,
    repeat: int,
    command: str,
    minutes: float,
    load: tuple[float, float],
    markers: tuple[str, str] = (BEGIN, END),
) -> str:
    """The block the run writes for ``jobs`` between ``markers``: machine, inputs, tables, checks."""
    capped = [
        f"`{job.name}` {job.max_repeat}" + _library_caps(job)
        for job in jobs
        if job.max_repeat and job.max_repeat < repeat
    ]
    lines = [
        markers[0],
        "",
        f"Generated by `{command}` on {datetime.date.today().isoformat()} in {minutes:.0f} minutes "
        f"(load average {load[0]:.1f} at the start, {load[1]:.1f} at the end).",
        "",
        *[f"- {line}" for line in machine()],
        "",
        "### Inputs",
        "",
        *describe_inputs(jobs, results, cache, sizes),
    ]
    if any(job.kind not in OWN_SECTION for job in jobs):
        lines += main_tables(jobs, results, repeat, capped)
    if sum(job.kind == "arrays" for job in jobs) > 1:
        lines += _section(
            "How opening grows with the weights: every initializer as an array",
            "Median seconds · median peak RSS, by the size of the model's files (the rows of the "
            "`load` jobs above, smallest first).",
            weights_table(jobs, results, cache, sizes),
        )
    if any(job.kind == "graph" for job in jobs):
        lines += _section(
            "How the cost grows with the graph: decode + full walk, per node",
            "µs per node · bytes of RSS growth per node (peak during the step minus RSS before it).",
            growth_table(jobs, results, "decode+walk"),
        )
        lines += ["", "### Encode, per node", "", *growth_table(jobs, results, "encode")]
    if any(job.kind in TOOL_KINDS for job in jobs):
        lines += _section(
            "Models people have: decode + graph-tool walk",
            "ONNX files shipped inside packages on PyPI (`bench/models_people_have.py`), a dynamo "
            "export and a graph with a `value_info` for every intermediate, each decoded from bytes and "
            "read as a graph tool reads it (`walk_tool` in `bench/child.py`: every node's op_type, name, "
            "inputs, outputs and non-tensor attribute values, subgraphs and functions included; every "
            "value's shape; every initializer's name, type and dims; no metadata, no tensor contents). "
            "`on disk`: the model file decoded (external data not counted). Median seconds · peak RSS; "
            "the totals add the medians.",
            models_table(jobs, results, cache, sizes),
        )
    if any(job.kind in (*EDIT_KINDS, *FRESH_KINDS) for job in jobs):
        lines += _section(
            "Editing, building, starting",
            "Median seconds (fastest–slowest run) · peak RSS. The edit (renaming every node, changing "
            "every initializer's `data_type` to another of the same width) and the build are not timed; "
            "the import and inspect rows each run a fresh interpreter (import: timed inside it, from "
            "before the `import` statement; inspect: the whole process's wall time).",
            edits_table(jobs, results),
        )
    if any(job.kind == "hostile" for job in jobs):
        lines += _section(
            "Memory amplification on hostile input",
            "Peak RSS growth ÷ input size (median seconds); decode a GraphProto, read every node's "
            "attribute list.",
            hostile_table(jobs, results, cache, sizes),
        )
    notes = checks(jobs, results)
    if notes:
        lines += ["", "### Checks", "", *[f"- {note}" for note in notes]]
    return "\n".join([*lines, "", markers[1]]) + "\n"


def _section(title: str, caption: str, table: list[str]) -> list[str]:
    """A ``###`` heading, the sentence that says how to read its table, and the table."""
    return ["", f"### {title}", "", caption, "", *table]


def write(blocks: list[tuple[tuple[str, str], str]], target: pathlib.Path) -> None:
    """Put each generated block between its markers in ``target``.

    A block whose markers ``target`` lacks goes right after the last block written (or,
    when ``target`` has none of them, the blocks make the whole file).
    """
    text = target.read_text() if target.exists() else ""
    placed_end = -1
    leftover = []
    for (begin, end), markdown in blocks:
        if begin in text and end in text:
            before, rest = text.split(begin, 1)
            after = rest.split(end, 1)[1]
            text = before + markdown.rstrip("\n") + after
            placed_end = len(before) + len(markdown.rstrip("\n"))
        else:
            leftover.append(markdown.rstrip("\n"))
    if leftover and placed_end < 0:
        text = "\n\n".join(leftover) + "\n"
    elif leftover:
        text = text[:placed_end] + "".join("\n\n" + block for block in leftover) + text[placed_end:]
    partial = target.with_name(f".{target.name}.tmp")
    partial.write_text(text)
    os.replace(partial, target)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny inputs, no PyTorch, one run each: seconds")
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this job (or family: load, graph, save, hostile, models, edit, start); repeatable",
    )
    parser.add_argument("--repeat", type=int, help="runs per library per job (default 5; 1 with --smoke)")
    parser.add_argument(
        "--output",
        type=pathlib.Path,
        help="write the Markdown here (default: docs/benchmarks.md for a full run, else stdout)",
    )
    parser.add_argument(
        "--cache", type=pathlib.Path, default=inputs.DEFAULT_CACHE, help="where inputs are kept"
    )
    parser.add_argument("--timeout", type=float, default=600, help="seconds before a run is stopped")
    parser.add_argument("--max-rss-gib", type=float, default=12, help="RSS at which a run is stopped")
    args = parser.parse_args(argv)
    repeat = args.repeat or (1 if args.smoke else 5)
    if repeat < 1:
        parser.error("--repeat must be at least 1")
    sizes = inputs.SMOKE if args.smoke else inputs.FULL
    jobs = selected(jobs_for(sizes), args.only)
    started, load_before = time.monotonic(), os.getloadavg()[0]
    build_inputs(args.cache, args.smoke, jobs)
    limits = Limits(seconds=args.timeout, rss_bytes=int(args.max_rss_gib * 2**30))
    results = measure_all(jobs, args.cache, sizes, repeat, limits)
    (args.cache / "results-latest.json").write_text(json.dumps(results, indent=1))
    command = "python bench/run.py" + " ".join(["", *(argv if argv is not None else sys.argv[1:])]).rstrip()
    minutes = (time.monotonic() - started) / 60
    load = (load_before, os.getloadavg()[0])
    issue_23 = {job.name for job in issue_23_jobs(sizes)}
    blocks = [
        (markers, report(chosen, results, args.cache, sizes, repeat, command, minutes, load, markers))
        for markers, chosen in (
            ((BEGIN, END), [job for job in jobs if job.name not in issue_23]),
            ((BEGIN_23, END_23), [job for job in jobs if job.name in issue_23]),
        )
        if chosen
    ]
    # docs/benchmarks.md: a full run writes both blocks, a run of exactly the issue-23 jobs its own.
    whole = not args.smoke and (not args.only or {job.name for job in jobs} == issue_23)
    target = args.output or (DOCS if whole else None)
    if target is None:
        sys.stdout.write("\n".join(markdown for _, markdown in blocks))
    else:
        write(blocks, target)
        _progress(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
