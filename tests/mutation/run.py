"""Mutation harness: does the suite notice each named bug? (mutants in tests/mutation/mutants.py)

    python -m tests.mutation                      # every mutant, each with its own tests
    python -m tests.mutation --only validator-short-by-one --tests tests/unit/protobuf/test_lazy.py
    python -m tests.mutation --list
    python -m tests.mutation --jobs 1             # one pytest run at a time (default: 2)

Each worker (``--jobs``, default 2) copies the tree once to its own temporary directory
(sources only: no .git, caches, virtualenvs or fuzz output); for each mutant it replaces
the exact old text with the new text in its copy, runs the mutant's pytest selection
there with ``PYTHONPATH`` at the copy (``-x``: the first failure is enough), and puts
the file back (a mutant of a code generator or of schema_dsl runs its tests with the
codecs generated, not the shipped ones, which it would not change: see _GENERATING).
Failing tests mean *killed*; passing tests mean *survived*. Before any mutant runs,
every old text must occur exactly once in its file and in no other file of the package
(wirecodec/ and schema_dsl/: a guard written twice is a harness error, see
check_applies), or the harness stops with exit status 2. After the mutants, the tests
that killed them run on a fresh unmutated copy (the baseline): each must pass there, or
its kill meant nothing (exit status 2); a killer that is *skipped* there did not run at
all, so the mutant it killed is reported as not killed (``survived (killer skipped)``).
onnx's own tests (``tests/onnx_suite/test_onnx_suite.py``, ~10 minutes) run last in every
mutant's selection where onnx's sdist is cached (``.onnx_suite_cache/``, fetched by a run
of the suite; ``--onnx-suite off`` leaves them out): with ``-x`` they run only for a
mutant the named tests let survive. Without the cache the harness never fetches it.
Exit status: 0 when every mutant was killed, 1 when one survived, 2 for a harness error.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import dataclasses
import importlib.metadata
import os
import pathlib
import queue
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Final

ROOT = pathlib.Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.mutation.mutants import MUTANTS, Mutant  # noqa: E402

_IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    "*.egg-info",
    "findings",
    "seeds",
    "build",
    "dist",
    ".onnx_suite_cache",  # read where it is (ONNX_SUITE_CACHE), not copied per worker
)

ONNX_SUITE = "tests/onnx_suite/test_onnx_suite.py"
"""onnx's own tests run on the onnx-shaped namespace: slow, and skipped without onnx's sdist."""
_SUITE_CACHE_VARIABLE = "WIRECODEC_ONNX_SUITE_CACHE"  # read by tests/onnx_suite/sdist.py


class HarnessError(Exception):
    """The harness cannot give a meaningful answer (a mutant no longer matches, a broken baseline)."""


@dataclass(frozen=True)
class Result:
    mutant: Mutant
    # "killed", "killed (collection)" when the mutant broke an import, "killed (timed out)"
    # when its tests hung past the timeout, "survived", or
    # "survived (...)": every test skipped, or (after the baseline) its killer skipped unmutated
    verdict: str
    seconds: float
    tests: tuple[str, ...]
    summary: str  # pytest's last line
    killers: tuple[str, ...] = ()  # the node ids that failed (with -x: the first one)


def onnx_suite_cache(root: pathlib.Path = ROOT) -> pathlib.Path | None:
    """The folder of onnx's tests for the installed onnx, if its sdist is cached under ``root``."""
    try:
        from tests.onnx_suite import sdist

        version = sdist.installed_onnx_version()
    except importlib.metadata.PackageNotFoundError:  # no onnx: nothing to run the suite against
        return None
    cache = pathlib.Path(os.environ.get(_SUITE_CACHE_VARIABLE) or root / ".onnx_suite_cache")
    return cache if (cache / f"onnx-{version}-tests").is_dir() else None


def selection(tests: Sequence[str], suite: pathlib.Path | None) -> tuple[str, ...]:
    """A mutant's tests as run: the onnx-suite test last where its cache ``suite`` exists
    (pytest -x runs it only if the others pass), and left out where it does not."""
    named = tuple(t for t in tests if t.split("::")[0] != ONNX_SUITE)
    return (*named, ONNX_SUITE) if suite is not None else named


def outcomes_of(lines: Sequence[str]) -> dict[str, str]:
    """Each node id's outcome from the plugin's lines: failed over skipped over passed."""
    rank = {"passed": 0, "skipped": 1, "failed": 2}
    found: dict[str, str] = {}
    for line in lines:
        outcome, _, nodeid = line.partition("\t")
        if outcome in rank and rank[outcome] >= rank.get(found.get(nodeid, "passed"), 0):
            found[nodeid] = outcome
    return found


