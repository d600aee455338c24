"""Differential (issue 43): the evaluator checks the type of *every* input a schema
constrains, as onnxruntime does when it loads the model: each value of a variadic input
(Sum, Mean: the second and later values too), and an input typed without a type
variable (Reshape's ``shape``, Tile's ``repeats``: ``tensor(int64)``). An input of another
kind is an ``InputTypeError`` here and a refused model there; the same model with the
types the schema lists runs alike in both. (Where the schema lists both kinds, as Max's and
Concat's do, onnxruntime still refuses values of two types bound to one type variable and
the evaluator, as onnx's, computes them: not checked here.)"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference")
onnx = pytest.importorskip("onnx", reason="models are built with onnx.helper")
from onnx import TensorProto, helper  # noqa: E402

from wirecodec.reference import ReferenceEvaluator  # noqa: E402
from wirecodec.reference._errors import InputTypeError  # noqa: E402

F, I32, I64, U8 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8
NUMPY = {F: np.float32, I32: np.int32, I64: np.int64, U8: np.uint8}


def _model(op: str, types: list[int], out: int, **attrs: Any) -> Any:
    names = [f"x{i}" for i in range(len(types))]
    graph = helper.make_graph(
        [helper.make_node(op, names, ["y"], **attrs)],
        "g",
        [helper.make_tensor_value_info(n, t, None) for n, t in zip(names, types, strict=True)],
        [helper.make_tensor_value_info("y", out, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def _feeds(op: str, types: list[int]) -> dict[str, Any]:
    if op in ("Reshape", "Tile"):
        second = [3, 2] if op == "Reshape" else [2, 1]
        return {"x0": np.arange(6, dtype=np.float32).reshape(2, 3), "x1": np.array(second, NUMPY[types[1]])}
    return {f"x{i}": np.arange(1, 7).astype(NUMPY[t]).reshape(2, 3) for i, t in enumerate(types)}


def _onnxruntime(model: Any, feeds: dict[str, Any]) -> list[Any]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


# (operator, input types, attributes): the types onnxruntime refuses
REFUSED = [
    ("Sum", [F, I32], {}),
    ("Sum", [F, F, I32], {}),
    ("Mean", [F, F, I64], {}),
    ("Reshape", [F, U8], {}),
    ("Tile", [F, F], {}),
]


@pytest.mark.parametrize(("op", "types", "attrs"), REFUSED, ids=str)
def test_an_input_of_another_kind_is_refused_as_onnxruntime_refuses_it(
    op: str, types: list[int], attrs: dict[str, Any]
) -> None:
    model = _model(op, types, F, **attrs)
    feeds = _feeds(op, types)
    with pytest.raises(Exception, match=r"(?i)type"):
        _onnxruntime(model, feeds)
    with pytest.raises(InputTypeError):
        ReferenceEvaluator(model.SerializeToString()).run(None, feeds)


ACCEPTED = [
    ("Sum", [F, F, F], {}),
    ("Max", [I64, I64, I64], {}),
    ("Concat", [I32, I32, I32], {"axis": 1}),
    ("Reshape", [F, I64], {}),
    ("Tile", [F, I64], {}),
]


@pytest.mark.parametrize(("op", "types", "attrs"), ACCEPTED, ids=str)
def test_the_types_the_schema_lists_run_as_in_onnxruntime(
    op: str, types: list[int], attrs: dict[str, Any]
) -> None:
    out = F if op in ("Reshape", "Tile") else types[0]
    model = _model(op, types, out, **attrs)
    feeds = _feeds(op, types)
    (expected,) = _onnxruntime(model, feeds)
    (got,) = ReferenceEvaluator(model.SerializeToString()).run(None, feeds)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
