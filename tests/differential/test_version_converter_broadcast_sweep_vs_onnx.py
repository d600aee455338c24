"""The opset converter's broadcasting adapters over every shape and attribute edge, against
onnx's converter (the same node attributes and node list where both convert; refusals
agree) and, going up, against onnxruntime running the converted model on the original's
inputs (the values numpy's broadcast gives from opset 6's rule).

* Gemm 6 <-> 7: transA and transB absent, 0 or 1; A and B not square (M != N != K); C of
  every shape that broadcasts to (M, N) by opset 6's rule and some that do not.
* Add, Mul 6 -> 7 with ``broadcast=1``: B of every shape, with ``axis`` absent, at the
  start, at the end (the suffix position), negative; wherever opset 6's rule places B the
  conversion must succeed and compute that placement (onnxruntime runs it).
* Add, Mul 7 -> 6: every pair of shapes where B is a suffix of A with 1s anywhere, and
  some where it is not.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's converter is the reference")

from onnx import TensorProto, helper, version_converter  # noqa: E402

from schema_dsl.onnx import ModelProto  # noqa: E402
from wirecodec.errors import ConvertError  # noqa: E402
from wirecodec.protobuf.codec import decode, encode  # noqa: E402
from wirecodec.version_converter import convert_version  # noqa: E402

F = TensorProto.FLOAT
M, K, N = 2, 3, 4


def _model(node: Any, shapes: dict[str, list[int]], opset: int) -> Any:
    inputs = [helper.make_tensor_value_info(name, F, shape) for name, shape in shapes.items()]
    graph = helper.make_graph([node], "g", inputs, [helper.make_tensor_value_info("y", F, None)])
    return helper.make_model(graph, ir_version=7, opset_imports=[helper.make_opsetid("", opset)])


def _nodes(model: Any) -> list[tuple[str, list[tuple[str, Any]]]]:
    """Each node's operator and attributes (by name, values), in order."""
    return [
        (n.op_type, sorted((a.name, helper.get_attribute_value(a)) for a in n.attribute))
        for n in model.graph.node
    ]


def _both(model: Any, target: int) -> tuple[Any, Any]:
    try:
        theirs = version_converter.convert_version(model, target)
    except Exception:  # onnx raises RuntimeError / its own errors
        theirs = None
    try:
        ours = onnx.ModelProto.FromString(
            encode(convert_version(decode(ModelProto, model.SerializeToString()), target))
        )
    except ConvertError:
        ours = None
    return theirs, ours


def _gemm_cases() -> list[tuple[str, Any, int]]:
    cases = []
    c_shapes = {
        "MN": [M, N],
        "N": [N],
        "1N": [1, N],
        "M1": [M, 1],
        "1": [1],
        "11": [1, 1],
        "NM": [N, M],
        "M": [M],
    }
    for (start, target), ta, tb, (cn, c) in itertools.product(
        ((6, 7), (7, 6)), (None, 0, 1), (None, 0, 1), c_shapes.items()
    ):
        attrs: dict[str, Any] = {}
        if ta is not None:
            attrs["transA"] = ta
        if tb is not None:
            attrs["transB"] = tb
        if start == 6:
            attrs["broadcast"] = 1 if c != [M, N] else 0
        a = [K, M] if ta == 1 else [M, K]
        b = [N, K] if tb == 1 else [K, N]
        node = helper.make_node("Gemm", ["a", "b", "c"], ["y"], **attrs)
        cases.append(
            (
                f"gemm-{start}-{target}-A{ta}-B{tb}-C{cn}",
                _model(node, {"a": a, "b": b, "c": c}, start),
                target,
            )
        )
    return cases


def _up_cases() -> list[tuple[str, Any, int]]:
    cases = []
    first = [2, 3, 4]
    seconds = {"4": [4], "34": [3, 4], "3": [3], "23": [2, 3], "2": [2], "234": [2, 3, 4]}
    for op, (bn, b), axis in itertools.product(("Add", "Mul"), seconds.items(), (None, 0, 1, 2, -1, -2)):
        attrs: dict[str, Any] = {"broadcast": 1}
        if axis is not None:
            attrs["axis"] = axis
        node = helper.make_node(op, ["a", "b"], ["y"], **attrs)
        cases.append((f"{op}-6-7-B{bn}-axis{axis}", _model(node, {"a": first, "b": b}, 6), 7))
    return cases


def _down_cases() -> list[tuple[str, Any, int]]:
    cases = []
    first = [2, 3]
    seconds = {
        "23": [2, 3],
        "13": [1, 3],
        "21": [2, 1],
        "11": [1, 1],
        "3": [3],
        "1": [1],
        "2": [2],
        "123": [1, 2, 3],
    }
    for op, (bn, b) in itertools.product(("Add", "Mul"), seconds.items()):
        node = helper.make_node(op, ["a", "b"], ["y"])
        cases.append((f"{op}-7-6-B{bn}", _model(node, {"a": first, "b": b}, 7), 6))
    return cases


def _run(model: Any, feeds: dict[str, Any]) -> Any:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the converted models")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)[0]


def _feeds(model: Any) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    feeds = {}
    for value in model.graph.input:
        shape = [d.dim_value for d in value.type.tensor_type.shape.dim]
        feeds[value.name] = rng.standard_normal(shape).astype(np.float32)
    return feeds


@pytest.mark.parametrize("family", ["gemm", "down"])
def test_broadcasting_adapters_over_their_edges_convert_as_onnx(family: str) -> None:
    # (Up from 6 with an axis, onnx's converter is no judge: it refuses placements opset 6
    # allows and converts ones that misalign; onnxruntime judges those, below.)
    cases = {"gemm": _gemm_cases, "down": _down_cases}[family]()
    disagreements = []
    for name, model, target in cases:
        theirs, ours = _both(model, target)
        if (theirs is None) != (ours is None):
            disagreements.append((name, "onnx converts" if theirs is not None else "onnx refuses"))
        elif ours is not None and _nodes(ours) != _nodes(theirs):
            disagreements.append((name, _nodes(ours), _nodes(theirs)))
    assert disagreements == []


def test_broadcast_axes_going_up_compute_what_opset_6_meant() -> None:
    """Where wirecodec converts an explicit-axis broadcast, the converted model computes
    opset 6's meaning: B aligned at ``axis`` of A (numpy, after B's trailing 1s)."""
    checked = 0
    for name, model, target in _up_cases():
        _, ours = _both(model, target)
        node = model.graph.node[0]
        axis = next((a.i for a in node.attribute if a.name == "axis"), None)
        a = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
        b = [d.dim_value for d in model.graph.input[1].type.tensor_type.shape.dim]
        at = None if axis is None else axis + (len(a) if axis < 0 else 0)
        start = len(a) - len(b) if at is None else at  # where opset 6 places B
        fits = start >= 0 and a[start : start + len(b)] == b
        if not fits:
            continue
        assert ours is not None, name  # opset 6's rule places B: the conversion must not refuse
        feeds = _feeds(model)
        expected_b = feeds["b"].reshape(b + [1] * (len(a) - start - len(b)))
        expected = feeds["a"] + expected_b if node.op_type == "Add" else feeds["a"] * expected_b
        np.testing.assert_allclose(_run(ours, feeds), expected, rtol=1e-6, err_msg=name)
        checked += 1
    assert checked >= 10