def ran_and_passed(killer: str, outcomes: dict[str, str]) -> bool:
    """Whether ``killer`` (a node id, or a path for a collection kill) ran and passed unmutated:
    a skipped test did not run, and a path counts when one of its tests passed."""
    if killer in outcomes:
        return outcomes[killer] == "passed"
    prefix = killer.rstrip("/")
    inside = [
        outcome
        for nodeid, outcome in outcomes.items()
        if nodeid.startswith((prefix + "::", prefix + "/")) or nodeid == prefix
    ]
    return "passed" in inside and "failed" not in inside


PACKAGE = ("wirecodec", "schema_dsl")  # where a mutant's old text must occur exactly once


def _package_sources(root: pathlib.Path) -> list[pathlib.Path]:
    return sorted(path for folder in PACKAGE for path in (root / folder).rglob("*.py"))


def check_applies(mutant: Mutant, root: pathlib.Path = ROOT) -> None:
    """Raise HarnessError unless the mutant's old text occurs exactly once in the package.

    Once in its file is not enough: a guard written twice (in its file and elsewhere)
    lets the mutant remove one copy while the other keeps every test passing, and the
    survivor then says nothing about the tests. So the text must occur in no other file
    of wirecodec/ or schema_dsl/ either (tests, docs and tools may quote it freely).
    """
    path = root / mutant.file
    if not path.is_file():
        raise HarnessError(f"{mutant.name}: {mutant.file} does not exist")
    count = path.read_text(encoding="utf-8").count(mutant.old)
    if count != 1:
        where = "is not found" if count == 0 else f"occurs {count} times"
        raise HarnessError(f"{mutant.name}: the old text {mutant.old!r} {where} in {mutant.file}")
    copies = [
        f"{other.relative_to(root)} ({found}x)"
        for other in _package_sources(root)
        if other.resolve() != path.resolve()
        and (found := other.read_text(encoding="utf-8").count(mutant.old))
    ]
    if copies:
        raise HarnessError(
            f"{mutant.name}: the old text {mutant.old!r} of {mutant.file} is copied in "
            f"{', '.join(copies)}: remove the copy, or make the old text specific to one place "
            "(a mutant of one copy says nothing while the other remains)"
        )


def apply(mutant: Mutant, root: pathlib.Path) -> str:
    """Plant ``mutant`` in the tree at ``root``; returns the file's original text (see restore)."""
    check_applies(mutant, root)
    path = root / mutant.file
    original = path.read_text(encoding="utf-8")
    path.write_text(original.replace(mutant.old, mutant.new), encoding="utf-8")
    return original


def restore(mutant: Mutant, root: pathlib.Path, original: str) -> None:
    """Put back the file ``apply`` changed, so the copy can take the next mutant."""
    (root / mutant.file).write_text(original, encoding="utf-8")


def _copy_tree(into: pathlib.Path) -> pathlib.Path:
    copy = into / "tree"
    shutil.copytree(ROOT, copy, ignore=_IGNORED, symlinks=True)
    return copy


# Files whose changes change the generated codecs: the package ships the ONNX schema's codecs
# as generated source (wirecodec/_codecs), which a mutant there would leave as they were; its
# tests run with the codecs generated by the mutated code instead, as a regenerated package
# would hold them.
_GENERATING: Final = ("wirecodec/protobuf/gen/", "schema_dsl/")


def run_pytest(
    copy: pathlib.Path,
    tests: Sequence[str],
    timeout: float,
    scratch: pathlib.Path,
    *,
    stop_first: bool = True,
    generate_codecs: bool = False,
) -> tuple[int, str, tuple[str, ...], dict[str, str]]:
    """Run ``tests`` in ``copy``: pytest's exit status, its last line, the failed node ids,
    and each test's outcome (see :func:`outcomes_of`); ``stop_first``: pytest's ``-x``;
    ``generate_codecs``: with the codecs generated by the copy's code, not the shipped ones."""
    failures = scratch / "failures.txt"
    failures.unlink(missing_ok=True)
    outcomes = scratch / "outcomes.txt"
    outcomes.unlink(missing_ok=True)
    env = dict(os.environ, PYTHONPATH=str(copy), PYTHONDONTWRITEBYTECODE="1")
    if generate_codecs:
        env["WIRECODEC_SHIPPED_CODECS"] = "0"  # wirecodec.protobuf.shipped.ENV
    env["WIRECODEC_MUTATION_FAILURES"] = str(failures)
    env["WIRECODEC_MUTATION_OUTCOMES"] = str(outcomes)
    suite = onnx_suite_cache()
    if suite is not None:
        env[_SUITE_CACHE_VARIABLE] = str(suite)
    # Each run its own basetemp: concurrent runs never share (or clean up) each other's.
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        *(["-x"] if stop_first else []),
        "-p",
        "no:cacheprovider",
        "-p",
        "tests.mutation.failures_plugin",
        f"--basetemp={scratch / 'basetemp'}",
        *tests,
    ]
    done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    failed = tuple(dict.fromkeys(failures.read_text().splitlines())) if failures.exists() else ()
    seen = outcomes_of(outcomes.read_text().splitlines()) if outcomes.exists() else {}
    return done.returncode, lines[-1] if lines else done.stderr.strip()[-200:], failed, seen


