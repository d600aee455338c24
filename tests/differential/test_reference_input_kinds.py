"""Differential (issue 43): an input of a type the operator's schema does not list, but of a
kind it lists (float8, bfloat16 or double where floats are listed, int4/int2 or int64 where
signed integers are, uint4/uint2 where unsigned ones are), is computed as onnx's evaluator
computes it: the same element type and values, operator by operator.

The values enter as float, are cast to the type under test, go through the operator and
(for a result of that type) are cast back to float, as onnx's own evaluator tests do
(``test_add_custom_dtype``, ``test_cmp_custom_dtype``). What we still refuse where onnx's
evaluator computes (an input of a kind the schema does not list) is checked apart.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference")
pytest.importorskip("ml_dtypes", reason="the small float and integer types are ml_dtypes arrays")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator as OnnxEvaluator  # noqa: E402

from wirecodec.reference import ReferenceEvaluator  # noqa: E402
from wirecodec.reference._errors import InputTypeError, OperatorError  # noqa: E402

T = TensorProto
SMALL_FLOATS = (T.FLOAT8E4M3FN, T.FLOAT8E4M3FNUZ, T.FLOAT8E5M2, T.FLOAT8E5M2FNUZ)
SMALL_SIGNED = (T.INT4, T.INT2)
SMALL_UNSIGNED = (T.UINT4, T.UINT2)
# operator -> (arity, gives a bool)
OPERATORS = {
    "Add": (2, False),
    "Sub": (2, False),
    "Mul": (2, False),
    "Max": (2, False),
    "Min": (2, False),
    "Abs": (1, False),
    "Neg": (1, False),
    "Relu": (1, False),
    "Less": (2, True),
    "Greater": (2, True),
    "Equal": (2, True),
    "GreaterOrEqual": (2, True),
    "LessOrEqual": (2, True),
}
X = np.array([[0.0, 0.5, 1.0], [1.5, -1.0, 2.0]], np.float32)
Y = np.array([[1.0, 0.5, -0.5], [1.0, 2.0, 0.0]], np.float32)


def _model(op: str, to: int, opset: int) -> Any:
    arity, boolean = OPERATORS[op]
    names = ["X", "Y"][:arity]
    nodes = [helper.make_node("Cast", [n], [n + "c"], to=to) for n in names]
    nodes.append(helper.make_node(op, [n + "c" for n in names], ["Zc"]))
    nodes.append(helper.make_node("Cast", ["Zc"], ["Z"], to=T.BOOL if boolean else T.FLOAT))
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, T.FLOAT, None) for n in names],
        [helper.make_tensor_value_info("Z", T.BOOL if boolean else T.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=9)


def _cases() -> list[Any]:
    cases = []
    for op in OPERATORS:
        unsigned_ok = op not in {"Neg", "Relu"}  # they list no unsigned type: refused
        kinds = [*SMALL_FLOATS, *SMALL_SIGNED, *(SMALL_UNSIGNED if unsigned_ok else ())]
        cases += [pytest.param(op, to, 18, id=f"{op}-{T.DataType.Name(to)}") for to in kinds]
    cases.append(pytest.param("Add", T.BFLOAT16, 12, id="Add-BFLOAT16-opset12"))
    return cases


def _listed(op: str, opset: int, to: int) -> bool:
    schema = onnx.defs.get_schema(op, opset, "")
    name = f"tensor({helper.tensor_dtype_to_string(to).removeprefix('TensorProto.').lower()})"
    return any(name in c.allowed_type_strs for c in schema.type_constraints)


@pytest.mark.parametrize(("op", "to", "opset"), _cases())
def test_a_type_of_a_listed_kind_computes_as_onnx(op: str, to: int, opset: int) -> None:
    model = _model(op, to, opset)
    feeds = {"X": X, "Y": Y}
    names = ["X", "Y"][: OPERATORS[op][0]]
    feeds = {n: feeds[n] for n in names}
    ours = ReferenceEvaluator(model.SerializeToString())
    try:
        (expected,) = OnnxEvaluator(model).run(None, feeds)
    except onnx.reference.op_run.RuntimeTypeError:
        # numpy computes Abs, Neg, Max, Min of int4/int2 in int8 and onnx's evaluator refuses the
        # changed type; ours keeps the type: the operator on the values in int64, wrapped back
        # (onnx's evaluator runs every node whatever is asked: the casts are read from ours,
        # Cast being judged by the backend node tests)
        got, *cast = (
            v.astype(np.int64) if i else v
            for i, v in enumerate(ours.run(["Zc", *[n + "c" for n in names]], feeds))
        )
        wide = {"Max": np.maximum, "Min": np.minimum, "Abs": np.abs, "Neg": np.negative}[op](*cast)
        assert got.dtype == helper.tensor_dtype_to_np_dtype(to)
        np.testing.assert_array_equal(got.astype(np.int64), wide.astype(got.dtype).astype(np.int64))
        return
    (got,) = ours.run(None, feeds)
    assert type(got) is type(expected) and got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


def test_the_cases_are_outside_the_schemas_lists() -> None:
    # the cases test the widening only if the schema really leaves their type out
    outside = [
        (op, to, opset) for op, to, opset in (c.values for c in _cases()) if not _listed(op, opset, to)
    ]
    assert len(outside) >= 40


def test_quantize_linear_of_a_double_through_a_float_input_as_onnx() -> None:
    # onnx's test_quantize_linear_int4 feeds float64 (and int64) through an input declared FLOAT
    zero = helper.make_tensor("zero", T.INT4, [1], [0])
    scale = helper.make_tensor("scale", T.FLOAT, [1], [2.0])
    nodes = [
        helper.make_node("QuantizeLinear", ["X", "scale", "zero"], ["Q"]),
        helper.make_node("DequantizeLinear", ["Q", "scale"], ["Y"], axis=0),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", T.FLOAT, [None])],
        [helper.make_tensor_value_info("Y", T.FLOAT, [None])],
        [scale, zero],
    )
    model = helper.make_model(graph)
    for data in (np.array([-20, -14.5, 0, 1.5, 2, 3.3, 10, 20]), np.array([0, 3, 40])):
        (expected,) = OnnxEvaluator(model).run(None, {"X": data})
        (got,) = ReferenceEvaluator(model.SerializeToString()).run(None, {"X": data})
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("opset", [13, 18, 28])
def test_a_log_reduction_of_integers_is_a_type_error_in_both(opset: int) -> None:
    node = helper.make_node("ReduceLogSum", ["X"], ["Y"], keepdims=0)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("X", T.INT64, None)],
        [helper.make_tensor_value_info("Y", T.INT64, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {"X": np.array([1, 2, 3], np.int64)}
    with pytest.raises(TypeError) as theirs:
        OnnxEvaluator(model).run(None, feeds)
    with pytest.raises((InputTypeError, OperatorError)) as ours:
        ReferenceEvaluator(model.SerializeToString()).run(None, feeds)
    assert isinstance(ours.value, TypeError)
    assert "does not support integer input" in str(theirs.value.__cause__)
    assert "does not support integer input" in str(ours.value.__cause__)
