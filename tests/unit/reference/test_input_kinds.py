"""Which input types a node takes: the schema's, and others of a kind the schema lists.

onnx's evaluator runs whatever numpy takes; ours refuses an input whose kind (float,
signed integer, unsigned integer, bool, string, complex) the operator's schema does not
list, with an ``InputTypeError`` (an ``EvaluationError`` and a ``TypeError``), and takes
a type the schema leaves out when it lists one of the same kind (float8 to Add, double to
QuantizeLinear), as onnx's own evaluator tests expect (docs/reference-evaluator.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wirecodec import helper
from wirecodec.errors import EvaluationError
from wirecodec.reference import ReferenceEvaluator
from wirecodec.reference._errors import InputTypeError, OperatorError

F, I64 = 1, 7  # TensorProto.FLOAT, INT64
FLOAT8E4M3FN, BFLOAT16, INT4, UINT2 = 17, 16, 22, 25


def _model(nodes, inputs, outputs, opset=18):  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in inputs],
        [helper.make_tensor_value_info(n, F, None) for n in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _through(op: str, to: int, opset: int = 18) -> ReferenceEvaluator:
    """X and Y cast to ``to``, then ``op``, then cast back to float."""
    nodes = [
        helper.make_node("Cast", ["X"], ["Xc"], to=to),
        helper.make_node("Cast", ["Y"], ["Yc"], to=to),
        helper.make_node(op, ["Xc", "Yc"], ["Zc"]),
        helper.make_node("Cast", ["Zc"], ["Z"], to=F),
    ]
    return ReferenceEvaluator(_model(nodes, ["X", "Y"], ["Z"], opset))


@pytest.mark.quick
def test_a_float_the_schema_does_not_list_is_computed() -> None:
    pytest.importorskip("ml_dtypes")
    x = np.array([0.5, 1.0, 2.0], np.float32)
    # Add-14 lists no float8; Add-7 (opset 12) lists no bfloat16
    (z,) = _through("Add", FLOAT8E4M3FN).run(None, {"X": x, "Y": x})
    assert z.dtype == np.float32 and z.tolist() == [1.0, 2.0, 4.0]
    (z,) = _through("Add", BFLOAT16, opset=12).run(None, {"X": x, "Y": x})
    assert z.tolist() == [1.0, 2.0, 4.0]


def test_small_integers_the_schema_does_not_list_are_computed() -> None:
    pytest.importorskip("ml_dtypes")
    x = np.array([0.0, 1.0, 2.0], np.float32)
    y = np.array([1.0, 1.0, 1.0], np.float32)
    for to in (INT4, UINT2):  # GreaterOrEqual-16 lists neither
        (z,) = _through("GreaterOrEqual", to).run(None, {"X": x, "Y": y})
        assert z.tolist() == [0.0, 1.0, 1.0]


def test_a_double_to_quantize_linear() -> None:
    scale = helper.make_tensor("scale", F, [1], [2.0])
    nodes = [helper.make_node("QuantizeLinear", ["X", "scale"], ["Q"])]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", F, None)],
        [helper.make_tensor_value_info("Q", 2, None)],
        [scale],
    )
    sess = ReferenceEvaluator(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]))
    (q,) = sess.run(None, {"X": np.array([1.0, 5.0, 600.0], np.float64)})  # QuantizeLinear-21 lists no double
    assert q.dtype == np.uint8 and q.tolist() == [0, 2, 255]


@pytest.mark.quick
def test_an_integer_to_an_operator_of_floats_is_refused() -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Sqrt", ["I"], ["Y"])], ["I"], ["Y"]))
    with pytest.raises(InputTypeError) as info:
        sess.run(None, {"I": np.array([4], np.int64)})
    error = info.value
    assert (
        isinstance(error, EvaluationError) and isinstance(error, TypeError) and isinstance(error, ValueError)
    )
    assert error.path == "graph.node[0]"
    # the reason lists what the schema takes, not what the kind widening adds
    assert "tensor(int64), which the operator does not take (it takes tensor(bfloat16)" in error.reason
    assert "float8" not in error.reason
    assert str(error.__cause__) == "Sqrt does not support integer input (tensor(int64))"


def test_unsigned_integers_are_not_taken_for_signed_ones() -> None:
    # Neg lists int8..int64 and floats, no unsigned type: uint8 stays refused
    sess = ReferenceEvaluator(_model([helper.make_node("Neg", ["U"], ["Y"])], ["U"], ["Y"]))
    with pytest.raises(InputTypeError, match=r"tensor\(uint8\), which the operator does not take") as info:
        sess.run(None, {"U": np.array([4], np.uint8)})
    assert "does not support unsigned integer input" in str(info.value.__cause__)
    assert sess.run(None, {"U": np.array([4], np.int16)})[0].tolist() == [-4]  # int16 is listed


def test_strings_and_bools_are_kinds_of_their_own() -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Add", ["A", "B"], ["Y"])], ["A", "B"], ["Y"]))
    for value in (np.array([True]), np.array(["a"], dtype=object)):
        with pytest.raises(InputTypeError):
            sess.run(None, {"A": value, "B": value})


@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("op", ["ReduceLogSum", "ReduceLogSumExp"])
def test_log_reductions_refuse_integers_the_old_schemas_list(op: str, opset: int) -> None:
    # the schemas before opset 28 list integer types; a logarithm of an integer is refused
    # by the operator (onnx/onnx#7141), as a TypeError naming the node
    graph = helper.make_graph(
        [helper.make_node(op, ["X"], ["Y"], keepdims=0)],
        "g",
        [helper.make_tensor_value_info("X", I64, None)],
        [helper.make_tensor_value_info("Y", I64, None)],
    )
    sess = ReferenceEvaluator(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]))
    with pytest.raises(OperatorError) as info:
        sess.run(None, {"X": np.array([1, 2, 3], np.int64)})
    assert isinstance(info.value, TypeError) and info.value.path == "graph.node[0]"
    assert f"{op} does not support integer input" in str(info.value.__cause__)
    x = np.array([1.0, 2.0, 3.0])
    (y,) = sess.run(None, {"X": x})  # a float still reduces
    expected = np.log(x.sum()) if op == "ReduceLogSum" else np.log(np.exp(x).sum())
    assert float(y) == pytest.approx(expected)


def test_log_reductions_refuse_integers_at_opset_28_by_the_schema() -> None:
    graph = helper.make_graph(
        [helper.make_node("ReduceLogSum", ["X"], ["Y"])],
        "g",
        [helper.make_tensor_value_info("X", I64, None)],
        [helper.make_tensor_value_info("Y", I64, None)],
    )
    sess = ReferenceEvaluator(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)]))
    with pytest.raises(InputTypeError) as info:
        sess.run(None, {"X": np.array([1], np.int64)})
    assert "does not support integer input" in str(info.value.__cause__)


def test_an_operator_refusing_its_inputs_is_a_type_error_too() -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Add", ["X", "Y"], ["Z"])], ["X", "Y"], ["Z"]))
    with pytest.raises(OperatorError, match="Add failed: ValueError") as info:
        sess.run(None, {"X": np.zeros(2, np.float32), "Y": np.zeros(3, np.float32)})
    assert isinstance(info.value, TypeError) and isinstance(info.value, ValueError)
    assert isinstance(info.value.__cause__, ValueError)


def test_an_output_changing_a_widened_type_is_refused() -> None:
    # the guard behind the widening: an output the schema types as a widened input (int4 in,
    # int8 out: numpy computing in a wider type) is an InputTypeError, never a silent change
    from types import SimpleNamespace

    from wirecodec.reference import _evaluator

    step: Any = SimpleNamespace(op_type="Abs", inputs=["X"], path="graph.node[0]")
    widened = [(0, "tensor(int4)", (0,))]
    with pytest.raises(InputTypeError, match=r"numpy computes output 0 as tensor\(int8\)"):
        _evaluator._kept(step, widened, (np.zeros(2, np.int8),))
    pytest.importorskip("ml_dtypes")
    import ml_dtypes

    _evaluator._kept(step, widened, (np.zeros(2, ml_dtypes.int4),))  # the same type passes
    _evaluator._kept(step, [(0, "tensor(int4)", ())], (np.zeros(2, np.int8),))  # an output typed apart
