"""``onnx.backend.test.BackendTest`` (``runner.Runner``) side by side with onnx's: the same
unittest classes and test names on onnx's data folder, the same ``include``/``exclude``/
``xfail`` filtering and device skips, and the same outcome per test when both run a backend
(onnx's over ``onnx.reference``, ours over ``wirecodec.onnx_compat.reference``).

onnx makes its node cases by running its case generators; ours reads them from
``<data_dir>/node``. The folder here is onnx's installed one plus a ``node/`` written from
onnx's generated cases (every name; a few with their model and data, to run)."""

from __future__ import annotations

import os
import pathlib
import tarfile
import unittest
from typing import Any

import pytest

from tests.support.reference import require_onnx

onnx = require_onnx()

# node cases written whole (model and data sets), to run on both sides
_RUN_NODES = (
    "test_abs",
    "test_add_bcast",
    "test_relu",
    "test_concat_2d_axis_0",
    "test_sequence_insert_at_back",
)


def _theirs_data() -> str:
    import onnx.backend.test.loader as theirs

    return str(theirs.DATA_DIR)


def _write_case(folder: pathlib.Path, case: Any) -> None:
    from onnx import numpy_helper

    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        data = folder / f"test_data_set_{i}"
        data.mkdir()
        for prefix, values, infos in (("input", inputs, graph.input), ("output", outputs, graph.output)):
            for j, value in enumerate(values):
                if infos[j].type.HasField("sequence_type"):
                    proto = numpy_helper.from_list(value, infos[j].name)
                elif isinstance(value, onnx.TensorProto):
                    proto = value
                else:
                    proto = numpy_helper.from_array(value, infos[j].name)
                (data / f"{prefix}_{j}.pb").write_bytes(proto.SerializeToString())


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """onnx's data folder (each kind linked) with ``node/`` made from onnx's node cases."""
    import warnings

    from onnx.backend.test.loader import load_model_tests

    root = tmp_path_factory.mktemp("backend-data")
    for kind in os.listdir(_theirs_data()):
        (root / kind).symlink_to(os.path.join(_theirs_data(), kind))
    with warnings.catch_warnings():  # (onnx's generators warn of overflows they make on purpose)
        warnings.simplefilter("ignore")
        cases = load_model_tests(kind="node")
    for case in cases:
        if case.name in _RUN_NODES:
            _write_case(root / "node" / case.name, case)
        else:  # (names only: the runner reads a case when its test runs)
            (root / "node" / case.name).mkdir(parents=True)
            (root / "node" / case.name / "model.onnx").touch()
    return str(root)


def _backends() -> tuple[type, type]:
    """The same backend twice: on onnx's evaluator and base class, and on ours."""
    import onnx.backend.base as their_base
    import onnx.reference as their_reference

    from wirecodec.onnx_compat import reference as our_reference
    from wirecodec.onnx_compat.backend import base as our_base

    def make(base: Any, evaluator: Any) -> type:
        class Rep(base.BackendRep):  # type: ignore[name-defined,misc]
            def __init__(self, model: Any) -> None:
                self.session = evaluator.ReferenceEvaluator(model)

            def run(self, inputs: Any, **kwargs: Any) -> Any:
                names = self.session.input_names
                return self.session.run(None, dict(zip(names, inputs, strict=False)))

        class Reference(base.Backend):  # type: ignore[name-defined,misc]
            @classmethod
            def prepare(cls, model: Any, device: str = "CPU", **kwargs: Any) -> Any:
                return Rep(model)

            @classmethod
            def supports_device(cls, device: str) -> bool:
                return device == "CPU"

        return Reference

    return make(their_base, their_reference), make(our_base, our_reference)


def _runners(data_dir: str) -> tuple[Any, Any]:
    from onnx.backend.test import BackendTest as Theirs

    from wirecodec.onnx_compat.backend.test import BackendTest as Ours

    theirs_backend, ours_backend = _backends()
    return Theirs(theirs_backend, "backend_side_by_side"), Ours(
        ours_backend, "backend_side_by_side", data_dir=data_dir
    )


def _shape(cases: dict[str, type]) -> dict[str, Any]:
    """Each class: its module and, per test, (skipped, why, expected to fail)."""
    return {
        name: (
            cls.__module__,
            {
                test: (
                    getattr(func, "__unittest_skip__", False),
                    getattr(func, "__unittest_skip_why__", ""),
                    getattr(func, "__unittest_expecting_failure__", False),
                )
                for test, func in vars(cls).items()
                if test.startswith("test_")
            },
        )
        for name, cls in cases.items()
    }


def test_same_classes_tests_and_filtering(data_dir: str) -> None:
    theirs, ours = _runners(data_dir)
    unfiltered = _shape(ours.test_cases)
    assert _shape(theirs.test_cases) == unfiltered
    assert sum(len(tests) for _, tests in unfiltered.values()) > 4000
    assert unfiltered["OnnxBackendNodeModelTest"][1]["test_abs_cuda"][:2] == (
        True,
        "Backend doesn't support device CUDA",
    )
    for runner in (theirs, ours):
        runner.include(r"test_(abs|add|Conv|sign)").include("squeezenet").exclude("_cuda$").exclude("Conv2d")
        runner.xfail("test_abs_cpu").xfail("test_Conv1d_cpu")
    filtered = _shape(ours.test_cases)
    assert filtered == _shape(theirs.test_cases)
    # each outcome the filtering gives is met
    reasons = {why for _, tests in filtered.values() for _, why, _ in tests.values()}
    assert {
        "",
        "no matched include pattern",
        'matched exclude pattern "_cuda$"',
        'matched exclude pattern "Conv2d"',
    } <= reasons
    assert filtered["OnnxBackendNodeModelTest"][1]["test_abs_cpu"][2] is True
    assert sorted(vars(ours.tests)) == sorted(vars(theirs.tests))
    assert ours.test_suite.countTestCases() == theirs.test_suite.countTestCases()