def _imports_the_copy(copy: pathlib.Path) -> None:
    env = dict(os.environ, PYTHONPATH=str(copy))
    where = subprocess.run(
        [sys.executable, "-c", "import wirecodec; print(wirecodec.__file__)"],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not pathlib.Path(where).resolve().is_relative_to(copy.resolve()):
        raise HarnessError(f"the copy imports wirecodec from {where}, not from {copy}")


class Copies:
    """One copy of the tree per worker, each in its own temporary directory: a worker plants
    its mutant in its copy, runs the mutant's tests there, and puts the file back (copying
    the tree for every mutant cost more than most of their runs)."""

    def __init__(self, count: int, scratch: pathlib.Path) -> None:
        self._free: queue.SimpleQueue[pathlib.Path] = queue.SimpleQueue()
        for i in range(count):
            copy = _copy_tree(scratch / f"worker-{i}")
            _imports_the_copy(copy)
            self._free.put(copy)

    @contextlib.contextmanager
    def take(self) -> Iterator[pathlib.Path]:
        """A copy no other worker holds, given back when the block ends."""
        copy = self._free.get()
        try:
            yield copy
        finally:
            self._free.put(copy)


def run_one(mutant: Mutant, tests: Sequence[str], timeout: float, copies: Copies) -> Result:
    with copies.take() as copy:
        original = apply(mutant, copy)
        try:
            started = time.perf_counter()
            generate = mutant.file.startswith(_GENERATING)
            try:
                code, summary, failed, seen = run_pytest(
                    copy, tests, timeout, copy.parent, generate_codecs=generate
                )
            except subprocess.TimeoutExpired:
                # The mutant made its tests hang: noticed (as a user would notice), reported
                # apart, and the run goes on to the other mutants.
                code, summary, failed, seen = -1, f"timed out after {timeout:.0f} s", (), {}
            seconds = time.perf_counter() - started
        finally:
            restore(mutant, copy, original)
    if code == -1:
        verdict = "killed (timed out)"
    elif code == 0:
        verdict = "survived" if "passed" in seen.values() else "survived (every test skipped)"
    elif code == 1:
        verdict = "killed"
    elif code == 2:
        verdict = "killed (collection)"  # the mutated code failed to import or collect
    else:
        raise HarnessError(f"{mutant.name}: pytest exited {code} ({summary})")
    return Result(mutant, verdict, seconds, tuple(tests), summary, failed)


def _share_out(tests: Sequence[str], jobs: int) -> list[list[str]]:
    """``tests`` in ``jobs`` groups of about equal size on disk (a rough proxy for their time)."""
    groups: list[list[str]] = [[] for _ in range(max(1, min(jobs, len(tests))))]
    weights = [0] * len(groups)

    def size(test: str) -> int:
        path = ROOT / test.split("::")[0]
        return path.stat().st_size if path.is_file() else 0

    for test in sorted(tests, key=size, reverse=True):
        lightest = weights.index(min(weights))
        groups[lightest].append(test)
        weights[lightest] += size(test)
    return groups


def baseline(tests: Sequence[str], timeout: float, jobs: int = 1) -> tuple[str, dict[str, str]]:
    """Run ``tests`` on an unmutated copy (in ``jobs`` pytest processes at once); they must pass.

    The harness gives it the tests that killed the mutants: a kill means something only
    if the same test passes without the mutant. Returns pytest's last lines and each
    test's outcome: a killer skipped here did not run, and the caller does not count its kill.
    """
    with tempfile.TemporaryDirectory(prefix="wirecodec-baseline-") as scratch:
        copy = _copy_tree(pathlib.Path(scratch))
        _imports_the_copy(copy)
        groups = _share_out(tests, jobs)
        folders = [pathlib.Path(scratch) / f"run-{i}" for i in range(len(groups))]
        for folder in folders:
            folder.mkdir()
        with concurrent.futures.ThreadPoolExecutor(len(groups)) as pool:
            runs = [
                pool.submit(run_pytest, copy, group, timeout, folder)
                for group, folder in zip(groups, folders, strict=True)
            ]
            outcomes = [(run.result(), group) for run, group in zip(runs, groups, strict=True)]
    seen: dict[str, str] = {}
    for (code, summary, failed, found), group in outcomes:
        if code != 0:
            named = " ".join(failed) or " ".join(group)
            raise HarnessError(f"a test that killed a mutant fails without any mutant: {named} ({summary})")
        seen.update(found)
    return "; ".join(summary for (_, summary, _, _), _ in outcomes), seen


def _killers(r: Result) -> tuple[str, ...]:
    """The tests whose failure killed ``r``'s mutant (a collection kill: its whole selection,
    but for onnx's own tests, ten minutes, where another test is named)."""
    if r.verdict == "killed" and r.killers:
        return r.killers
    named = tuple(t for t in r.tests if t != ONNX_SUITE)
    return named or r.tests


def discount_skipped(results: Sequence[Result], seen: dict[str, str]) -> list[Result]:
    """``results`` with each kill that no killer confirmed (ran and passed unmutated, see
    :func:`ran_and_passed`) turned into ``survived (killer skipped)``."""
    out = []
    for r in results:
        if not r.verdict.startswith("survived") and not any(
            ran_and_passed(test, seen) for test in _killers(r)
        ):
            r = dataclasses.replace(r, verdict="survived (killer skipped)")
        out.append(r)
    return out


def table(results: Sequence[Result]) -> str:
    """The results as a markdown table (what docs/testing.md records)."""
    rows = [
        "| mutant | file | bug | tests run | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in results:
        tests = ", ".join(f"`{pathlib.PurePath(t).name}`" for t in r.tests)
        m = r.mutant
        rows.append(f"| `{m.name}` | `{m.file}` | {m.what} | {tests} | **{r.verdict}** |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__.split("\n")[0])
    parser.add_argument("--only", action="append", default=[], metavar="NAME", help="run just this mutant")
    parser.add_argument("--tests", nargs="+", metavar="PATH", help="run this selection for every mutant")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per pytest run")
    parser.add_argument(
        "--onnx-suite",
        choices=("auto", "off"),
        default="auto",
        help="auto: onnx's own tests run last in every selection where onnx's sdist is cached",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="pytest runs at once (default: 2 or the CPUs)",
    )
    args = parser.parse_args(argv)

    chosen = [m for m in MUTANTS if not args.only or m.name in args.only]
    unknown = set(args.only) - {m.name for m in MUTANTS}
    try:
        if unknown:
            raise HarnessError(f"no mutant named {', '.join(sorted(unknown))}")
        refused = []
        for mutant in chosen:  # all of them, before spending time on any
            try:
                check_applies(mutant)
            except HarnessError as exc:
                refused.append(str(exc))
        if refused:
            raise HarnessError("\n".join(refused))
        if args.list:
            for m in chosen:
                print(f"{m.name:<38} {m.file}: {m.what}")
            return 0
        jobs = max(1, min(args.jobs, len(chosen)))
        suite = onnx_suite_cache() if args.onnx_suite == "auto" else None
        print(
            f"onnx's own tests: {'run last in each selection (' + str(suite) + ')' if suite else 'not run'}",
            flush=True,
        )
        with tempfile.TemporaryDirectory(prefix="wirecodec-mutants-") as scratch:
            copies = Copies(jobs, pathlib.Path(scratch))
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                runs = [
                    pool.submit(
                        run_one, mutant, selection(args.tests or mutant.tests, suite), args.timeout, copies
                    )
                    for mutant in chosen
                ]
                for run in concurrent.futures.as_completed(runs):
                    r = run.result()
                    print(f"{r.verdict:<20} {r.mutant.name:<40} {r.seconds:6.1f} s  {r.summary}", flush=True)
                results = [run.result() for run in runs]  # the table keeps the mutants' order
        if not args.no_baseline:
            # The tests that killed, without any mutant (a collection kill: its whole selection).
            killers = {test for r in results if not r.verdict.startswith("survived") for test in _killers(r)}
            if killers:
                summary, seen = baseline(sorted(killers), args.timeout, jobs)
                print(f"baseline: {summary}", flush=True)
                results = discount_skipped(results, seen)
    except HarnessError as exc:
        print(f"mutation harness: {exc}", file=sys.stderr)
        return 2
    survived = [r for r in results if r.verdict.startswith("survived")]
    print(f"\n{len(results)} mutants: {len(results) - len(survived)} killed, {len(survived)} survived\n")
    print(table(results))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
