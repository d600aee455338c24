"""``onnx.backend.test.runner``: :class:`Runner` (``onnx.backend.test.BackendTest``), the
unittest cases that run a backend on onnx's backend test data.

``Runner(backend, __name__).test_cases`` is a dict of ``unittest.TestCase`` classes, one per
category (``OnnxBackendNodeModelTest``, ``OnnxBackendRealModelTest``,
``OnnxBackendSimpleModelTest``, ``OnnxBackendPyTorchConvertedModelTest``,
``OnnxBackendPyTorchOperatorModelTest``), each with a test per case and device
(``test_abs_cpu``, ``test_abs_cuda``): the names, the ``include``/``exclude``/``xfail``
filtering and the comparison of outputs (:meth:`Runner.assert_similar_outputs`) are onnx's.

Where the cases come from: onnx's data folder. wirecodec ships none, so ``data_dir``
defaults to the folder of an installed onnx distribution, found on disk without importing
it (``importlib.metadata``); give another (a checkout's ``onnx/backend/test/data``) as
``data_dir``. onnx makes its node cases (``kind="node"``) by running its Python case
generators; here they are read from ``<data_dir>/node`` when that folder exists (what
``backend-test-tools generate-data`` writes, and onnx's checkout holds), with the same
names; without it there are no node cases.

>>> import unittest
>>> from wirecodec.onnx_compat.backend.base import Backend
>>> class Nothing(Backend):
...     @classmethod
...     def supports_device(cls, device: str) -> bool:
...         return device == "CPU"
>>> import tempfile, os
>>> data = tempfile.mkdtemp()
>>> for kind in ("real", "simple", "pytorch-converted", "pytorch-operator"):
...     os.mkdir(os.path.join(data, kind))
>>> os.mkdir(os.path.join(data, "simple", "test_one"))
>>> open(os.path.join(data, "simple", "test_one", "model.onnx"), "wb").close()
>>> cases = Runner(Nothing, data_dir=data).include("test_one").test_cases
>>> sorted(name for name in vars(cases["OnnxBackendSimpleModelTest"]) if name.startswith("test_"))
['test_one_cpu', 'test_one_cuda']
>>> import shutil; shutil.rmtree(data)
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import sys
import tempfile
import time
import unittest
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from re import Pattern
from typing import Any

from schema_dsl.onnx import OptionalProto, SequenceProto, TensorProto, TypeProto, ValueInfoProto
from wirecodec.onnx_compat._unsupported import NotProvidedError
from wirecodec.onnx_compat.backend.base import Backend
from wirecodec.onnx_compat.backend.test.case.test_case import TestCase
from wirecodec.onnx_compat.backend.test.loader import load_model_tests
from wirecodec.onnx_compat.backend.test.runner.item import TestItem

__all__ = ["BackendIsNotSupposedToImplementIt", "Runner", "onnx_data_dir", "retry_execute"]

# kind of data -> category, in the order onnx adds them
_KINDS: tuple[tuple[str, str], ...] = (
    ("node", "Node"),
    ("real", "Real"),
    ("simple", "Simple"),
    ("pytorch-converted", "PyTorchConverted"),
    ("pytorch-operator", "PyTorchOperator"),
)
_LIGHT_URL = "onnx/backend/test/data/light/"


class BackendIsNotSupposedToImplementIt(unittest.SkipTest):
    """A backend raises this from ``prepare``/``run`` for a case it need not support: the
    test passes (and says so with ``-v``)."""


def retry_execute(times: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Call the decorated function up to ``times`` times while it raises, waiting 5 s, 10 s, ...
    between tries; the last try's error is raised."""
    if times < 1:
        raise ValueError(f"retry_execute: times must be at least 1, got {times}")

    def wrapper(func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            for attempt in range(1, times + 1):
                try:
                    return func(*args, **kwargs)
                except Exception:
                    print(f"{attempt} times tried")
                    if attempt == times:
                        raise
                    time.sleep(5 * attempt)
            return None

        return wrapped

    return wrapper


def onnx_data_dir() -> str:
    """The backend test data folder of the installed onnx distribution (read as files; onnx
    is not imported), or ``""`` when onnx is not installed or its wheel has no such folder."""
    from importlib import metadata

    try:
        dist = metadata.distribution("onnx")
    except metadata.PackageNotFoundError:
        return ""
    folder = str(dist.locate_file(os.path.join("onnx", "backend", "test", "data")))
    return folder if os.path.isdir(folder) else ""


def _normalize_tensor(tensor: Any) -> Any:
    if isinstance(tensor, TensorProto):
        from wirecodec.numpy_helper import to_array

        return to_array(tensor)
    return tensor


def _safe_extract(archive: str, folder: str) -> None:
    """Unpack the tar archive ``archive`` into ``folder``, refusing members that would land
    outside it (absolute paths, ``..``) and links."""
    import tarfile

    root = os.path.realpath(folder)
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        for member in members:
            target = os.path.realpath(os.path.join(root, member.name))
            if os.path.commonpath([root, target]) != root or member.issym() or member.islnk():
                raise ValueError(f"refusing to extract {member.name!r} from {archive!r}: outside {folder!r}")
        tar.extractall(root, members=members)


class Runner:
    """The backend test suite of onnx for ``backend`` (a :class:`~.base.Backend` class).

    ``parent_module`` becomes the ``__module__`` of the generated test classes;
    ``test_kwargs`` maps a case name to keywords given to its test (``rtol``, ``atol``,
    and anything the backend's ``prepare`` takes); ``data_dir`` is the data folder (default:
    the installed onnx's, :func:`onnx_data_dir`).
    """

    def __init__(
        self,
        backend: type[Backend],
        parent_module: str | None = None,
        test_kwargs: dict[str, Any] | None = None,
        data_dir: str | None = None,
    ) -> None:
        self.backend = backend
        self._parent_module = parent_module
        self._include_patterns: set[Pattern[str]] = set()
        self._exclude_patterns: set[Pattern[str]] = set()
        self._xfail_patterns: set[Pattern[str]] = set()
        self._test_kwargs: dict[str, Any] = test_kwargs or {}
        self._data_dir = data_dir if data_dir is not None else onnx_data_dir()
        if not self._data_dir:
            raise NotProvidedError(
                "onnx.backend.test.BackendTest needs onnx's backend test data: install onnx, "
                "or pass its data folder as data_dir"
            )
        # category -> test name -> item: what test_cases, test_suite and tests are made of
        self._test_items: dict[str, dict[str, TestItem]] = defaultdict(dict)
        for kind, category in _KINDS:
            if kind == "node" and not os.path.isdir(os.path.join(self._data_dir, "node")):
                continue  # (onnx generates these; here only a generated folder has them)
            for case in load_model_tests(self._data_dir, kind):
                self._add_model_test(case, category)

    def _get_test_case(self, name: str) -> type[unittest.TestCase]:
        test_case = type(str(name), (unittest.TestCase,), {})
        if self._parent_module:
            test_case.__module__ = self._parent_module
        return test_case

    def include(self, pattern: str) -> Runner:
        """Run only the tests whose name a regular expression given here matches (the rest skip)."""
        self._include_patterns.add(re.compile(pattern))
        return self

    def exclude(self, pattern: str) -> Runner:
        """Skip the tests whose name ``pattern`` matches (``re.search``)."""
        self._exclude_patterns.add(re.compile(pattern))
        return self

    def xfail(self, pattern: str) -> Runner:
        """Mark the tests whose name ``pattern`` matches as expected failures."""
        self._xfail_patterns.add(re.compile(pattern))
        return self

    def enable_report(self) -> Runner:
        """Mark each test for onnx's coverage report (``pytest.mark.onnx_coverage``)."""
        import pytest

        for category, items in self._test_items.items():
            for item in items.values():
                item.func = pytest.mark.onnx_coverage(item.proto, category)(item.func)
        return self

    @property
    def _filtered_test_items(self) -> dict[str, dict[str, TestItem]]:
        # As onnx's: each read wraps the functions again (a skip's reason is the last pattern's).
        filtered: dict[str, dict[str, TestItem]] = {}
        for category, items in self._test_items.items():
            filtered[category] = {}
            for name, item in items.items():
                if self._include_patterns and not any(p.search(name) for p in self._include_patterns):
                    item.func = unittest.skip("no matched include pattern")(item.func)
                for exclude in self._exclude_patterns:
                    if exclude.search(name):
                        item.func = unittest.skip(f'matched exclude pattern "{exclude.pattern}"')(item.func)
                for xfail in self._xfail_patterns:
                    if xfail.search(name):
                        item.func = unittest.expectedFailure(item.func)
                filtered[category][name] = item
        return filtered

    @property
    def test_cases(self) -> dict[str, type[unittest.TestCase]]:
        """One ``unittest.TestCase`` class per category, by name: ``globals().update(runner.test_cases)``."""
        cases = {}
        for category, items in self._filtered_test_items.items():
            name = f"OnnxBackend{category}Test"
            case = self._get_test_case(name)
            for test_name, item in sorted(items.items()):
                setattr(case, test_name, item.func)
            cases[name] = case
        return cases

    @property
    def test_suite(self) -> unittest.TestSuite:
        """Every test in one suite: ``unittest.TextTestRunner().run(runner.test_suite)``."""
        suite = unittest.TestSuite()
        for case in sorted(self.test_cases.values(), key=lambda cl: cl.__class__.__name__):
            suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
        return suite

    @property
    def tests(self) -> type[unittest.TestCase]:
        """Every test in one ``unittest.TestCase`` class named ``OnnxBackendTest``."""
        tests = self._get_test_case("OnnxBackendTest")
        for items in sorted(self._filtered_test_items.values(), key=lambda cl: cl.__class__.__name__):
            for name, item in sorted(items.items()):
                setattr(tests, name, item.func)
        return tests

    @classmethod
    def assert_similar_outputs(
        cls,
        ref_outputs: Sequence[Any],
        outputs: Sequence[Any],
        rtol: float,
        atol: float,
        model_dir: str | None = None,
    ) -> None:
        """Raise ``AssertionError`` unless ``outputs`` match ``ref_outputs``: as many, each of
        the same shape and dtype and within ``rtol``/``atol`` (strings equal; sequences
        element by element; bfloat16 compared as float32 within two of its ulps)."""
        import numpy as np

        try:
            np.testing.assert_equal(len(outputs), len(ref_outputs))
        except TypeError as e:
            raise TypeError(
                f"Unable to compare expected type {type(ref_outputs)} "
                f"and runtime type {type(outputs)} (known test={model_dir or '?'!r})"
            ) from e
        for i, output in enumerate(outputs):
            expected = ref_outputs[i]
            if isinstance(output, (list, tuple)):
                if not isinstance(expected, (list, tuple)):
                    raise AssertionError(
                        f"Unexpected type {type(output)} for outputs[{i}]. Expected "
                        f"type is {type(expected)} (known test={model_dir or '?'!r})."
                    )
                for j in range(len(output)):
                    cls.assert_similar_outputs(expected[j], output[j], rtol, atol, model_dir=model_dir)
                continue
            np.testing.assert_array_equal(
                output.shape, expected.shape, err_msg=f"Output {i} has incorrect shape"
            )
            if expected.dtype == object:
                np.testing.assert_array_equal(output, expected)
                continue
            np.testing.assert_equal(output.dtype, expected.dtype)
            within = rtol
            if output.dtype.name == "bfloat16":  # numpy cannot mix it with a Python float
                within = max(rtol, 2**-6)
                output, expected = output.astype(np.float32), expected.astype(np.float32)
            np.testing.assert_allclose(output, expected, rtol=within, atol=atol)

    @classmethod
    @retry_execute(3)
    def download_model(cls, model_test: TestCase, models_dir: str) -> None:
        """Fetch ``model_test.url`` (a tar archive) and unpack it into ``models_dir``."""
        from urllib.request import urlretrieve

        with tempfile.TemporaryDirectory() as tmpdir:
            try:
                if not model_test.url:
                    raise ValueError(f"test case {model_test.name!r} has no url")
                print(f"Start downloading model {model_test.model_name} from {model_test.url}")
                filename = os.path.join(tmpdir, "file")
                urlretrieve(model_test.url, filename)
                print("Done")
                _safe_extract(filename, models_dir)
            except Exception as e:
                print(f"Failed to prepare data for model {model_test.model_name}: {e}")
                raise

    @classmethod
    def prepare_model_data(cls, model_test: TestCase) -> str:
        """The folder of ``model_test``'s model under ``$ONNX_MODELS`` (default
        ``$ONNX_HOME/models``, ``~/.onnx/models``), downloaded there when it has no
        ``model.onnx`` (a folder without one is moved aside to ``<folder>.old.N``)."""
        onnx_home = os.path.expanduser(os.getenv("ONNX_HOME", os.path.join("~", ".onnx")))
        models_dir = os.getenv("ONNX_MODELS", os.path.join(onnx_home, "models"))
        model_dir = os.path.join(models_dir, model_test.model_name)
        if not os.path.exists(os.path.join(model_dir, "model.onnx")):
            if os.path.exists(model_dir):
                n = 0
                while os.path.exists(f"{model_dir}.old.{n}"):
                    n += 1
                shutil.move(model_dir, f"{model_dir}.old.{n}")
            os.makedirs(model_dir)
            cls.download_model(model_test=model_test, models_dir=models_dir)
        return model_dir

    def _add_test(
        self,
        category: str,
        test_name: str,
        test_func: Callable[..., Any],
        report_item: list[Any],
        devices: Iterable[str] = ("CPU", "CUDA"),
        **kwargs: Any,
    ) -> None:
        if not test_name.startswith("test_"):
            raise ValueError(f"Test name must start with test_: {test_name}")

        def add_device_test(device: str) -> None:
            device_test_name = f"{test_name}_{device.lower()}"
            if device_test_name in self._test_items[category]:
                raise ValueError(f'Duplicated test name "{device_test_name}" in category "{category}"')

            @unittest.skipIf(
                not self.backend.supports_device(device), f"Backend doesn't support device {device}"
            )
            @functools.wraps(test_func)
            def device_test_func(*args: Any, **device_test_kwarg: Any) -> Any:
                try:
                    return test_func(*args, device, **{**kwargs, **device_test_kwarg})
                except BackendIsNotSupposedToImplementIt as e:
                    if "-v" in sys.argv or "--verbose" in sys.argv:
                        print(f"Test {device_test_name} is effectively skipped: {e}")
                    return None

            self._test_items[category][device_test_name] = TestItem(device_test_func, report_item)

        for device in devices:
            add_device_test(device)

    @staticmethod
    def generate_dummy_data(x: ValueInfoProto, seed: int = 0, name: str = "", random: bool = False) -> Any:
        """Input data for the float tensor ``x`` (an unknown axis sized 1): ``0, 1/n, 2/n, ...``
        or, with ``random``, uniform in [0, 1) from ``seed``."""
        import numpy as np

        if not x.type.tensor_type:
            raise NotImplementedError(
                f"Input expected to have tensor type. "
                f"Unable to generate random data for model {name!r} and input {x}."
            )
        if x.type.tensor_type.elem_type != TensorProto.DataType.FLOAT:
            raise NotImplementedError(
                f"Currently limited to float tensors. "
                f"Unable to generate random data for model {name!r} and input {x}."
            )
        shape = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in x.type.tensor_type.shape.dim)
        if random:
            return np.random.default_rng(seed=seed).random(shape, np.float32)
        n = np.prod(shape)
        return (np.arange(n).reshape(shape) / n).astype(np.float32)

    def _light_model(self, url: str) -> str:
        # onnx finds these beside its package: its data folder, under the URL's last parts
        return os.path.join(self._data_dir, *url[len("onnx/backend/test/data/") :].split("/"))

    def _add_model_test(self, model_test: TestCase, kind: str) -> None:
        # the model is loaded when the test runs (never, if it is skipped)
        model_marker: list[Any] = [None]

        def run_node(_: Any, device: str, **kwargs: Any) -> None:
            if model_test.data_sets is None or model_test.model is None:
                raise AssertionError(f"node case {model_test.name!r} has no model or data")
            model_marker[0] = model_test.model
            prepared = self.backend.prepare(model_test.model, device, **kwargs)
            if prepared is None:
                raise AssertionError(f"{self.backend.__name__}.prepare returned None")
            for inputs, ref_outputs in model_test.data_sets:
                outputs = prepared.run([_normalize_tensor(t) for t in inputs])
                self.assert_similar_outputs(
                    ref_outputs=[_normalize_tensor(t) for t in ref_outputs],
                    outputs=outputs,
                    rtol=kwargs.get("rtol", model_test.rtol),
                    atol=kwargs.get("atol", model_test.atol),
                    model_dir=model_test.model_dir,
                )

        def run(test_self: Any, device: str, **kwargs: Any) -> None:
            from wirecodec.onnx_compat import load_model

            if model_test.url is not None and model_test.url.startswith(_LIGHT_URL):
                model_pb_path = os.path.normpath(self._light_model(model_test.url))
                if not os.path.exists(model_pb_path):
                    raise FileNotFoundError(f"Unable to find model {model_pb_path!r}.")
                onnx_home = os.path.expanduser(os.getenv("ONNX_HOME", os.path.join("~", ".onnx")))
                models_dir = os.getenv("ONNX_MODELS", os.path.join(onnx_home, "models", "light"))
                model_dir = os.path.join(models_dir, model_test.model_name)
                os.makedirs(model_dir, exist_ok=True)
                use_dummy = True
            else:
                model_dir = model_test.model_dir or self.prepare_model_data(model_test)
                model_pb_path = os.path.join(model_dir, "model.onnx")
                use_dummy = False

            model = load_model(model_pb_path)
            model_marker[0] = model
            is_compatible = getattr(self.backend, "is_compatible", None)
            if callable(is_compatible) and not is_compatible(model):
                raise unittest.SkipTest("Not compatible with backend")
            prepared = self.backend.prepare(model, device, **kwargs)
            if prepared is None:
                raise AssertionError(f"{self.backend.__name__}.prepare returned None")
            if use_dummy:
                self._write_light_data(model_pb_path, model_dir, model_test.model_name)

            for data_dir in glob.glob(os.path.join(model_dir, "test_data_set*")):
                inputs: list[Any] = []
                for i in range(len(glob.glob(os.path.join(data_dir, "input_*.pb")))):
                    self._load_proto(
                        os.path.join(data_dir, f"input_{i}.pb"), inputs, model.graph.input[i].type
                    )
                ref_outputs: list[Any] = []
                for i in range(len(glob.glob(os.path.join(data_dir, "output_*.pb")))):
                    self._load_proto(
                        os.path.join(data_dir, f"output_{i}.pb"), ref_outputs, model.graph.output[i].type
                    )
                outputs = list(prepared.run(inputs))
                self.assert_similar_outputs(
                    ref_outputs,
                    outputs,
                    rtol=kwargs.get("rtol", model_test.rtol),
                    atol=kwargs.get("atol", model_test.atol),
                    model_dir=model_dir,
                )

        test = run_node if kind == "Node" and model_test.model_dir is None else run
        self._add_test(
            kind + "Model", model_test.name, test, model_marker, **self._test_kwargs.get(model_test.name, {})
        )

    def _write_light_data(self, model_pb_path: str, model_dir: str, model_name: str) -> None:
        """Write ``test_data_set_0`` of a light model: inputs from :meth:`generate_dummy_data`,
        outputs from the stored ``<model>_output_<i>.pb`` files, else computed by the
        reference evaluator."""
        from wirecodec.numpy_helper import from_array
        from wirecodec.onnx_compat import load_model

        onx = load_model(model_pb_path)
        data_set = os.path.join(model_dir, "test_data_set_0")
        os.makedirs(data_set, exist_ok=True)
        stored = {t.name for t in onx.graph.initializer}
        feeds: dict[str, Any] = {}
        for x in onx.graph.input:
            if x.name in stored:
                continue
            value = self.generate_dummy_data(x, seed=0, name=model_name, random=False)
            feeds[x.name] = value
            with open(os.path.join(data_set, f"input_{len(feeds) - 1}.pb"), "wb") as f:
                f.write(from_array(value).SerializeToString())
        prefix = os.path.splitext(model_pb_path)[0]
        expected = [f"{prefix}_output_{i}.pb" for i in range(len(onx.graph.output))]
        if all(os.path.exists(name) for name in expected):
            for i, name in enumerate(expected):
                shutil.copy(name, os.path.join(data_set, f"output_{i}.pb"))
            return
        from wirecodec.onnx_compat.reference import ReferenceEvaluator

        for i, value in enumerate(ReferenceEvaluator(onx).run(None, feeds)):
            with open(os.path.join(data_set, f"output_{i}.pb"), "wb") as f:
                f.write(from_array(value).SerializeToString())

    def _load_proto(self, proto_filename: str, target_list: list[Any], model_type_proto: TypeProto) -> None:
        from wirecodec import numpy_helper
        from wirecodec.protobuf.codec import decode

        with open(proto_filename, "rb") as f:
            content = f.read()
        if model_type_proto.HasField("sequence_type"):
            target_list.append(numpy_helper.to_list(decode(SequenceProto, content)))
        elif model_type_proto.HasField("tensor_type"):
            target_list.append(numpy_helper.to_array(decode(TensorProto, content)))
        elif model_type_proto.HasField("optional_type"):
            target_list.append(numpy_helper.to_optional(decode(OptionalProto, content)))
        else:
            print("Loading proto of that specific type (Map/Sparse Tensor) is currently not supported")
