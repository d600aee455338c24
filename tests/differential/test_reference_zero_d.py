"""Differential (issue 43): a 0-d result is a 0-d ``numpy.ndarray``, as onnx's evaluator
gives it, never a numpy scalar.

numpy returns a scalar (``numpy.float32``, not an array) for ``np.take`` with a 0-d
index, for a ufunc on 0-d inputs, for ``matmul`` of two vectors, for ``det`` of one
matrix; code that reads ``out.shape`` or writes into ``out`` then breaks. Each case runs
through our evaluator and onnx's; the type, dtype, shape and values of every output agree.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator as OnnxEvaluator  # noqa: E402

from wirecodec.reference import ReferenceEvaluator  # noqa: E402

V = np.array([1.0, 4.0, 2.0], np.float32)
S = np.array(2.0, np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3)
I0 = np.array(1, np.int64)

_REDUCE = (
    "ReduceSum ReduceMean ReduceMax ReduceMin ReduceProd ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp "
    "ReduceSumSquare"
)
# name -> (operator, inputs, attributes)
CASES: dict[str, tuple[str, list[Any], dict[str, Any]]] = {
    "gather-0d-index": ("Gather", [V, I0], {}),
    "gather-0d-index-axis-1": ("Gather", [M, I0], {"axis": 1}),
    "gathernd-to-0d": ("GatherND", [V, np.array([1], np.int64)], {}),
    "matmul-vectors": ("MatMul", [V, V], {}),
    "det-one-matrix": ("Det", [np.eye(2, dtype=np.float32) * 3], {}),
    "einsum-dot": ("Einsum", [V, V], {"equation": "i,i->"}),
    "size": ("Size", [V], {}),
    "isnan-0d": ("IsNaN", [S], {}),
    "isinf-0d": ("IsInf", [S], {}),
    "quantize-0d": ("QuantizeLinear", [S, S], {}),
    "add-0d": ("Add", [S, S], {}),
    "pow-0d": ("Pow", [S, S], {}),
    "relu-0d": ("Relu", [S], {}),
    "sqrt-0d": ("Sqrt", [S], {}),
    "sigmoid-0d": ("Sigmoid", [S], {}),
    "equal-0d": ("Equal", [S, S], {}),
    "not-0d": ("Not", [np.array(True)], {}),
    "where-0d": ("Where", [np.array(True), S, S], {}),
    "cast-0d": ("Cast", [S], {"to": TensorProto.INT64}),
    "clip-0d": ("Clip", [S, S, S], {}),
    "mod-0d": ("Mod", [np.array(5, np.int64), np.array(3, np.int64)], {}),
    "mean-0d": ("Mean", [S, S], {}),
    "squeeze-to-0d": ("Squeeze", [np.array([2.0], np.float32)], {}),
    "argmax-keepdims-0": ("ArgMax", [V], {"keepdims": 0}),
    "argmin-keepdims-0": ("ArgMin", [V], {"keepdims": 0}),
    **{f"{op.lower()}-keepdims-0": (op, [V], {"keepdims": 0}) for op in _REDUCE.split()},
}


def _model(op: str, inputs: list[Any], attrs: dict[str, Any]) -> Any:
    names = [f"i{k}" for k in range(len(inputs))]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)],
        "g",
        [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), None)
         for n, v in zip(names, inputs, strict=True)],
        [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _signature(value: Any) -> tuple[type, str, tuple[int, ...]]:
    return type(value), str(value.dtype), value.shape


@pytest.mark.quick
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_output_is_an_array_as_onnx_gives_it(name: str) -> None:
    op, inputs, attrs = CASES[name]
    model = _model(op, inputs, attrs)
    feeds = {f"i{k}": value for k, value in enumerate(inputs)}
    theirs = OnnxEvaluator(model).run(None, feeds)
    ours = ReferenceEvaluator(model.SerializeToString()).run(None, feeds)
    assert [_signature(v) for v in ours] == [_signature(v) for v in theirs]
    assert all(type(v) is np.ndarray for v in ours)
    for mine, reference in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(mine, reference, rtol=1e-6)


def test_a_0d_result_inside_an_if_branch_is_an_array() -> None:
    """Bodies run through the same steps: a Gather with a 0-d index in an If branch."""
    branch = helper.make_graph(
        [helper.make_node("Gather", ["v", "k"], ["b"])], "branch", [],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, None)],
    )  # fmt: skip
    graph = helper.make_graph(
        [helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=branch)],
        "g",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("k", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"c": np.array(True), "v": V, "k": I0}
    (theirs,) = OnnxEvaluator(model).run(None, feeds)
    (ours,) = ReferenceEvaluator(model.SerializeToString()).run(None, feeds)
    assert _signature(ours) == _signature(theirs) == (np.ndarray, "float32", ())
