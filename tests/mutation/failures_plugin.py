"""A pytest plugin the harness loads (``-p tests.mutation.failures_plugin``) in each run: it
appends the node id of every test that fails, or errors, to the file named by
``WIRECODEC_MUTATION_FAILURES`` — the tests that killed the mutant, which the harness then
runs without any mutant (they must pass there, or the kill meant nothing) — and, to the
file named by ``WIRECODEC_MUTATION_OUTCOMES``, each test's outcome as pytest reports it
(``passed``, ``skipped`` or ``failed``, a tab, the node id; a test may have a line per
phase). A killer that is skipped without the mutant did not run there: its kill is not
counted (tests/mutation/run.py)."""

from __future__ import annotations

import os

import pytest

_FILE = "WIRECODEC_MUTATION_FAILURES"
_OUTCOMES = "WIRECODEC_MUTATION_OUTCOMES"


def _append(variable: str, line: str) -> None:
    where = os.environ.get(variable)
    if where:
        with open(where, "a", encoding="utf-8") as out:
            out.write(line + "\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _append(_FILE, report.nodeid)
    if report.failed or report.skipped or report.when == "call":
        _append(_OUTCOMES, f"{report.outcome}\t{report.nodeid}")


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _append(_FILE, report.nodeid)
        _append(_OUTCOMES, f"failed\t{report.nodeid}")
    elif report.skipped:  # a module skipped whole (pytest.importorskip at its top)
        _append(_OUTCOMES, f"skipped\t{report.nodeid}")
