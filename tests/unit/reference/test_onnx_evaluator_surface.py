"""What onnx's own evaluator tests read of ``onnx.reference`` beyond ``run``: the private names
they import, ``rt_nodes_``, ``check_shape_annotations``, ``OpRunExpand``, the error types, and
the operator fixes they found (each checked here without onnx; tests/onnx_suite runs theirs)."""

from __future__ import annotations

import numpy as np
import pytest

from wirecodec import helper, numpy_helper
from wirecodec.errors import EvaluationError
from wirecodec.reference import (
    CustomOperatorError,
    OpRun,
    OpRunExpand,
    ReferenceEvaluator,
    ShapeAnnotationError,
    UnknownOperatorError,
)

F, F16, I32 = 1, 10, 6


def _model(nodes, inputs, outputs, opset=21, **graph):  # type: ignore[no-untyped-def]
    made = helper.make_graph(nodes, "g", inputs, outputs, **graph)
    return helper.make_model(made, opset_imports=[helper.make_opsetid("", opset)])


def _info(name: str, elem: int = F, dims=None):  # type: ignore[no-untyped-def]
    return helper.make_tensor_value_info(name, elem, dims)


def _identity(dims_x, dims_z, elem_z: int = F):  # type: ignore[no-untyped-def]
    return _model(
        [helper.make_node("Identity", ["X"], ["Z"])], [_info("X", F, dims_x)], [_info("Z", elem_z, dims_z)]
    )


# -- the private module names onnx's tests import ---------------------------------------------


@pytest.mark.quick
def test_the_private_names_resolve_to_working_code() -> None:
    from wirecodec.onnx_compat.reference import ops

    op_list = ops._op_list
    assert op_list.Cast_19.op_version == 19 and op_list.Celu.op_type == "Celu"
    x = np.array([[0, 1], [-1, 2]], dtype=np.float32)
    assert np.allclose(op_list.Celu.eval(x, alpha=0.5), ops.op_celu._vcelu1(x, alpha=0.5))
    assert op_list.Celu.create(alpha=0.5).alpha == 0.5
    assert ops.op_conv._conv_implementation(
        np.arange(5, dtype=np.float32).reshape((1, 1, 5)),
        np.arange(3, dtype=np.float32).reshape((1, 1, 3)),
        None,
        "NOTSET",
        [1],
        1,
        [3],
        [1, 1],
        [1],
    ).tolist() == [[[2, 5, 8, 11, 4]]]
    assert ops._op_common_indices._get_indices(5, (2, 3)).tolist() == [1, 2]
    assert ops._op_common_indices._is_out((0, 3), (2, 3))
    assert ops.op_attention._apply_causal(np.zeros((2, 3)), 1).tolist() == [[0, 0, -np.inf], [0, 0, 0]]
    masked = ops.op_attention._softmax(np.array([[0.0, 0.0], [-np.inf, -np.inf]]))
    assert masked.tolist() == [[0.5, 0.5], [0.0, 0.0]]
    from wirecodec.onnx_compat.reference.ops.aionnx_preview_training import _op_list as training
    from wirecodec.onnx_compat.reference.ops.aionnxml.op_tree_ensemble import Mode, PostTransform

    assert training.Adam.create(alpha=0.5).alpha == 0.5
    assert (int(Mode.MEMBER), int(PostTransform.PROBIT)) == (6, 4)
    with pytest.raises(AttributeError):
        op_list.NoSuchOperator  # noqa: B018


def test_col2im_of_one_image_is_the_batched_operator() -> None:
    from wirecodec.onnx_compat.reference.ops import op_col2im

    data = np.arange(6 * 28, dtype=np.float32).reshape(6, 28)
    args = (np.array([6, 4]), (2, 3), np.array([1, 1]), np.array([1, 1, 1, 1]), np.array([1, 1]))
    one = op_col2im.col2im_naive_implementation(data, *args)
    assert one.shape == (1, 6, 4)
    assert np.array_equal(one, op_col2im._col2im_naive_implementation_2d(data, *args))


# -- rt_nodes_, str, OpRunExpand --------------------------------------------------------------


