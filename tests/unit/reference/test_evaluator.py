"""The reference evaluator's contract: feeds, scopes, functions, custom ops, and its errors."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from wirecodec import encode, helper
from wirecodec.errors import EvaluationError, WireCodecError
from wirecodec.reference import OpRun, ReferenceEvaluator

F = 1  # TensorProto.FLOAT


def _model(nodes, inputs, outputs, opset=21, functions=(), domains=()):  # type: ignore[no-untyped-def]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, F, None) for n in inputs],
        [helper.make_tensor_value_info(n, F, None) for n in outputs],
    )
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    return helper.make_model(graph, opset_imports=opsets, functions=list(functions))


def _x(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


@pytest.mark.quick
def test_runs_a_chain_and_returns_outputs_in_the_order_asked() -> None:
    nodes = [helper.make_node("Add", ["X", "Y"], ["S"]), helper.make_node("Mul", ["S", "S"], ["P"])]
    sess = ReferenceEvaluator(_model(nodes, ["X", "Y"], ["S", "P"]))
    s, p = sess.run(None, {"X": _x(1, 2), "Y": _x(3, 4)})
    assert s.tolist() == [4, 6] and p.tolist() == [16, 36] and p.dtype == np.float32
    (only,) = sess.run(["P"], {"X": _x(1), "Y": _x(1)})
    assert only.tolist() == [4]
    assert sess.input_names == ["X", "Y"] and sess.output_names == ["S", "P"]


def test_takes_bytes_and_paths(tmp_path: pathlib.Path) -> None:
    model = _model([helper.make_node("Neg", ["X"], ["Y"])], ["X"], ["Y"])
    path = tmp_path / "m.onnx"
    path.write_bytes(encode(model))
    for source in (encode(model), str(path), path):
        assert ReferenceEvaluator(source).run(None, {"X": _x(2)})[0].tolist() == [-2]


def test_schema_defaults_fill_missing_attributes() -> None:
    # LeakyRelu's alpha defaults to 0.01 in its schema
    sess = ReferenceEvaluator(_model([helper.make_node("LeakyRelu", ["X"], ["Y"])], ["X"], ["Y"]))
    assert sess.run(None, {"X": _x(-100)})[0].tolist() == pytest.approx([-1.0])


def test_if_branches_read_the_outer_scope() -> None:
    then_g = helper.make_graph(
        [helper.make_node("Add", ["A", "A"], ["T"])],
        "then",
        [],
        [helper.make_tensor_value_info("T", F, None)],
    )
    else_g = helper.make_graph(
        [helper.make_node("Neg", ["A"], ["E"])], "else", [], [helper.make_tensor_value_info("E", F, None)]
    )
    nodes = [
        helper.make_node("Identity", ["X"], ["A"]),
        helper.make_node("If", ["C"], ["Y"], then_branch=then_g, else_branch=else_g),
    ]
    model = _model(nodes, ["X", "C"], ["Y"])
    sess = ReferenceEvaluator(model)
    assert sess.run(None, {"X": _x(3), "C": np.array(True)})[0].tolist() == [6]
    assert sess.run(None, {"X": _x(3), "C": np.array(False)})[0].tolist() == [-3]


def test_loop_carries_state_and_stacks_scan_outputs() -> None:
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Add", ["acc_in", "step"], ["acc_out"]),
            helper.make_node("Identity", ["acc_out"], ["scan"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", 7, []),
            helper.make_tensor_value_info("cond_in", 9, []),
            helper.make_tensor_value_info("acc_in", F, None),
        ],
        [helper.make_tensor_value_info(n, F, None) for n in ("cond_out", "acc_out", "scan")],
    )
    node = helper.make_node("Loop", ["N", "", "A0"], ["A", "S"], body=body)
    sess = ReferenceEvaluator(_model([node], ["N", "A0", "step"], ["A", "S"]))
    a, s = sess.run(None, {"N": np.array(3, dtype=np.int64), "A0": _x(0), "step": _x(2)})
    assert a.tolist() == [6] and s.tolist() == [[2], [4], [6]]


def test_model_local_functions_run_with_their_attributes() -> None:
    fn = helper.make_function(
        "custom",
        "Scale",
        ["x"],
        ["y"],
        [
            helper.make_node("Constant", [], ["k"], value_float=0.0),
            helper.make_node("CastLike", ["k", "x"], ["kk"]),
            helper.make_node("Add", ["x", "x"], ["y"]),
        ],
        [helper.make_opsetid("", 21)],
    )
    node = helper.make_node("Scale", ["X"], ["Y"], domain="custom")
    sess = ReferenceEvaluator(_model([node], ["X"], ["Y"], functions=[fn], domains=["custom"]))
    assert sess.run(None, {"X": _x(1.5)})[0].tolist() == [3.0]


class Twice(OpRun):
    op_domain = "custom"

    def _run(self, x, factor=2):  # type: ignore[no-untyped-def]
        return (x * factor,)


def test_new_ops_take_the_node_attributes() -> None:
    node = helper.make_node("Twice", ["X"], ["Y"], domain="custom", factor=5)
    sess = ReferenceEvaluator(_model([node], ["X"], ["Y"], domains=["custom"]), new_ops=[Twice])
    assert sess.run(None, {"X": _x(2)})[0].tolist() == [10]


def test_verbose_prints_each_result(capsys: pytest.CaptureFixture[str]) -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Neg", ["X"], ["Y"])], ["X"], ["Y"]), verbose=2)
    sess.run(None, {"X": _x(1, 2)})
    assert capsys.readouterr().out == "Neg(X) -> Y\n"
    sess.verbose = sess._graph.verbose = 3
    sess.run(None, {"X": _x(1, 2)})
    assert (
        capsys.readouterr().out
        == " +I X: float32:(2,) in [1.0, 2.0]\nNeg(X) -> Y\n + Y: float32:(2,) in [-2.0, -1.0]\n"
    )
    sess.verbose = sess._graph.verbose = 4
    sess.run(None, {"X": _x(1, 2)})
    assert " + Y: float32:(2,):[-1.0, -2.0]\n" in capsys.readouterr().out


# -- bad input: one typed error naming the node ---------------------------------------------


@pytest.mark.quick
def test_unknown_operator_names_the_node() -> None:
    nodes = [helper.make_node("Neg", ["X"], ["A"]), helper.make_node("Frobnicate", ["A"], ["Y"])]
    with pytest.raises(EvaluationError, match="unknown operator 'Frobnicate'") as info:
        ReferenceEvaluator(_model(nodes, ["X"], ["Y"]))
    assert info.value.path == "graph.node[1]"
    assert isinstance(info.value, WireCodecError) and isinstance(info.value, ValueError)


def test_missing_input_names_the_graph_input() -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Add", ["X", "Y"], ["Z"])], ["X", "Y"], ["Z"]))
    with pytest.raises(EvaluationError, match="input 'Y' is not fed") as info:
        sess.run(None, {"X": _x(1)})
    assert info.value.path == "graph.input[1]"


def test_an_undefined_name_names_the_node() -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Neg", ["nowhere"], ["Y"])], [], ["Y"]))
    with pytest.raises(EvaluationError, match="'nowhere' is neither fed nor computed") as info:
        sess.run(None, {})
    assert info.value.path == "graph.node[0]"


def test_a_type_the_operator_does_not_take() -> None:
    nodes = [helper.make_node("Neg", ["X"], ["A"]), helper.make_node("Sqrt", ["I"], ["Y"])]
    sess = ReferenceEvaluator(_model(nodes, ["X", "I"], ["Y"]))
    with pytest.raises(EvaluationError, match=r"tensor\(int64\), which the operator does not take") as info:
        sess.run(None, {"X": _x(1), "I": np.array([4], dtype=np.int64)})
    assert info.value.path == "graph.node[1]"


def test_shapes_that_do_not_fit() -> None:
    sess = ReferenceEvaluator(_model([helper.make_node("Add", ["X", "Y"], ["Z"])], ["X", "Y"], ["Z"]))
    with pytest.raises(EvaluationError, match="Add failed: ValueError") as info:
        sess.run(None, {"X": _x(1, 2), "Y": _x(1, 2, 3)})
    assert info.value.path == "graph.node[0]"


def test_errors_inside_a_subgraph_carry_the_whole_path() -> None:
    bad = helper.make_graph(
        [helper.make_node("MatMul", ["A", "B"], ["T"])],
        "then",
        [],
        [helper.make_tensor_value_info("T", F, None)],
    )
    node = helper.make_node("If", ["C"], ["Y"], then_branch=bad, else_branch=bad)
    sess = ReferenceEvaluator(_model([node], ["C", "A", "B"], ["Y"]))
    with pytest.raises(EvaluationError) as info:
        sess.run(None, {"C": np.array(True), "A": _x(1, 2), "B": np.ones((3, 1), np.float32)})
    # make_node sorts attributes by name: else_branch is attribute[0], then_branch attribute[1]
    assert info.value.path == "graph.node[0].attribute[1].g.node[0]"


def test_not_a_model() -> None:
    with pytest.raises(EvaluationError, match="cannot evaluate a int"):
        ReferenceEvaluator(3)


def test_reached_through_onnx_compat() -> None:
    import wirecodec.onnx_compat as onnx

    model = _model([helper.make_node("Relu", ["X"], ["Y"])], ["X"], ["Y"])
    assert onnx.reference.ReferenceEvaluator(model).run(None, {"X": _x(-1, 1)})[0].tolist() == [0, 1]
    assert onnx.reference.op_run.OpRun is OpRun


def test_same_results_as_onnx_reference_on_an_onnx_model() -> None:
    onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference")
    from onnx.reference import ReferenceEvaluator as OnnxEvaluator

    nodes = [
        helper.make_node("Softmax", ["X"], ["S"], axis=-1),
        helper.make_node("ReduceSum", ["S"], ["Y"], keepdims=0),
    ]
    theirs = onnx.load_from_string(encode(_model(nodes, ["X"], ["Y"])))
    x = np.random.default_rng(0).normal(size=(3, 4)).astype(np.float32)
    mine = ReferenceEvaluator(theirs).run(None, {"X": x})[0]
    np.testing.assert_allclose(mine, OnnxEvaluator(theirs).run(None, {"X": x})[0], rtol=1e-6)


@pytest.mark.parametrize(("start", "end", "step"), [(4, -10, -1), (3, -100, -2), (-1, -6, -1), (10, 0, -1)])
def test_slice_with_negative_steps_as_numpy(start: int, end: int, step: int) -> None:
    from wirecodec.numpy_helper import from_array

    consts = [
        helper.make_node("Constant", [], [n], value=from_array(np.array([v], dtype=np.int64)))
        for n, v in (("s", start), ("e", end), ("k", step))
    ]
    node = helper.make_node("Slice", ["X", "s", "e", "", "k"], ["Y"])
    x = np.arange(5, dtype=np.float32)
    got = ReferenceEvaluator(_model([*consts, node], ["X"], ["Y"])).run(None, {"X": x})[0]
    expected = x[start : (None if end < -len(x) else end) : step]
    assert got.tolist() == expected.tolist()
