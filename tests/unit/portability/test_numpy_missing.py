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


# Weights in Constant nodes (how many exporters ship them), each way a Constant holds a
# value, feeding a Reshape whose result depends on it: every verb that reads the graph
# works without numpy (WebAssembly has none), and with numpy the value is used as onnx uses it.
_CONSTANT_VALUES = {
    "value": lambda helper, np: {"value": helper.make_tensor("s", 7, [2], [3, 4])},
    "value_ints": lambda helper, np: {"value_ints": [3, 4]},
    "value_int": lambda helper, np: {"value_int": 12},
    "value_floats": lambda helper, np: {"value_floats": [1.5, 2.5]},
    "value_float": lambda helper, np: {"value_float": 0.5},
}


def _constant_model(path: pathlib.Path, kind: str) -> None:
    import pytest

    onnx = pytest.importorskip("onnx", reason="onnx.helper builds the model")
    import numpy as np
    from onnx import TensorProto, helper

    weight = helper.make_node("Constant", [], ["w"], **_CONSTANT_VALUES[kind](helper, np))
    width = 2 if kind == "value_floats" else 12
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [width])
    if kind in ("value", "value_ints"):  # z's shape is the Constant's value
        nodes = [weight, helper.make_node("Reshape", ["x", "w"], ["z"])]
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])
    elif kind == "value_int":
        axes = helper.make_node("Constant", [], ["axes"], value_ints=[0])
        nodes = [axes, weight, helper.make_node("Unsqueeze", ["w", "axes"], ["z"])]
        y = helper.make_tensor_value_info("y", TensorProto.INT64, [1])
    else:
        nodes = [weight, helper.make_node("Mul", ["x", "w"], ["z"])]
        y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [width])
    nodes.append(helper.make_node("Identity", ["z"], ["y"]))  # z: an intermediate to infer
    graph = helper.make_graph(nodes, "g", [x], [y])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


_VERBS_WITHOUT_NUMPY = """
import sys
sys.modules["numpy"] = None
from wirecodec.cli import main
for argv in (["convert", "m.onnx", "m.onnxz", "--to", "zip"], ["check", "--full", "m.onnxz"],
             ["infer-shapes", "m.onnx", "i.onnx"], ["inspect", "m.onnxz"], ["check", "--full", "i.onnx"]):
    code = main(argv)
    print(" ".join(argv[:2]), code, file=sys.stderr)
    assert code == 0, argv
"""


def test_verbs_read_weights_in_constant_nodes_without_numpy(tmp_path: pathlib.Path) -> None:
    import pytest

    onnx = pytest.importorskip("onnx", reason="onnx.helper builds the model; its inference is the oracle")
    import wirecodec
    from wirecodec.shape_inference import infer_shapes

    for kind in _CONSTANT_VALUES:
        folder = tmp_path / kind
        folder.mkdir()
        _constant_model(folder / "m.onnx", kind)
        done = subprocess.run(
            [sys.executable, "-c", _VERBS_WITHOUT_NUMPY],
            cwd=folder,
            capture_output=True,
            text=True,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, (kind, done.stderr[-2000:])
        # The zip holds the same graph; with numpy, the Constant's value shapes y as onnx's does.
        assert wirecodec.load(folder / "m.onnxz").graph == wirecodec.load(folder / "m.onnx").graph
        ours = infer_shapes(wirecodec.load(folder / "m.onnx"))
        theirs = onnx.shape_inference.infer_shapes(onnx.load(folder / "m.onnx"))
        mine = {v.name: v.type.SerializeToString() for v in ours.graph.value_info}
        expected = {v.name: v.type.SerializeToString() for v in theirs.graph.value_info}
        assert mine == expected, kind
        assert "z" in mine and b"\x12" in mine["z"], kind  # z inferred, with a shape