@pytest.mark.quick
def test_rt_nodes_are_op_run_views_named_by_schema_version() -> None:
    node = helper.make_node("ReduceMean", ["X"], ["Y"])
    sess = ReferenceEvaluator(_model([node], [_info("X")], [_info("Y")], opset=19))  # ReduceMean-18 in effect
    (view,) = sess.rt_nodes_
    assert type(view).__name__ == "ReduceMean_18" and isinstance(view, OpRun)
    assert view.keepdims == 1  # the schema default, as an instance attribute
    assert "op_type=ReduceMean" in str(view)
    subclass = type("ReduceMean", (type(view),), {})  # given back as a custom operator: still runs
    again = ReferenceEvaluator(_model([node], [_info("X")], [_info("Y")], opset=19), new_ops=[subclass])
    assert again.run(None, {"X": np.ones((2, 4), np.float32)})[0].tolist() == [[1.0]]
    assert str(sess) == "ReferenceEvaluator(X) -> Y"


def test_op_run_expand_runs_the_schema_body() -> None:
    # Softsign has both an implementation and a function body; a bug in one would show here.
    node = helper.make_node("Softsign", ["X"], ["Y"])
    model = _model([node], [_info("X")], [_info("Y")])
    expanded = type("Softsign", (OpRunExpand,), {"op_domain": ""})
    x = np.array([-3.0, 0.0, 1.0], np.float32)
    plain, via_body = ReferenceEvaluator(model), ReferenceEvaluator(model, new_ops=[expanded])
    assert np.allclose(plain.run(None, {"X": x})[0], via_body.run(None, {"X": x})[0])
    assert type(via_body._graph.steps[0].impl).__name__ == "function"  # the body, not the custom class
    assert via_body._graph.steps[0].origin is None


# -- errors that are also onnx's builtins -----------------------------------------------------


@pytest.mark.quick
def test_error_types_onnx_code_catches() -> None:
    node = helper.make_node("InvAlpha", ["X"], ["Y"], domain="custom")
    graph = helper.make_graph([node], "g", [_info("X")], [_info("Y")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("custom", 1)])
    with pytest.raises(UnknownOperatorError) as unknown:
        ReferenceEvaluator(model)
    assert isinstance(unknown.value, NotImplementedError) and unknown.value.path == "graph.node[0]"

    class NotOpRun:
        op_domain = "custom"

    with pytest.raises(TypeError):
        ReferenceEvaluator(model, new_ops=[type("InvAlpha", (NotOpRun,), {})])
    with pytest.raises(TypeError):
        ReferenceEvaluator(_info("X"))

    class InvAlpha(OpRun):
        op_domain = "custom"

        def _run(self, x):  # type: ignore[no-untyped-def]
            return 1 / (x + 1)  # not a tuple

    with pytest.raises(CustomOperatorError, match="not a tuple") as bad:
        ReferenceEvaluator(model, new_ops=[InvAlpha]).run(None, {"X": np.ones(2, np.float32)})
    assert isinstance(bad.value, TypeError) and isinstance(bad.value, EvaluationError)


# -- check_shape_annotations ------------------------------------------------------------------


@pytest.mark.quick
def test_shape_annotations_are_checked_only_when_asked() -> None:
    shared = _model(
        [helper.make_node("Add", ["X", "Y"], ["Z"])],
        [_info("X", F, ["N"]), _info("Y", F, ["N"])],
        [_info("Z", F, ["N"])],
    )
    x3, x4 = np.zeros(3, np.float32), np.zeros(4, np.float32)
    sess = ReferenceEvaluator(shared, check_shape_annotations=True)
    assert sess.run(None, {"X": x3, "Y": x3})[0].shape == (3,)
    with pytest.raises(ShapeAnnotationError, match="symbolic dimension 'N'") as error:
        sess.run(None, {"X": x3, "Y": x4})
    assert isinstance(error.value, RuntimeError)
    two = _model(
        [helper.make_node("Identity", ["X"], ["A"]), helper.make_node("Identity", ["Y"], ["B"])],
        [_info("X", F, ["N"]), _info("Y", F, ["N"])],
        [_info("A", F, ["N"]), _info("B", F, ["N"])],
    )
    quiet = ReferenceEvaluator(two)
    assert [v.shape for v in quiet.run(None, {"X": x3, "Y": x4})] == [(3,), (4,)]
    with pytest.raises(ShapeAnnotationError):
        quiet.run(None, {"X": x3, "Y": x4}, check_shape_annotations=True)
    assert [v.shape for v in quiet.run(None, {"X": x3, "Y": x4})] == [(3,), (4,)]  # off again


