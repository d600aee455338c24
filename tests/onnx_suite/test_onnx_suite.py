"""onnx's own tests judge the onnx-shaped namespace: none that passes on onnx may newly fail.

Slow-marked (it runs ~1,700 of onnx's tests twice, in subprocesses); ``python -m
tests.onnx_suite`` prints the same comparison as a table.
"""

from __future__ import annotations

import pathlib

import pytest

from tests.onnx_suite import run, sdist

pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


@pytest.fixture(scope="module")
def folder() -> pathlib.Path:
    try:
        return sdist.suite_folder()
    except sdist.FetchError as error:
        pytest.skip(f"onnx's tests are not reachable: {error}")


@pytest.mark.slow
def test_every_failure_on_wirecodec_has_a_listed_cause(folder: pathlib.Path) -> None:
    comparison = run.compare(folder=folder)
    print(run.report(comparison))
    assert comparison.passing_on_onnx("helper"), "the onnx side ran no helper test: the runner is broken"
    assert not comparison.unexpected(), run.report(comparison)


def test_every_list_entry_has_a_cause() -> None:
    entries = run.read_expected()
    assert all(entry.cause for entry in entries)
    assert len({entry.pattern for entry in entries}) == len(entries), "an entry is listed twice"


def test_a_listed_failure_is_explained_and_an_unlisted_one_is_not() -> None:
    comparison = run.Comparison(
        onnx={"helper::T::a": run.PASS, "helper::T::b": run.PASS, "helper::T::c": run.FAIL},
        wirecodec={"helper::T::a": run.FAIL, "helper::T::b": run.FAIL, "helper::T::c": run.FAIL},
        expected=[run.Expected("helper::T::a", "a cause")],
    )
    assert comparison.unexpected() == ["helper::T::b"]
    assert comparison.cause("helper::T::a") == "a cause"
    assert comparison.listed_but_passing() == []


def test_an_id_with_brackets_is_matched_exactly() -> None:
    comparison = run.Comparison(
        onnx={"helper::t[10]": run.PASS, "helper::t[1]": run.PASS},
        wirecodec={"helper::t[10]": run.FAIL, "helper::t[1]": run.PASS},
        expected=[run.Expected("helper::t[10]", "a cause"), run.Expected("helper::t[1]", "fixed")],
    )
    assert comparison.unexpected() == []
    assert comparison.listed_but_passing() == ["helper::t[1]"]
