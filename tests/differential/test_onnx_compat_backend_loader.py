"""``onnx.backend.test.loader.load_model_tests`` and ``case.test_case.TestCase`` side by side
with onnx's, on onnx's own backend test data (the folder of the installed onnx): the same
cases, fields and order; the names onnx_compat does not provide say so."""

from __future__ import annotations

import dataclasses
import os

import pytest

from tests.support.reference import require_onnx

onnx = require_onnx()


def _data_dir() -> str:
    import onnx.backend.test.loader as theirs

    return str(theirs.DATA_DIR)


@pytest.mark.quick
@pytest.mark.parametrize("kind", ["real", "simple", "pytorch-converted", "pytorch-operator"])
def test_load_model_tests_as_onnx(kind: str) -> None:
    import onnx.backend.test.loader as theirs

    from wirecodec.onnx_compat.backend.test import loader as ours

    expected = [dataclasses.astuple(c) for c in theirs.load_model_tests(_data_dir(), kind)]
    got = [dataclasses.astuple(c) for c in ours.load_model_tests(_data_dir(), kind)]
    assert got == expected and got


def test_unknown_kind_and_what_is_not_provided() -> None:
    import onnx.backend.test.loader as theirs

    from wirecodec.onnx_compat import NotProvidedError
    from wirecodec.onnx_compat.backend import test as ours_test
    from wirecodec.onnx_compat.backend.test import loader as ours

    with pytest.raises(ValueError, match="kind must be one of") as refused:
        ours.load_model_tests(_data_dir(), "nope")
    with pytest.raises(ValueError, match="kind must be one of") as onnx_refused:
        theirs.load_model_tests(_data_dir(), "nope")
    assert sorted(os.listdir(_data_dir())) and str(refused.value) == str(onnx_refused.value)
    with pytest.raises(NotProvidedError, match="data_dir"):
        ours.load_model_tests(kind="light")
    with pytest.raises(NotProvidedError, match="kind='node'"):
        ours.load_model_tests(_data_dir(), "node")
    with pytest.raises(NotProvidedError, match=r"onnx\.backend\.test\.BackendTest is not provided"):
        ours_test.BackendTest  # noqa: B018
