"""``BackendTest(backend, __name__, test_kwargs)``: a case's keywords reach its test as in
onnx's runner, where ``run`` compares with ``rtol=kwargs.get("rtol", model_test.rtol)`` (and
``atol`` alike) and hands the rest to ``backend.prepare``. A model whose backend answers
1% off the stored outputs fails at the default tolerance (``rtol`` 1e-3) and passes once
``test_kwargs`` gives ``rtol`` 0.05; ``data.json``'s tolerance is the default it overrides.
"""

from __future__ import annotations

import json
import pathlib
import unittest
from typing import Any, ClassVar

import numpy as np
import pytest

from tests.support.reference import require_onnx

onnx = require_onnx()

from wirecodec.onnx_compat.backend import base  # noqa: E402
from wirecodec.onnx_compat.backend.test import BackendTest  # noqa: E402

NAME = "test_one_percent_off"


class _Rep(base.BackendRep):
    def run(self, inputs: Any, **kwargs: Any) -> Any:
        return (np.asarray(inputs[0]) * np.float32(1.01),)  # 1% above what Identity gives


class _OnePercentOff(base.Backend):
    prepared_with: ClassVar[list[dict[str, Any]]] = []

    @classmethod
    def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> Any:
        cls.prepared_with.append(kwargs)
        return _Rep()

    @classmethod
    def supports_device(cls, device: str) -> bool:
        return device == "CPU"


def _data_dir(root: pathlib.Path, data_json: dict[str, float] | None = None) -> str:
    for kind in ("real", "simple", "pytorch-converted", "pytorch-operator"):
        (root / kind).mkdir(parents=True)
    case = root / "simple" / NAME
    (case / "test_data_set_0").mkdir(parents=True)
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", 1, [3])],
        [helper.make_tensor_value_info("y", 1, [3])],
    )
    (case / "model.onnx").write_bytes(helper.make_model(graph).SerializeToString())
    x = np.array([1.0, 2.0, 4.0], np.float32)
    (case / "test_data_set_0" / "input_0.pb").write_bytes(numpy_helper.from_array(x, "x").SerializeToString())
    (case / "test_data_set_0" / "output_0.pb").write_bytes(
        numpy_helper.from_array(x, "y").SerializeToString()
    )
    if data_json is not None:
        (case / "data.json").write_text(json.dumps(data_json))
    return str(root)


def _passes(data_dir: str, test_kwargs: dict[str, Any] | None) -> bool:
    runner = BackendTest(_OnePercentOff, __name__, test_kwargs=test_kwargs, data_dir=data_dir)
    runner.include(NAME)
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(runner.test_cases["OnnxBackendSimpleModelTest"])
    result = unittest.TestResult()
    suite.run(result)
    assert result.testsRun == 2 and len(result.skipped) == 1  # the CUDA test skips
    return result.wasSuccessful()


def test_one_percent_off_fails_at_the_default_tolerance(tmp_path: pathlib.Path) -> None:
    assert not _passes(_data_dir(tmp_path), None)


def test_test_kwargs_rtol_is_the_tolerance_and_the_rest_goes_to_prepare(tmp_path: pathlib.Path) -> None:
    _OnePercentOff.prepared_with.clear()
    assert _passes(_data_dir(tmp_path), {NAME: {"rtol": 0.05, "flag": "seen"}})
    assert _OnePercentOff.prepared_with == [{"rtol": 0.05, "flag": "seen"}]


@pytest.mark.parametrize(
    ("data_json", "kwargs", "passes"), [({"rtol": 0.05}, None, True), ({"rtol": 0.05}, {"rtol": 1e-4}, False)]
)
def test_test_kwargs_override_data_json(
    tmp_path: pathlib.Path, data_json: dict[str, float], kwargs: dict[str, float] | None, passes: bool
) -> None:
    test_kwargs = None if kwargs is None else {NAME: kwargs}
    assert _passes(_data_dir(tmp_path, data_json), test_kwargs) is passes
