"""Without numpy, making an array raises NumpyMissingError: a WireCodecError that code
catching a missing module (``except ModuleNotFoundError as e: if e.name == "numpy"``)
recognises too, as the error's docstring promises."""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]

_SCRIPT = """
import sys
sys.modules["numpy"] = None  # import numpy now fails, as where it is not installed
import wirecodec
from wirecodec.cli import EXAMPLE
tensor = wirecodec.load(EXAMPLE).graph.initializer[0]
try:
    wirecodec.to_array(tensor)
except ModuleNotFoundError as error:
    print(type(error).__name__, error.name, isinstance(error, wirecodec.WireCodecError))
    print(error)
"""


def _without_numpy(script: str) -> subprocess.CompletedProcess[str]:
    """``script`` run in a fresh interpreter (it blocks numpy itself); it must succeed."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_the_missing_numpy_error_names_numpy_as_module_not_found_errors_do() -> None:
    done = _without_numpy(_SCRIPT)
    first, message = done.stdout.splitlines()
    assert first == "NumpyMissingError numpy True"
    assert message == "this needs numpy, which is not installed (pip install numpy)"


_ONNX_SHAPED = """
import sys
sys.modules["numpy"] = None
import wirecodec.onnx_compat as onnx
from wirecodec.cli import EXAMPLE
model = onnx.load(EXAMPLE)
onnx.checker.check_model(model)
print(model.graph.node[0].op_type, "numpy" in sys.modules and sys.modules["numpy"] is not None)
try:
    onnx.numpy_helper.to_array(model.graph.initializer[0])
except ModuleNotFoundError as error:
    print(type(error).__name__)
"""


def test_the_onnx_shaped_namespace_loads_and_checks_without_numpy() -> None:
    done = _without_numpy(_ONNX_SHAPED)
    assert done.stdout.split() == ["Gemm", "False", "NumpyMissingError"]