def _outcomes(suite: unittest.TestSuite) -> dict[str, str]:
    got = {t.id().rsplit(".", 1)[1]: "pass" for t in _tests(suite)}  # (a run empties the suite)
    result = unittest.TestResult()
    suite.run(result)
    for kind, entries in (
        ("fail", result.failures),
        ("error", result.errors),
        ("skip", result.skipped),
        ("xfail", result.expectedFailures),
    ):
        for test, _ in entries:
            got[test.id().rsplit(".", 1)[1]] = kind
    for test in result.unexpectedSuccesses:
        got[test.id().rsplit(".", 1)[1]] = "xpass"
    return got


def _tests(suite: unittest.TestSuite) -> list[unittest.TestCase]:
    found: list[unittest.TestCase] = []
    for item in suite:
        found.extend(_tests(item) if isinstance(item, unittest.TestSuite) else [item])
    return found


def test_same_outcomes_when_run(
    data_dir: str, monkeypatch: pytest.MonkeyPatch, tmp_path: pathlib.Path
) -> None:
    monkeypatch.setenv("ONNX_HOME", str(tmp_path / "home"))  # (the light models' data goes there)
    theirs, ours = _runners(data_dir)
    chosen = "|".join(
        (
            *_RUN_NODES,
            "test_AvgPool1d$",
            "test_sign_model",
            "test_PixelShuffle",
            "test_operator_add_broadcast",
        )
    )
    for runner in (theirs, ours):
        runner.include(rf"^({chosen})_cpu$").xfail("test_relu_cpu")
    expected = _outcomes(theirs.test_suite)
    got = _outcomes(ours.test_suite)
    assert got == expected
    ran = {name: kind for name, kind in got.items() if kind != "skip"}
    assert ran["test_abs_cpu"] == "pass" and ran["test_relu_cpu"] == "xpass", ran
    assert ran["test_sequence_insert_at_back_cpu"] == "pass" and ran["test_sign_model_cpu"] == "pass", ran
    assert len(ran) >= 8, ran


def test_wrong_outputs_fail_as_in_onnx(data_dir: str) -> None:
    import numpy as np

    from wirecodec.onnx_compat.backend.test.runner import Runner

    ok = [np.array([1.0, 2.0], dtype=np.float32)]
    Runner.assert_similar_outputs(ok, [np.array([1.0, 2.0005], dtype=np.float32)], rtol=1e-3, atol=1e-7)
    for wrong in (
        [np.array([1.0, 2.1], dtype=np.float32)],
        [np.array([1.0, 2.0], dtype=np.float64)],
        [np.array([[1.0, 2.0]], dtype=np.float32)],
        [],
    ):
        with pytest.raises(AssertionError):
            Runner.assert_similar_outputs(ok, wrong, rtol=1e-3, atol=1e-7)
        with pytest.raises(AssertionError):
            onnx.backend.test.runner.Runner.assert_similar_outputs(ok, wrong, rtol=1e-3, atol=1e-7)


def test_a_model_by_url_is_fetched_and_unpacked(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A case whose data.json names a URL (here a file:// one) is fetched into $ONNX_MODELS
    and unpacked; an archive reaching outside its folder is refused."""
    from wirecodec.onnx_compat.backend.test.case.test_case import TestCase
    from wirecodec.onnx_compat.backend.test.runner import Runner

    monkeypatch.setenv("ONNX_MODELS", str(tmp_path / "models"))
    packed = tmp_path / "tiny"
    (packed / "test_data_set_0").mkdir(parents=True)
    (packed / "model.onnx").write_bytes(b"x")
    archive = tmp_path / "tiny.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(packed, arcname="tiny")
    case = TestCase("test_tiny", "tiny", archive.as_uri(), None, None, None, "real", 1e-3, 1e-7)
    folder = Runner.prepare_model_data(case)
    assert folder == str(tmp_path / "models" / "tiny")
    assert (pathlib.Path(folder) / "model.onnx").read_bytes() == b"x"
    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as tar:
        tar.add(packed / "model.onnx", arcname="../outside.onnx")
    bad = TestCase("test_evil", "evil", evil.as_uri(), None, None, None, "real", 1e-3, 1e-7)
    monkeypatch.setattr("time.sleep", lambda seconds: None)  # (three tries, no waits)
    with pytest.raises(ValueError, match="outside"):
        Runner.prepare_model_data(bad)
    assert not (tmp_path / "models" / "outside.onnx").exists()


@pytest.mark.quick
def test_without_data_it_says_what_it_needs(monkeypatch: pytest.MonkeyPatch) -> None:
    from wirecodec.onnx_compat import NotProvidedError
    from wirecodec.onnx_compat.backend.base import Backend
    from wirecodec.onnx_compat.backend.test import runner

    assert os.path.samefile(runner.onnx_data_dir(), _theirs_data())  # found on disk, onnx not imported
    monkeypatch.setattr(runner, "onnx_data_dir", lambda: "")
    with pytest.raises(NotProvidedError, match="data_dir"):
        runner.Runner(Backend)
