"""The differential runner: every file through every parser, each in its own process.

A parser is a built-in name (``onnx``, ``onnxruntime``, ``wirecodec``: run by
:mod:`wirecodec.fuzz.parse_one`) or a command with ``{}`` where the file goes (exit 0
accepts, another exit code rejects). Each run is classified ``accept``, ``reject``,
``crash`` (killed by a signal, or the harness failed) or ``timeout``.

Findings, any of which makes the run fail:

- a crash or a timeout;
- parsers disagreeing on whether a file is well-formed protobuf (``parsed``), or on the
  model they read (the digest of their canonical re-serializations);
- with a manifest (written by ``wirecodec fuzz rewrite``), a rewrite whose result under
  some parser differs from that parser's result on the model it was rewritten from:
  acceptance, digest, and what each stage (checker, shape inference, session) said,
  up to the error message. That is the metamorphic oracle: a rewrite must not change
  anything a correct parser does.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from wirecodec.fuzz.parse_one import BUILTIN

__all__ = ["MANIFEST", "Finding", "Outcome", "compare", "run_parser"]

MANIFEST: Final = "fuzz-manifest.json"
"""The file beside a corpus saying which model each rewrite came from."""


@dataclasses.dataclass(frozen=True)
class Outcome:
    """What one parser did with one file."""

    file: str
    parser: str
    status: str  # accept | reject | crash | timeout
    parsed: bool | None = None
    digest: str | None = None
    known_digest: str | None = None  # the digest without unknown fields (what a rewrite keeps)
    stages: dict[str, str] = dataclasses.field(default_factory=dict)
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready values."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Finding:
    """A crash, a timeout or a disagreement, naming the file."""

    file: str
    kind: str  # crash | timeout | parse_disagreement | digest_disagreement | rewrite_changed_result
    detail: str

    def __str__(self) -> str:
        return f"{self.file}: {self.kind}: {self.detail}"

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON-ready values."""
        return dataclasses.asdict(self)


def _command(parser: str, path: pathlib.Path) -> list[str]:
    if parser in BUILTIN:
        return [sys.executable, "-m", "wirecodec.fuzz.parse_one", parser, str(path)]
    return [part.replace("{}", str(path)) for part in shlex.split(parser)]


