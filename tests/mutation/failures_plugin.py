"""A pytest plugin the harness loads (``-p tests.mutation.failures_plugin``) in each run: it
appends the node id of every test that fails, or errors, to the file named by
``WIRECODEC_MUTATION_FAILURES`` — the tests that killed the mutant, which the harness then
runs without any mutant (they must pass there, or the kill meant nothing)."""

from __future__ import annotations

import os

import pytest

_FILE = "WIRECODEC_MUTATION_FAILURES"


def _record(nodeid: str) -> None:
    where = os.environ.get(_FILE)
    if where:
        with open(where, "a", encoding="utf-8") as out:
            out.write(nodeid + "\n")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.failed:
        _record(report.nodeid)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        _record(report.nodeid)
