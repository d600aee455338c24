"""onnx's backend node tests run by wirecodec's reference evaluator (issue 43).

Each test onnx's own evaluator passes (reference_backend/onnx_passes.txt) must pass
here, at onnx's tolerances, unless reference_backend/known_gaps.txt lists it with a
reason; a listed test that passes fails too, so the list only shrinks. The cases are
built in memory from onnx's generators (its wheel no longer ships ``data/node``).
"""

from __future__ import annotations

import warnings

import pytest

from tests.differential.reference_backend import BASELINE, KNOWN_GAPS, cases, read_names, run_case

pytest.importorskip("onnx", reason="the backend node tests come from the installed onnx")
pytest.importorskip("numpy")

_NAMES = sorted(read_names(BASELINE))
_GAPS = read_names(KNOWN_GAPS)


def test_known_gaps_have_reasons_and_exist() -> None:
    for name, reason in _GAPS.items():
        assert reason, f"{name} is listed in known_gaps.txt without a reason"
        assert name in _NAMES, f"{name} is listed in known_gaps.txt but onnx's evaluator does not pass it"


@pytest.mark.parametrize("name", _NAMES)
def test_backend_node(name: str) -> None:
    from wirecodec.reference import ReferenceEvaluator

    all_cases = cases()
    if name not in all_cases:
        pytest.skip(f"{name} is not among the installed onnx's node tests")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            run_case(ReferenceEvaluator, all_cases[name])
        except Exception as exc:
            if name in _GAPS:
                pytest.xfail(f"known gap: {_GAPS[name]}")
            raise AssertionError(f"{type(exc).__name__}: {exc}") from exc
    if name in _GAPS:
        pytest.fail(f"{name} passes now: remove it from known_gaps.txt")