def run_parser(parser: str, path: pathlib.Path, timeout: float) -> Outcome:
    """Run ``parser`` on ``path`` in a new process and classify what happened."""
    name = str(path)
    try:
        done = subprocess.run(_command(parser, path), capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Outcome(name, parser, "timeout", detail=f"no answer in {timeout:g} s")
    if done.returncode < 0:
        return Outcome(
            name, parser, "crash", detail=f"killed by signal {-done.returncode}: {_tail(done.stderr)}"
        )
    if parser not in BUILTIN:
        # A command says only yes or no: that is its answer to "is this a model?".
        status = "accept" if done.returncode == 0 else "reject"
        detail = _tail(done.stderr) if status == "reject" else ""
        return Outcome(name, parser, status, parsed=status == "accept", detail=detail)
    try:
        result = json.loads(done.stdout.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Outcome(name, parser, "crash", detail=f"exit {done.returncode}: {_tail(done.stderr)}")
    accepted = result["parsed"] and all(v == "ok" for v in result["stages"].values())
    return Outcome(
        name,
        parser,
        "accept" if accepted else "reject",
        parsed=result["parsed"],
        digest=result["digest"],
        known_digest=result.get("known_digest"),
        stages=result["stages"],
        detail=result["error"] or "",
    )


def _tail(stderr: bytes) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[-1][:300] if lines else ""


def _disagreements(file: str, outcomes: Sequence[Outcome]) -> list[Finding]:
    findings = [
        Finding(file, o.status, f"{o.parser}: {o.detail}")
        for o in outcomes
        if o.status in ("crash", "timeout")
    ]
    parsed = {o.parser: o.parsed for o in outcomes if o.parsed is not None}
    if len(set(parsed.values())) > 1:
        findings.append(
            Finding(file, "parse_disagreement", ", ".join(f"{p} parsed={v}" for p, v in parsed.items()))
        )
    digests = {o.parser: o.digest for o in outcomes if o.digest is not None}
    if len(set(digests.values())) > 1:
        findings.append(
            Finding(file, "digest_disagreement", ", ".join(f"{p}={d[:12]}" for p, d in digests.items()))
        )
    return findings


def _metamorphic(file: str, origin: str, mine: Sequence[Outcome], theirs: Sequence[Outcome]) -> list[Finding]:
    """A rewrite must give, under each parser, what its origin gave."""
    by_parser = {o.parser: o for o in theirs}
    findings = []
    for outcome in mine:
        before = by_parser.get(outcome.parser)
        if (
            before is None
            or "crash" in (outcome.status, before.status)
            or "timeout" in (outcome.status, before.status)
        ):
            continue
        seen = (outcome.status, outcome.parsed, outcome.known_digest, outcome.stages)
        expected = (before.status, before.parsed, before.known_digest, before.stages)
        if seen != expected:
            findings.append(
                Finding(
                    file,
                    "rewrite_changed_result",
                    f"{outcome.parser}: {origin} gave {before.status} {before.stages or before.detail}, "
                    f"the rewrite {outcome.status} {outcome.stages or outcome.detail}",
                )
            )
    return findings


def _files(directory: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.name != MANIFEST)


def compare(
    directory: pathlib.Path,
    parsers: Sequence[str],
    *,
    timeout: float = 30.0,
    jobs: int = 1,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[Outcome], list[Finding]]:
    """Run every file of ``directory`` through every parser; return the outcomes and findings.

    A ``fuzz-manifest.json`` in the directory (``{"file": {"from": "origin file", ...}}``)
    adds the metamorphic check of each rewrite against its origin. ``progress`` is told
    ``[done/total] file (parser)`` after each run.
    """
    files = _files(directory)
    manifest_path = directory / MANIFEST
    manifest: dict[str, dict[str, Any]] = (
        json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    )
    tasks = [(path, parser) for path in files for parser in parsers]
    results: list[Outcome] = []
    if jobs <= 1:  # no thread unless the caller asks for parallel runs
        runs: Iterable[Outcome] = (run_parser(parser, path, timeout) for path, parser in tasks)
        results = _counted(runs, tasks, progress)
    else:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            runs = pool.map(lambda task: run_parser(task[1], task[0], timeout), tasks)
            results = _counted(runs, tasks, progress)
    by_file: dict[str, list[Outcome]] = {}
    for outcome in results:
        by_file.setdefault(pathlib.Path(outcome.file).name, []).append(outcome)
    findings: list[Finding] = []
    for name, outcomes in by_file.items():
        findings.extend(_disagreements(name, outcomes))
        origin = manifest.get(name, {}).get("from")
        if origin is not None and origin in by_file and origin != name:
            findings.extend(_metamorphic(name, origin, outcomes, by_file[origin]))
    return results, findings


def _counted(
    runs: Iterable[Outcome], tasks: list[tuple[pathlib.Path, str]], progress: Callable[[str], None] | None
) -> list[Outcome]:
    """The outcomes of ``runs``, saying ``[done/total] file (parser)`` to ``progress`` after each."""
    results = []
    for done, outcome in enumerate(runs, 1):
        results.append(outcome)
        if progress is not None:
            path, parser = tasks[done - 1]
            progress(f"[{done}/{len(tasks)}] {path.name} ({parser})")
    return results


def counts(outcomes: Iterable[Outcome]) -> dict[str, dict[str, int]]:
    """Per parser, how many files ended in each status."""
    table: dict[str, dict[str, int]] = {}
    for outcome in outcomes:
        row = table.setdefault(outcome.parser, {"accept": 0, "reject": 0, "crash": 0, "timeout": 0})
        row[outcome.status] += 1
    return table
