"""The edges onnx's own evaluator tests found (reference_evaluator*_test.py through the shim),
each run by wirecodec's evaluator and by onnx.reference (and onnxruntime where it runs the
case), which must agree:

- a ConvTranspose bias longer than the output channels: its first M values;
- a Scan of zero iterations with scan outputs: refused (a RuntimeError naming the node);
- Cast of float to string: numpy's text ('nan', 'inf'; onnxruntime writes 'NaN', 'INF');
- a tree classifier's PROBIT in float64, as onnx's (in float32 it cancels, up to 5e-4 off);
- DictVectorizer of one map: a 1-D row (the schema; onnxruntime gives [1, V]);
- CausalConvWithState's function body, built per node, against its implementation.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="onnx.reference is the oracle")

from onnx import TensorProto, helper  # noqa: E402

from wirecodec.reference import ReferenceEvaluator  # noqa: E402
from wirecodec.reference.op_run import OpRunExpand  # noqa: E402

ML = "ai.onnx.ml"


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], opset: int, ml: int = 0) -> bytes:
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid(ML, ml)] if ml else [])
    model = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs), opset_imports=opsets)
    model.ir_version = 10  # onnxruntime's
    return model.SerializeToString()  # type: ignore[no-any-return]


def _theirs(data: bytes, feeds: dict[str, Any], new_ops: list[Any] | None = None) -> list[Any]:
    from onnx.reference import ReferenceEvaluator as OnnxEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return OnnxEvaluator(onnx.load_from_string(data), new_ops=new_ops).run(None, feeds)  # type: ignore[no-any-return]


def _ort(data: bytes, feeds: dict[str, Any]) -> list[Any]:
    ort = pytest.importorskip("onnxruntime")
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)  # type: ignore[no-any-return]


def _info(name: str, elem: int, shape: list[Any] | None = None) -> Any:
    return helper.make_tensor_value_info(name, elem, shape)


def _conv_transpose(bias: int) -> tuple[bytes, dict[str, Any]]:
    node = helper.make_node("ConvTranspose", ["X", "W", "B"], ["Y"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    inputs = [_info("X", TensorProto.FLOAT), _info("W", TensorProto.FLOAT), _info("B", TensorProto.FLOAT)]
    data = _model([node], inputs, [_info("Y", TensorProto.FLOAT)], 16)
    rng = np.random.default_rng(43)
    feeds = {
        "X": rng.standard_normal((1, 3, 5, 4)).astype(np.float32),
        "W": rng.standard_normal((3, 2, 3, 3)).astype(np.float32),  # M = 2 output channels
        "B": np.arange(1, bias + 1, dtype=np.float32),
    }
    return data, feeds


def test_conv_transpose_bias_of_m_values_is_onnxruntimes_and_onnxs() -> None:
    data, feeds = _conv_transpose(2)
    (got,) = ReferenceEvaluator(data).run(None, feeds)
    np.testing.assert_allclose(got, _ort(data, feeds)[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got, _theirs(data, feeds)[0], rtol=1e-5, atol=1e-5)


def test_conv_transpose_bias_longer_than_the_channels_gives_its_first_m() -> None:
    data, feeds = _conv_transpose(4)
    (got,) = ReferenceEvaluator(data).run(None, feeds)
    (theirs,) = _theirs(data, feeds)
    np.testing.assert_allclose(got, theirs, rtol=1e-5, atol=1e-5)
    short, _ = _conv_transpose(2)
    (first_m,) = ReferenceEvaluator(short).run(None, {**feeds, "B": feeds["B"][:2]})
    np.testing.assert_array_equal(got, first_m)


def _scan(with_scan_output: bool) -> bytes:
    body_nodes = [helper.make_node("Add", ["s_in", "x_in"], ["s_out"])]
    body_outputs = [_info("s_out", TensorProto.FLOAT, [2])]
    if with_scan_output:
        body_nodes.append(helper.make_node("Identity", ["s_out"], ["scan_out"]))
        body_outputs.append(_info("scan_out", TensorProto.FLOAT, [2]))
    body = helper.make_graph(
        body_nodes,
        "body",
        [_info("s_in", TensorProto.FLOAT, [2]), _info("x_in", TensorProto.FLOAT, [2])],
        body_outputs,
    )
    outputs = ["final", "ys"] if with_scan_output else ["final"]
    node = helper.make_node("Scan", ["init", "xs"], outputs, num_scan_inputs=1, body=body)
    graph_outputs = [_info(name, TensorProto.FLOAT) for name in outputs]
    return _model(
        [node],
        [_info("init", TensorProto.FLOAT, [2]), _info("xs", TensorProto.FLOAT, [None, 2])],
        graph_outputs,
        21,
    )


def test_scan_of_zero_iterations_with_scan_outputs_is_refused_as_by_onnx_and_onnxruntime() -> None:
    from wirecodec.errors import EvaluationError

    data = _scan(with_scan_output=True)
    feeds = {"init": np.zeros(2, np.float32), "xs": np.zeros((0, 2), np.float32)}
    with pytest.raises(RuntimeError, match="zero scan-input length"):
        _theirs(data, feeds)
    ort = pytest.importorskip("onnxruntime")
    with pytest.raises(ort.capi.onnxruntime_pybind11_state.Fail):
        _ort(data, feeds)
    with pytest.raises(RuntimeError, match="zero scan-input length") as caught:
        ReferenceEvaluator(data).run(None, feeds)
    assert isinstance(caught.value, EvaluationError)
    assert "graph.node[0]" in str(caught.value)
    # one iteration still runs, as onnx's does
    one = {"init": np.ones(2, np.float32), "xs": np.full((1, 2), 2.0, np.float32)}
    for got, want in zip(ReferenceEvaluator(data).run(None, one), _theirs(data, one), strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cast_float_to_string_writes_numpys_text_as_onnx(dtype: Any) -> None:
    node = helper.make_node("Cast", ["X"], ["Y"], to=TensorProto.STRING)
    elem = TensorProto.FLOAT if dtype is np.float32 else TensorProto.DOUBLE
    data = _model([node], [_info("X", elem, [None])], [_info("Y", TensorProto.STRING, [None])], 21)
    x = np.array([1.152512, -0.152612, 0.0, np.nan, np.inf, -np.inf, 1e-10, 3.4e38], dtype=dtype)
    (got,) = ReferenceEvaluator(data).run(None, {"X": x})
    (theirs,) = _theirs(data, {"X": x})
    assert got.tolist() == theirs.tolist()
    assert got.tolist()[3:6] == ["nan", "inf", "-inf"]


def _comb_of_leaves(leaves: int, classes: int, seed: int) -> tuple[bytes, Any]:
    """A TreeEnsembleClassifier of one tree, a comb: node i sends X0 <= i + 0.5 to leaf i,
    the rest on; each leaf has random weights in (0, 1) for every class (PROBIT's domain)."""
    rng = np.random.default_rng(seed)
    branches = leaves - 1
    ids = list(range(branches + leaves))
    modes = ["BRANCH_LEQ"] * branches + ["LEAF"] * leaves
    true_ids = [branches + i for i in range(branches)] + [0] * leaves
    false_ids = [i + 1 for i in range(branches - 1)] + [branches + branches] + [0] * leaves
    weights = rng.uniform(0.01, 0.99, (leaves, classes))
    node = helper.make_node(
        "TreeEnsembleClassifier",
        ["X"],
        ["label", "Y"],
        domain=ML,
        nodes_treeids=[0] * len(ids),
        nodes_nodeids=ids,
        nodes_featureids=[0] * len(ids),
        nodes_modes=modes,
        nodes_values=[i + 0.5 for i in range(branches)] + [0.0] * leaves,
        nodes_truenodeids=true_ids,
        nodes_falsenodeids=false_ids,
        class_treeids=[0] * (leaves * classes),
        class_nodeids=[branches + leaf for leaf in range(leaves) for _ in range(classes)],
        class_ids=[c for _ in range(leaves) for c in range(classes)],
        class_weights=weights.reshape(-1).tolist(),
        classlabels_int64s=list(range(classes)),
        post_transform="PROBIT",
    )
    outputs = [_info("label", TensorProto.INT64), _info("Y", TensorProto.FLOAT)]
    data = _model([node], [_info("X", TensorProto.FLOAT, [None, 1])], outputs, 17, ml=3)
    return data, np.arange(leaves, dtype=np.float32).reshape(-1, 1)


def test_tree_classifier_probit_is_onnxs_to_the_bit() -> None:
    data, x = _comb_of_leaves(200, 3, seed=0)
    got = ReferenceEvaluator(data).run(None, {"X": x})
    theirs = _theirs(data, {"X": x})
    assert got[1].dtype == np.float32
    np.testing.assert_array_equal(got[1], theirs[1].astype(np.float32))
    np.testing.assert_array_equal(got[0], theirs[0])


def test_probit_in_float64_is_onnxs_vectorized_probit() -> None:
    from onnx.reference.ops.aionnxml._common_classifier import probit as onnx_probit

    from wirecodec.reference.ops.ml.common import probit

    scores = np.random.default_rng(0).uniform(0.0, 1.0, (1000, 3)).astype(np.float32)
    scores[0] = [0.0, 0.5, 1.0]
    wide = probit(scores.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(wide, onnx_probit(scores).astype(np.float32))


def _dict_vectorizer(value_type: int) -> bytes:
    map_type = helper.make_map_type_proto(TensorProto.STRING, helper.make_tensor_type_proto(value_type, []))
    node = helper.make_node("DictVectorizer", ["X"], ["Y"], domain=ML, string_vocabulary=["a", "c", "b", "z"])
    inputs = [helper.make_value_info("X", map_type)]
    return _model([node], inputs, [_info("Y", value_type, [None, None])], 17, ml=3)


def test_dict_vectorizer_of_one_map_is_one_row_as_onnx() -> None:
    data = _dict_vectorizer(TensorProto.INT64)
    feeds = {"X": {"a": np.array(4, dtype=np.int64), "c": np.array(8, dtype=np.int64)}}
    (got,) = ReferenceEvaluator(data).run(None, feeds)
    (theirs,) = _theirs(data, feeds)
    assert got.shape == theirs.shape == (4,)
    assert got.dtype == theirs.dtype == np.int64
    assert got.tolist() == theirs.tolist() == [4, 8, 0, 0]


def test_dict_vectorizer_of_floats_is_onnxruntimes_row_1_d() -> None:
    data = _dict_vectorizer(TensorProto.FLOAT)
    feeds = {"X": {"b": 3.0, "z": 4.5}}
    (got,) = ReferenceEvaluator(data).run(None, feeds)
    (want,) = _ort(data, feeds)
    assert want.shape == (1, 4) and got.shape == (4,)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want[0])


class _Expand(OpRunExpand):  # type: ignore[misc]
    op_domain = ""


_Expand.__name__ = "CausalConvWithState"


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("activation", ["silu", "none"])
@pytest.mark.parametrize("bias_and_past", [(True, True), (False, False), (True, False)])
def test_causal_conv_with_state_body_is_its_implementation_and_onnxs(
    dtype: Any, activation: str, bias_and_past: tuple[bool, bool]
) -> None:
    from onnx.reference.op_run import OpRunExpand as OnnxExpand

    has_bias, has_past = bias_and_past
    batch, channels, length, k = 2, 5, 7, 4
    elem = TensorProto.FLOAT16 if dtype is np.float16 else TensorProto.FLOAT
    names = ["input", "weight", "bias" if has_bias else "", "past_state" if has_past else ""]
    while not names[-1]:
        names.pop()
    node = helper.make_node("CausalConvWithState", names, ["output", "present_state"], activation=activation)
    shapes = {"input": (batch, channels, length), "weight": (channels, 1, k), "bias": (channels,)}
    shapes["past_state"] = (batch, channels, k - 1)
    # onnx builds the body from the declared shapes (Conv's group is the channel count)
    inputs = [_info(n, elem, list(shapes[n])) for n in names if n]
    outputs = [
        _info("output", elem, list(shapes["input"])),
        _info("present_state", elem, list(shapes["past_state"])),
    ]
    data = _model([node], inputs, outputs, 27)
    rng = np.random.default_rng(27)
    feeds = {n: rng.standard_normal(shapes[n]).astype(dtype) for n in names if n}
    implemented = ReferenceEvaluator(data).run(None, feeds)
    expanded = ReferenceEvaluator(data, new_ops=[_Expand]).run(None, feeds)
    theirs = _theirs(data, feeds)
    theirs_class = type("CausalConvWithState", (OnnxExpand,), {"op_domain": ""})
    # onnx's expansion passes the body every input, given or not: with one left out it fails
    theirs_expanded = _theirs(data, feeds, new_ops=[theirs_class]) if len(names) == 4 else theirs
    # float32 sums in another order: a few ulps of float32, one of float16
    tolerance = 2e-3 if dtype is np.float16 else 1e-5
    for index in range(2):
        assert implemented[index].dtype == expanded[index].dtype == theirs[index].dtype == dtype
        assert implemented[index].shape == expanded[index].shape == theirs[index].shape
        if dtype is np.float16:  # onnx's own test: the body rounds as the implementation, exactly
            np.testing.assert_array_equal(expanded[index], implemented[index])
        np.testing.assert_allclose(expanded[index], implemented[index], rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(implemented[index], theirs[index], rtol=tolerance, atol=tolerance)
        np.testing.assert_allclose(expanded[index], theirs_expanded[index], rtol=tolerance, atol=tolerance)


def test_causal_conv_with_state_body_is_built_per_channel_count() -> None:
    """One session, inputs of 3, 6, then 3 channels again: each run as the operator's own
    implementation (a body built for the first channel count only would fail on the second)."""
    node = helper.make_node("CausalConvWithState", ["input", "weight"], ["output", "present_state"])
    inputs = [_info("input", TensorProto.FLOAT), _info("weight", TensorProto.FLOAT)]
    data = _model(
        [node], inputs, [_info("output", TensorProto.FLOAT), _info("present_state", TensorProto.FLOAT)], 27
    )
    session = ReferenceEvaluator(data, new_ops=[_Expand])
    rng = np.random.default_rng(3)
    for channels in (3, 6, 3):
        feeds = {
            "input": rng.standard_normal((1, channels, 5)).astype(np.float32),
            "weight": rng.standard_normal((channels, 1, 2)).astype(np.float32),
        }
        got = session.run(None, feeds)
        for mine, theirs in zip(got, _theirs(data, feeds), strict=True):
            assert mine.shape == theirs.shape
            np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-5)
