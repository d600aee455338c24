"""The reference evaluator against onnx's: an input that also has an initializer (its default)
is computed with the value given (a feed, or a Loop body's carried value); a 0-d result
numpy gives as a scalar (Add of 0-d inputs, MatMul of vectors, Gather at a 0-d index) comes
back as an array. And ReduceLogSumExp over a row of -inf gives -inf, as onnxruntime does
(log of a sum of zeros; onnx's own reference evaluator gives nan there, so onnxruntime is
the reference for that one)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wirecodec import helper
from wirecodec.numpy_helper import from_array
from wirecodec.reference import ReferenceEvaluator

onnx = pytest.importorskip("onnx", reason="onnx's reference evaluator is the reference")
from onnx.reference import ReferenceEvaluator as TheirEvaluator  # noqa: E402

F = 1


def _both(model: Any, feeds: dict[str, Any]) -> tuple[list[Any], list[Any]]:
    ours = ReferenceEvaluator(model).run(None, feeds)
    theirs = TheirEvaluator(onnx.load_from_string(model.SerializeToString())).run(None, feeds)
    return ours, theirs


def test_a_fed_input_wins_over_its_initializer() -> None:
    graph = helper.make_graph(
        [helper.make_node("Neg", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", F, [2])],
        [helper.make_tensor_value_info("y", F, [2])],
        [from_array(np.array([1.0, 2.0], np.float32), "x")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feed = np.array([5.0, 7.0], np.float32)
    ours, theirs = _both(model, {"x": feed})
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[0], -feed)


def test_reduce_log_sum_exp_of_a_row_of_minus_inf_is_minus_inf_as_onnxruntime() -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference here")
    graph = helper.make_graph(
        [helper.make_node("ReduceLogSumExp", ["x", "axes"], ["y"], keepdims=0)],
        "g",
        [helper.make_tensor_value_info("x", F, [2, 2])],
        [helper.make_tensor_value_info("y", F, [2])],
        [from_array(np.array([1], np.int64), "axes")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    data = np.array([[-np.inf, -np.inf], [0.0, 0.0]], np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    theirs = session.run(None, {"x": data})[0]
    with np.errstate(all="ignore"):
        ours = ReferenceEvaluator(model).run(None, {"x": data})[0]
    np.testing.assert_array_equal(ours, theirs)
    assert ours[0] == -np.inf


def test_a_zero_d_result_is_an_array() -> None:
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        "g",
        [helper.make_tensor_value_info("a", F, []), helper.make_tensor_value_info("b", F, [])],
        [helper.make_tensor_value_info("y", F, [])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"a": np.array(1.5, np.float32), "b": np.array(2.0, np.float32)}
    ours, theirs = _both(model, feeds)
    assert type(ours[0]) is type(theirs[0]) is np.ndarray
    assert ours[0].shape == () and ours[0] == 3.5


def test_a_loop_body_input_wins_over_a_body_initializer_of_its_name() -> None:
    # The body's initializer 'a_in' is a default: each iteration's carried value replaces it.
    body = helper.make_graph(
        [
            helper.make_node("Add", ["a_in", "one"], ["a_out"]),
            helper.make_node("Identity", ["c_in"], ["c_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", 7, []),
            helper.make_tensor_value_info("c_in", 9, []),
            helper.make_tensor_value_info("a_in", F, [1]),
        ],
        [helper.make_tensor_value_info("c_out", 9, []), helper.make_tensor_value_info("a_out", F, [1])],
        [from_array(np.array([100.0], np.float32), "a_in"), from_array(np.array([1.0], np.float32), "one")],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["n", "c", "a"], ["a_final"], body=body)],
        "g",
        [
            helper.make_tensor_value_info("n", 7, []),
            helper.make_tensor_value_info("c", 9, []),
            helper.make_tensor_value_info("a", F, [1]),
        ],
        [helper.make_tensor_value_info("a_final", F, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"n": np.array(3, np.int64), "c": np.array(True), "a": np.array([0.0], np.float32)}
    ours, theirs = _both(model, feeds)
    np.testing.assert_array_equal(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[0], [3.0])


def test_matmul_of_vectors_and_gather_at_a_0_d_index_give_arrays() -> None:
    # numpy gives a scalar for both (np.matmul of 1-d inputs, np.take at a 0-d index).
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "y"], ["z"]), helper.make_node("Gather", ["x", "k"], ["w"])],
        "g",
        [
            helper.make_tensor_value_info("x", F, [2]),
            helper.make_tensor_value_info("y", F, [2]),
            helper.make_tensor_value_info("k", 7, []),
        ],
        [helper.make_tensor_value_info("z", F, []), helper.make_tensor_value_info("w", F, [])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"x": np.array([1, 2], np.float32), "y": np.array([3, 4], np.float32), "k": np.array(1, np.int64)}
    ours, theirs = _both(model, feeds)
    assert [type(v) for v in ours] == [type(v) for v in theirs] == [np.ndarray, np.ndarray]
    assert [float(v) for v in ours] == [11.0, 2.0]