def test_shape_annotation_checks_value_rank_and_type() -> None:
    with pytest.raises(ShapeAnnotationError, match="declared dimension value"):
        ReferenceEvaluator(_identity([4], [4]), check_shape_annotations=True).run(
            None, {"X": np.zeros(5, np.float32)}
        )
    with pytest.raises(ShapeAnnotationError, match="rank"):
        ReferenceEvaluator(_identity(["N", "M"], None), check_shape_annotations=True).run(
            None, {"X": np.zeros(3, np.float32)}
        )
    model = _model(
        [helper.make_node("Cast", ["X"], ["Y"], to=I32), helper.make_node("Identity", ["Y"], ["Z"])],
        [_info("X", F, [3])],
        [_info("Z", I32, [3])],
        value_info=[_info("Y", F, [3])],
    )
    with pytest.raises(ShapeAnnotationError, match="declared element type"):
        ReferenceEvaluator(model, check_shape_annotations=True).run(None, {"X": np.zeros(3, np.float32)})
    text = _model([helper.make_node("Identity", ["X"], ["Z"])], [_info("X", 8, [2])], [_info("Z", 8, [2])])
    got = ReferenceEvaluator(text, check_shape_annotations=True).run(None, {"X": np.array(["a", "b"])})
    assert got[0].dtype.kind == "U"
    init = numpy_helper.from_array(np.zeros(5, np.float32), "X")
    with pytest.raises(ShapeAnnotationError, match="declared dimension value"):
        ReferenceEvaluator(
            _model(
                [helper.make_node("Identity", ["X"], ["Z"])],
                [_info("X", F, [4])],
                [_info("Z")],
                initializer=[init],
            ),
            check_shape_annotations=True,
        ).run(None, {})


# -- operator fixes found by onnx's tests ------------------------------------------------------


def _one(node, feeds, opset=21):  # type: ignore[no-untyped-def]
    inputs = [_info(name) for name in node.input if name]
    return ReferenceEvaluator(_model([node], inputs, [_info(n) for n in node.output], opset=opset)).run(
        None, feeds
    )


@pytest.mark.quick
def test_operator_fixes() -> None:
    assert _one(helper.make_node("NonZero", ["X"], ["Y"]), {"X": np.array(True)})[0].shape == (0, 1)
    assert _one(helper.make_node("NonZero", ["X"], ["Y"]), {"X": np.array(False)})[0].shape == (0, 0)
    x = np.array([0, 1, 2.4, 2.6, 4, 10], np.float32)
    int4 = _one(helper.make_node("Cast", ["X"], ["Y"], to=22), {"X": x})[0]  # INT4: toward zero, wrapped
    assert [int(v) for v in int4.astype(np.int8)] == [0, 1, 2, 2, 4, -6]
    square = helper.make_node("ReduceSumSquare", ["X"], ["Y"], noop_with_empty_axes=1)
    assert _one(square, {"X": np.array([1.0, -3.0], np.float32)}, opset=18)[0].tolist() == [1.0, 9.0]
    tiny = np.array([-1e-7], np.float32)
    for op in ("Elu", "Celu"):
        assert _one(helper.make_node(op, ["X"], ["Y"]), {"X": tiny})[0].tolist() == np.expm1(tiny).tolist()
    text = np.array(["a", "b"])  # numpy's fixed-width text is a string tensor
    joined = _one(helper.make_node("StringConcat", ["X", "Y"], ["Z"]), {"X": text, "Y": text}, opset=20)[0]
    assert joined.tolist() == ["aa", "bb"]
    with pytest.raises(EvaluationError, match="axis 1 is out of range for input rank 1"):
        _one(helper.make_node("Concat", ["X", "Y"], ["Z"], axis=1), {"X": _f(1), "Y": _f(2)})
    with pytest.raises(EvaluationError, match="identical shapes"):
        _one(
            helper.make_node("SwiGLU", ["A", "B"], ["Y"]),
            {"A": np.ones((2, 3), np.float32), "B": np.ones((2, 1), np.float32)},
            opset=28,
        )


