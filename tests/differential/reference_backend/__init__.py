"""onnx's backend node tests as data for the reference evaluator's differential tier.

``cases()`` builds onnx's node test cases in memory (``onnx.backend.test.case.node``,
the generators behind the ``data/node`` folders onnx no longer ships in its wheel);
``compare()`` is onnx's backend runner's output comparison (same tolerances, same rules).
"""

from __future__ import annotations

import functools
import warnings
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
BASELINE = HERE / "onnx_passes.txt"  # tests onnx.reference passes (regenerate: python -m ...baseline)
KNOWN_GAPS = HERE / "known_gaps.txt"  # "test_name  reason" per line: tests we do not pass yet


@functools.cache
def cases() -> dict[str, Any]:
    """name -> onnx's TestCase (model, data sets, rtol, atol)."""
    from onnx.backend.test.case.node import collect_testcases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return {case.name: case for case in collect_testcases(None)}


def read_names(path: Path) -> dict[str, str]:
    """The names in a list file (first word of each line) with the rest of the line."""
    out: dict[str, str] = {}
    if not path.exists():
        return out
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition(" ")
        out[name] = reason.strip()
    return out


def compare(expected: Any, got: Any, rtol: float, atol: float) -> None:
    """Raise AssertionError unless ``got`` matches ``expected`` as onnx's backend runner checks."""
    import numpy as np

    if isinstance(expected, (list, tuple)):
        assert isinstance(got, (list, tuple)), f"expected a sequence, got {type(got).__name__}"
        assert len(got) == len(expected), f"sequence of {len(got)} elements, expected {len(expected)}"
        for e, g in zip(expected, got, strict=True):
            compare(e, g, rtol, atol)
        return
    if expected is None:
        assert got is None, f"expected None, got {type(got).__name__}"
        return
    expected = np.asarray(expected)
    assert isinstance(got, (np.ndarray, np.generic)), f"expected an array, got {type(got).__name__}"
    got = np.asarray(got)
    np.testing.assert_array_equal(got.shape, expected.shape, err_msg="incorrect shape")
    if expected.dtype == object:
        np.testing.assert_array_equal(got, expected)
        return
    np.testing.assert_equal(got.dtype, expected.dtype)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)
    elif expected.dtype.kind in "iub":
        np.testing.assert_array_equal(got, expected)
    else:  # ml_dtypes types (float8, bfloat16, int4, ...): compare as float32
        np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), rtol=rtol, atol=atol)


def run_case(evaluator_class: Any, case: Any) -> None:
    """Run every data set of ``case`` through ``evaluator_class`` and compare."""
    sess = evaluator_class(case.model.SerializeToString())
    names = [i.name for i in case.model.graph.input]
    out_names = [o.name for o in case.model.graph.output]
    for inputs, outputs in case.data_sets:
        feeds = dict(zip(names[: len(inputs)], inputs, strict=True))
        got = sess.run(out_names, feeds)
        assert len(got) == len(outputs), f"{len(got)} outputs, expected {len(outputs)}"
        for e, g in zip(outputs, got, strict=True):
            compare(e, g, case.rtol, case.atol)