def _f(*values: float) -> np.ndarray:
    return np.array(values, np.float32)


def test_random_operators_draw_in_range_with_their_seed() -> None:
    uniform = helper.make_node("RandomUniform", [], ["Y"], seed=3.0, shape=[2, 4])
    first, second = _one(uniform, {})[0], _one(uniform, {})[0]
    assert first.shape == (2, 4) and first.dtype == np.float32 and first.min() > 0 and first.max() < 1
    assert np.array_equal(first, second)  # one seed, one draw
    like = helper.make_node("RandomNormalLike", ["X"], ["Y"], seed=1.0)
    assert _one(like, {"X": np.zeros((3, 2), np.float64)})[0].dtype == np.float64
    coin = helper.make_node("Bernoulli", ["X"], ["Y"], seed=0.0)
    draws = _one(coin, {"X": np.array([0.0, 1.0, 0.0, 1.0], np.float32)}, opset=15)[0]
    assert draws.tolist() == [0.0, 1.0, 0.0, 1.0]


def test_im2col_columns_times_the_flat_weight_is_the_convolution() -> None:
    x = np.random.RandomState(0).rand(2, 3, 6, 5).astype(np.float32)
    w = np.random.RandomState(1).rand(4, 3, 3, 2).astype(np.float32)
    attrs = {"pads": [1, 0, 2, 1], "strides": [2, 1], "dilations": [1, 2]}
    conv = _one(helper.make_node("Conv", ["X", "W"], ["Y"], **attrs), {"X": x, "W": w})[0]
    node = helper.make_node("Im2Col", ["X", "S"], ["C"], domain="experimental", **attrs)
    graph = helper.make_graph([node], "g", [_info("X"), _info("S", 7)], [_info("C")])
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("experimental", 1)]
    columns = ReferenceEvaluator(helper.make_model(graph, opset_imports=opsets)).run(
        None, {"X": x, "S": np.array(w.shape, np.int64)}
    )[0]
    product = w.reshape(4, -1) @ columns  # [M, N * out]
    as_conv = product.reshape(4, 2, *conv.shape[2:]).transpose(1, 0, 2, 3)
    assert np.allclose(as_conv, conv, atol=1e-5)


def test_a_function_attribute_reaches_a_subgraph_inside_the_function() -> None:
    constant = helper.make_node("Constant", [], ["C"])
    reference = helper.make_attribute_ref("value", 4)  # TENSOR, read from the caller's "bias"
    reference.ref_attr_name = "bias"
    constant.attribute.append(reference)
    then = helper.make_graph([constant], "then", [], [_info("C")])
    other = helper.make_graph([helper.make_node("Identity", ["X"], ["C"])], "else", [], [_info("C")])
    body = [helper.make_node("If", ["flag"], ["Y"], then_branch=then, else_branch=other)]
    function = helper.make_function(
        "local", "Pick", ["flag", "X"], ["Y"], body, [helper.make_opsetid("", 21)], ["bias"]
    )
    call = helper.make_node(
        "Pick", ["flag", "X"], ["Y"], domain="local", bias=numpy_helper.from_array(_f(7.0), "b")
    )
    graph = helper.make_graph([call], "g", [_info("flag", 9), _info("X")], [_info("Y")])
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("local", 1)]
    model = helper.make_model(graph, opset_imports=opsets, functions=[function])
    sess = ReferenceEvaluator(model)
    assert sess.run(None, {"flag": np.array(True), "X": _f(1.0)})[0].tolist() == [7.0]
    (view,) = sess.rt_nodes_
    assert type(view).__name__ == "OpFunction" and type(view.impl_).__name__ == "ReferenceEvaluator"
    assert any(node.has_linked_attribute for node in view.impl_.rt_nodes_)
