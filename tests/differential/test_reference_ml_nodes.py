"""The ai.onnx.ml operators one node at a time: every post_transform, kernel, tree rule,
aggregate, label kind and input type, run by wirecodec's evaluator and by the oracles that
implement the case (onnxruntime, onnx.reference; each case names those it expects to run,
so an oracle that stops running fails the test instead of skipping it). Bad attributes give
an EvaluationError naming the node.

Where the two oracles disagree, onnx (its reference evaluator, and its spec) decides, and
the case says so; the places, all away from what converters write:

- onnxruntime picks a LinearClassifier's label before PROBIT, and writes ``[1 - s, s]``
  untransformed for one row of coefficients and two classes (except LOGISTIC);
- onnxruntime's two-class SVM/tree scores differ from onnx's for SOFTMAX, SOFTMAX_ZERO,
  PROBIT and NONE (the single-score tree form);
- onnxruntime's BRANCH_NEQ sends NaN to the true branch whatever
  ``nodes_missing_value_tracks_true`` says; its Normalizer MAX divides by the largest
  value, not the largest magnitude; its Scaler wants as many offsets as scales;
- onnxruntime reads TreeEnsemble (opset 5) ``post_transform`` 1 as LOGISTIC and 2 as
  SOFTMAX, the spec the other way round, and onnx.reference ignores post_transform there:
  the transforms are checked against their definition;
- onnx.reference's multiclass SVMClassifier without support vectors labels every row 1 (or
  0): the label is the best class, as onnxruntime picks it.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="the models are built with onnx.helper")

from onnx import TensorProto, helper  # noqa: E402

ML = "ai.onnx.ml"
F, I64, STR, F64 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING, TensorProto.DOUBLE
POSTS = ("NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO", "PROBIT")
BOTH = ("ort", "onnx")


def _model(
    op_type: str, attrs: dict[str, Any], inputs: dict[str, Any], outputs: list[tuple[str, int]], ml: int = 3
) -> bytes:
    in_infos = []
    for name, value in inputs.items():
        kind = {np.dtype(np.float32): F, np.dtype(np.float64): F64, np.dtype(np.int64): I64}.get(
            value.dtype, STR
        )
        in_infos.append(helper.make_tensor_value_info(name, kind, list(value.shape)))
    out_infos = [helper.make_tensor_value_info(name, kind, None) for name, kind in outputs]
    node = helper.make_node(op_type, list(inputs), [n for n, _ in outputs], domain=ML, **attrs)
    graph = helper.make_graph([node], "g", in_infos, out_infos)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, ml)], ir_version=9
    )
    return model.SerializeToString()  # type: ignore[no-any-return]


def _ours(data: bytes, feeds: dict[str, Any]) -> list[Any]:
    from wirecodec.reference import ReferenceEvaluator

    return ReferenceEvaluator(data).run(None, feeds)  # type: ignore[no-any-return]


def _oracle(kind: str, data: bytes, feeds: dict[str, Any]) -> list[Any]:
    if kind == "ort":
        ort = pytest.importorskip("onnxruntime")
        return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)  # type: ignore[no-any-return]
    from onnx.reference import ReferenceEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(data).run(None, feeds)  # type: ignore[no-any-return]


def _same(want: Any, got: Any, what: str) -> None:
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), what
        for w, g in zip(want, got, strict=True):
            assert sorted(w) == sorted(g), what
            np.testing.assert_allclose([g[k] for k in w], [w[k] for k in w], rtol=1e-5, atol=1e-5)
        return
    want, got = np.asarray(want), np.asarray(got)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind == "f":
        assert got.dtype == np.float32, f"{what}: {got.dtype}"
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def check(data: bytes, feeds: dict[str, Any], oracles: tuple[str, ...]) -> list[Any]:
    got = _ours(data, feeds)
    for kind in oracles:
        want = _oracle(kind, data, feeds)
        assert len(want) == len(got)
        for index, (w, g) in enumerate(zip(want, got, strict=True)):
            _same(w, g, f"output {index} against {kind}")
    return got


RNG = np.random.default_rng(7)
X34 = RNG.normal(size=(6, 4)).astype(np.float32)


# -- linear ------------------------------------------------------------------------------


@pytest.mark.parametrize("post", POSTS)
@pytest.mark.parametrize("labels", ["ints", "strings"])
def test_linear_classifier_multiclass(post: str, labels: str) -> None:
    attrs: dict[str, Any] = {
        "coefficients": RNG.normal(size=12).round(3).tolist(),
        "intercepts": [0.5, -0.25, 0.0],
        "post_transform": post,
    }
    attrs["classlabels_ints" if labels == "ints" else "classlabels_strings"] = (
        [3, 5, 7] if labels == "ints" else ["a", "b", "c"]
    )
    data = _model("LinearClassifier", attrs, {"X": X34}, [("Y", I64 if labels == "ints" else STR), ("Z", F)])
    check(data, {"X": X34}, ("onnx",) if post == "PROBIT" else BOTH)


@pytest.mark.parametrize("post", POSTS)
def test_linear_classifier_one_row_of_coefficients_for_two_classes(post: str) -> None:
    attrs = {
        "coefficients": [0.5, -1.0, 0.25, 2.0],
        "intercepts": [0.1],
        "classlabels_ints": [0, 1],
        "post_transform": post,
    }
    data = _model("LinearClassifier", attrs, {"X": X34}, [("Y", I64), ("Z", F)])
    _labels, scores = check(data, {"X": X34}, BOTH if post == "LOGISTIC" else ("onnx",))
    assert scores.shape == (6, 2)


@pytest.mark.parametrize("dtype", [np.float64, np.int64])
def test_linear_classifier_takes_doubles_and_integers(dtype: Any) -> None:
    x = (X34 * 4).astype(dtype)
    attrs = {"coefficients": [1.0, 2.0, -1.0, 0.5] * 2, "intercepts": [0.0, 1.0], "classlabels_ints": [1, 2]}
    data = _model("LinearClassifier", attrs, {"X": x}, [("Y", I64), ("Z", F)])
    check(data, {"X": x}, ("ort",))


def test_linear_regressor_two_targets() -> None:
    attrs = {"coefficients": RNG.normal(size=8).round(3).tolist(), "intercepts": [1.0, -2.0], "targets": 2}
    check(_model("LinearRegressor", attrs, {"X": X34}, [("Y", F)]), {"X": X34}, BOTH)


# -- SVM ---------------------------------------------------------------------------------

SV = RNG.normal(size=(5, 4)).round(3).astype(np.float32)


def _svc_attrs(kernel: str, post: str, classes: int) -> dict[str, Any]:
    per_class = [2, 2, 1][:classes] if classes == 3 else [3, 2]
    vectors = SV[: sum(per_class)]
    pairs = classes * (classes - 1) // 2
    return {
        "kernel_type": kernel,
        "kernel_params": [0.3, 0.5, 3.0],
        "support_vectors": vectors.reshape(-1).tolist(),
        "vectors_per_class": per_class,
        "coefficients": RNG.normal(size=(classes - 1) * sum(per_class)).round(3).tolist(),
        "rho": RNG.normal(size=pairs).round(3).tolist(),
        "classlabels_ints": list(range(10, 10 + classes)),
        "post_transform": post,
    }


@pytest.mark.parametrize("kernel", ["LINEAR", "POLY", "RBF", "SIGMOID"])
@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX"])
@pytest.mark.parametrize("classes", [2, 3])
def test_svm_classifier_kernels_one_against_one(kernel: str, post: str, classes: int) -> None:
    data = _model("SVMClassifier", _svc_attrs(kernel, post, classes), {"X": X34}, [("Y", I64), ("Z", F)])
    check(data, {"X": X34}, ("onnx",) if classes == 2 and post == "SOFTMAX" else BOTH)


@pytest.mark.parametrize("post", POSTS)
@pytest.mark.parametrize("labels", [[0, 1], [5, 6, 7]])
def test_svm_classifier_linear_without_support_vectors(post: str, labels: list[int]) -> None:
    attrs = {
        "coefficients": RNG.normal(size=4 * len(labels)).round(3).tolist(),
        "rho": [0.25],
        "kernel_params": [0.1, 0.0, 1.0],
        "classlabels_ints": labels,
        "post_transform": post,
    }
    oracles = ("onnx",) if len(labels) == 2 else ("ort",) if post in ("NONE", "LOGISTIC") else ()
    got = check(_model("SVMClassifier", attrs, {"X": X34}, [("Y", I64), ("Z", F)]), {"X": X34}, oracles)
    assert got[1].shape == (6, len(labels))


def test_svm_classifier_probabilities_follow_onnxruntime() -> None:
    attrs = _svc_attrs("RBF", "NONE", 3)
    attrs.update(prob_a=[-2.5, -1.5, -3.0], prob_b=[0.1, -0.2, 0.05])
    _labels, probabilities = check(
        _model("SVMClassifier", attrs, {"X": X34}, [("Y", I64), ("Z", F)]), {"X": X34}, ("ort",)
    )
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("kernel", ["LINEAR", "POLY", "RBF", "SIGMOID"])
@pytest.mark.parametrize("one_class", [0, 1])
def test_svm_regressor(kernel: str, one_class: int) -> None:
    attrs = {
        "kernel_type": kernel,
        "kernel_params": [0.3, 0.5, 2.0],
        "support_vectors": SV.reshape(-1).tolist(),
        "n_supports": 5,
        "coefficients": RNG.normal(size=5).round(3).tolist(),
        "rho": [0.2],
        "one_class": one_class,
    }
    check(_model("SVMRegressor", attrs, {"X": X34}, [("Y", F)]), {"X": X34}, BOTH)


# -- trees -------------------------------------------------------------------------------

# two trees over 3 features: tree 0 splits twice (rules vary by test), tree 1 once
_TREES = {
    "nodes_treeids": [0, 0, 0, 0, 0, 1, 1, 1],
    "nodes_nodeids": [0, 1, 2, 3, 4, 0, 1, 2],
    "nodes_featureids": [0, 1, 0, 0, 0, 2, 0, 0],
    "nodes_values": [0.0, 0.5, 0.0, 0.0, 0.0, -0.25, 0.0, 0.0],
    "nodes_truenodeids": [1, 3, 0, 0, 0, 1, 0, 0],
    "nodes_falsenodeids": [2, 4, 0, 0, 0, 2, 0, 0],
    "nodes_missing_value_tracks_true": [1, 0, 0, 0, 0, 0, 0, 0],
}
_LEAVES = [(0, 2), (0, 3), (0, 4), (1, 1), (1, 2)]
X_TREES = np.array(
    [[-1, 0.2, 0], [1, 0.7, -1], [0, 0.5, -0.25], [np.nan, 0.9, 1], [0.5, np.nan, np.nan], [2, -3, 0.1]],
    dtype=np.float32,
)


def _tree_nodes(rule: str) -> dict[str, Any]:
    modes = [
        rule,
        "BRANCH_LEQ" if rule != "BRANCH_LEQ" else "BRANCH_GT",
        "LEAF",
        "LEAF",
        "LEAF",
        rule,
        "LEAF",
        "LEAF",
    ]
    return {**_TREES, "nodes_modes": modes}


def _classifier_attrs(rule: str, post: str, n_classes: int) -> dict[str, Any]:
    ids, nodes, trees, weights = [], [], [], []
    for k, (tree, node) in enumerate(_LEAVES):
        for c in range(n_classes):
            trees.append(tree)
            nodes.append(node)
            ids.append(c)
            weights.append(round(0.1 * ((k * 3 + c * 5) % 7) - 0.2, 2))
    return {
        **_tree_nodes(rule),
        "class_treeids": trees,
        "class_nodeids": nodes,
        "class_ids": ids,
        "class_weights": weights,
        "classlabels_int64s": list(range(n_classes)) if n_classes > 1 else [0, 1],
        "post_transform": post,
    }


@pytest.mark.parametrize(
    "rule", ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]
)
def test_tree_classifier_rules_and_missing_values(rule: str) -> None:
    data = _model(
        "TreeEnsembleClassifier", _classifier_attrs(rule, "NONE", 3), {"X": X_TREES}, [("Y", I64), ("Z", F)]
    )
    check(data, {"X": X_TREES}, ("onnx",) if rule == "BRANCH_NEQ" else BOTH)


@pytest.mark.parametrize("post", POSTS)
@pytest.mark.parametrize("n_classes", [1, 3])
def test_tree_classifier_post_transforms(post: str, n_classes: int) -> None:
    attrs = _classifier_attrs("BRANCH_LEQ", post, n_classes)
    attrs["base_values"] = [0.1] * (1 if n_classes == 1 else n_classes)
    data = _model("TreeEnsembleClassifier", attrs, {"X": X_TREES}, [("Y", I64), ("Z", F)])
    agree = post != "PROBIT" and (n_classes > 1 or post == "LOGISTIC")
    check(data, {"X": X_TREES}, BOTH if agree else ("onnx",))


def test_tree_classifier_string_labels_and_tensor_attributes() -> None:
    attrs = _classifier_attrs("BRANCH_LT", "SOFTMAX", 3)
    attrs["classlabels_strings"] = ["x", "y", "z"]
    del attrs["classlabels_int64s"]
    attrs["nodes_values_as_tensor"] = helper.make_tensor(
        "v", F, [8], np.array(attrs.pop("nodes_values")) + 0.125
    )
    attrs["class_weights_as_tensor"] = helper.make_tensor("w", F, [15], attrs.pop("class_weights"))
    data = _model("TreeEnsembleClassifier", attrs, {"X": X_TREES}, [("Y", STR), ("Z", F)])
    check(data, {"X": X_TREES}, ("ort",))  # onnx.reference does not read nodes_values_as_tensor


@pytest.mark.parametrize("aggregate", ["SUM", "AVERAGE", "MIN", "MAX"])
def test_tree_regressor_aggregates(aggregate: str) -> None:
    trees, nodes, ids, weights = [], [], [], []
    for k, (tree, node) in enumerate(_LEAVES):
        for t in range(2):
            trees.append(tree)
            nodes.append(node)
            ids.append(t)
            weights.append(float(k - 2 * t))
    attrs = {
        **_tree_nodes("BRANCH_LEQ"),
        "target_treeids": trees,
        "target_nodeids": nodes,
        "target_ids": ids,
        "target_weights": weights,
        "n_targets": 2,
        "aggregate_function": aggregate,
        "base_values": [0.5, -0.5],
    }
    check(_model("TreeEnsembleRegressor", attrs, {"X": X_TREES}, [("Y", F)]), {"X": X_TREES}, BOTH)


def _tree_ensemble_5(post: int, aggregate: int) -> bytes:
    f32 = TensorProto.FLOAT
    attrs = {
        "nodes_featureids": [0, 1, 2],
        "nodes_splits": helper.make_tensor("s", f32, [3], [0.0, 0.5, -0.25]),
        "nodes_modes": helper.make_tensor("m", TensorProto.UINT8, [3], [0, 3, 1]),
        "nodes_truenodeids": [1, 0, 2],
        "nodes_trueleafs": [0, 1, 1],
        "nodes_falsenodeids": [2, 1, 3],
        "nodes_falseleafs": [1, 1, 1],
        "tree_roots": [0, 2],
        "leaf_targetids": [0, 1, 0, 1],
        "leaf_weights": helper.make_tensor("w", f32, [4], [0.5, -1.0, 2.0, 0.25]),
        "n_targets": 2,
        "post_transform": post,
        "aggregate_function": aggregate,
    }
    return _model("TreeEnsemble", attrs, {"X": X_TREES}, [("Y", F)], ml=5)


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
def test_tree_ensemble_of_opset_5_aggregates(aggregate: int) -> None:
    # onnx.reference leaves a target no tree reaches at the float's extreme under MIN and MAX
    check(_tree_ensemble_5(0, aggregate), {"X": X_TREES}, ("ort", "onnx") if aggregate < 2 else ("ort",))


@pytest.mark.parametrize("post", [1, 2, 3, 4])
def test_tree_ensemble_of_opset_5_post_transforms(post: int) -> None:
    raw = _ours(_tree_ensemble_5(0, 1), {"X": X_TREES})[0].astype(np.float64)
    got = check(_tree_ensemble_5(post, 1), {"X": X_TREES}, ("ort",) if post == 3 else ())[0]
    if post == 1:
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        want = e / e.sum(axis=1, keepdims=True)
    elif post == 2:
        want = 1 / (1 + np.exp(-raw))
    elif post == 3:
        return  # SOFTMAX_ZERO: onnxruntime's, checked above
    else:
        erfinv = pytest.importorskip("scipy.special").erfinv
        inside = (raw > 0) & (raw < 1)
        assert inside.any()
        raw = np.where(inside, raw, 0.5)
        want = np.sqrt(2) * erfinv(2 * raw - 1)
        got = np.where(inside, got, 0.0)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-3 if post == 4 else 1e-6)


# -- preprocessing and maps --------------------------------------------------------------


@pytest.mark.parametrize("norm", ["MAX", "L1", "L2"])
def test_normalizer(norm: str) -> None:
    check(
        _model("Normalizer", {"norm": norm}, {"X": X34}, [("Y", F)]),
        {"X": X34},
        ("onnx",) if norm == "MAX" else BOTH,
    )


@pytest.mark.parametrize("offsets", [1, 4])
def test_scaler_with_per_column_scales(offsets: int) -> None:
    attrs = {"offset": [0.5, -1.0, 0.0, 2.0][:offsets], "scale": [1.0, 2.0, -1.0, 0.5]}
    check(_model("Scaler", attrs, {"X": X34}, [("Y", F)]), {"X": X34}, BOTH if offsets == 4 else ("onnx",))


@pytest.mark.parametrize("kind", ["floats-nan", "floats-value", "ints"])
def test_imputer(kind: str) -> None:
    if kind == "ints":
        x = np.array([[1, 0, 3], [0, 5, 0]], dtype=np.int64)
        attrs: dict[str, Any] = {"imputed_value_int64s": [7, 8, 9], "replaced_value_int64": 0}
    else:
        x = X34.copy()
        x[1, 2] = np.nan
        x[3, 0] = 1.5
        x[4, 0] = 1.5
        replaced = float("nan") if kind == "floats-nan" else 1.5
        attrs = {"imputed_value_floats": [9.0, 8.0, 7.0, 6.0], "replaced_value_float": replaced}
    check(_model("Imputer", attrs, {"X": x}, [("Y", I64 if kind == "ints" else F)]), {"X": x}, BOTH)


@pytest.mark.parametrize("kind", ["ints", "strings"])
def test_one_hot_encoder(kind: str) -> None:
    if kind == "ints":
        x = np.array([[1, 4], [2, 9]], dtype=np.int64)
        attrs: dict[str, Any] = {"cats_int64s": [1, 2, 4]}
    else:
        x = np.array([["a", "z"], ["c", "b"]], dtype=object)
        attrs = {"cats_strings": ["a", "b", "c"]}
    check(_model("OneHotEncoder", attrs, {"X": x}, [("Y", F)]), {"X": x}, BOTH)


def test_feature_vectorizer_pads_and_cuts() -> None:
    a = RNG.normal(size=(3, 2)).astype(np.float32)
    b = RNG.normal(size=(3, 4)).astype(np.float32)
    data = _model("FeatureVectorizer", {"inputdimensions": [3, 2]}, {"A": a, "B": b}, [("Y", F)])
    assert check(data, {"A": a, "B": b}, BOTH)[0].shape == (3, 5)


@pytest.mark.parametrize("kind", ["strings", "ints"])
def test_category_mapper_both_ways(kind: str) -> None:
    attrs = {
        "cats_strings": ["a", "b", "c"],
        "cats_int64s": [1, 2, 3],
        "default_int64": 42,
        "default_string": "?",
    }
    x = (
        np.array([["a", "q"], ["c", "b"]], dtype=object)
        if kind == "strings"
        else np.array([1, 5, 3], dtype=np.int64)
    )
    data = _model("CategoryMapper", attrs, {"X": x}, [("Y", I64 if kind == "strings" else STR)])
    check(data, {"X": x}, ("ort",))


def test_zip_map_of_string_and_int_labels() -> None:
    for attrs, key in (
        ({"classlabels_strings": ["a", "b", "c"]}, "a"),
        ({"classlabels_int64s": [4, 5, 6]}, 4),
    ):
        x = np.abs(X34[:, :3])
        kind = STR if key == "a" else I64
        node = helper.make_node("ZipMap", ["X"], ["Z"], domain=ML, **attrs)
        seq = helper.make_sequence_type_proto(
            helper.make_map_type_proto(kind, helper.make_tensor_type_proto(F, None))
        )
        graph = helper.make_graph(
            [node], "g", [helper.make_tensor_value_info("X", F, [6, 3])], [helper.make_value_info("Z", seq)]
        )
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)]
        )
        got = check(model.SerializeToString(), {"X": x}, ("ort",))[0]
        assert got[0][key] == pytest.approx(float(x[0, 0]))


# -- bad attributes ----------------------------------------------------------------------


@pytest.mark.quick
@pytest.mark.parametrize(
    ("op_type", "attrs", "words"),
    [
        (
            "LinearClassifier",
            {"coefficients": [1.0] * 8, "classlabels_ints": [0, 1], "post_transform": "CUBE"},
            "post_transform",
        ),
        ("LinearClassifier", {"coefficients": [1.0] * 7, "classlabels_ints": [0, 1]}, "coefficients"),
        ("LinearRegressor", {"coefficients": [1.0] * 4, "targets": 2}, "targets"),
        ("SVMClassifier", {**_svc_attrs("CUBIC", "NONE", 2)}, "kernel_type"),
        (
            "SVMClassifier",
            {**_svc_attrs("RBF", "NONE", 2), "vectors_per_class": [1, 1, 1]},
            "vectors_per_class",
        ),
        ("TreeEnsembleClassifier", {**_classifier_attrs("BRANCH_ODD", "NONE", 3)}, "nodes_modes[0]"),
        (
            "TreeEnsembleClassifier",
            {**_classifier_attrs("BRANCH_LEQ", "NONE", 3), "class_ids": [5] * 15},
            "class_ids",
        ),
        (
            "TreeEnsembleRegressor",
            {**_tree_nodes("BRANCH_LEQ"), "n_targets": 1, "aggregate_function": "MEDIAN"},
            "aggregate_function",
        ),
        ("Normalizer", {"norm": "L3"}, "norm"),
        ("Scaler", {"scale": [1.0, 2.0]}, "scale"),
        ("Imputer", {}, "imputed_value"),
    ],
)
def test_bad_attributes_name_the_node(op_type: str, attrs: dict[str, Any], words: str) -> None:
    from wirecodec.errors import EvaluationError

    outputs = [("Y", I64), ("Z", F)] if op_type.endswith("Classifier") else [("Y", F)]
    data = _model(op_type, attrs, {"X": X_TREES if "Tree" in op_type else X34}, outputs)
    with pytest.raises(EvaluationError) as caught:
        _ours(data, {"X": X_TREES if "Tree" in op_type else X34})
    assert caught.value.path == "graph.node[0]"
    assert op_type in str(caught.value) and words in str(caught.value)


# -- coverage ----------------------------------------------------------------------------


@pytest.mark.quick
def test_every_ai_onnx_ml_operator_of_onnx_reference_and_of_the_schemas_is_implemented() -> None:
    from onnx.defs import get_all_schemas_with_history
    from onnx.reference.ops.aionnxml import load_op

    from wirecodec.reference import _registry

    names = sorted({s.name for s in get_all_schemas_with_history() if s.domain == ML})
    theirs = []
    for name in names:
        try:
            load_op(ML, name, None)
        except Exception:  # onnx's evaluator has no such operator
            continue
        theirs.append(name)
    assert len(theirs) >= 16, theirs
    missing = [n for n in names if _registry.lookup(ML, n, 5) is None]
    assert missing == [], f"ai.onnx.ml operators without an implementation: {missing}"


@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
@pytest.mark.parametrize("one_leaf_tree", [False, True])
def test_tree_ensemble_of_opset_5_membership_missing_values_and_a_one_leaf_tree(
    aggregate: int, one_leaf_tree: bool
) -> None:
    """A tree of one leaf is a root whose two children are that leaf: onnxruntime reads the
    leaf the children name; onnx.reference reads the leaf of the root's own index, so it is
    compared on the forest without that tree."""
    f32 = TensorProto.FLOAT
    x = np.array(
        [[1, 0, np.nan], [2, 5, 0.5], [np.nan, 1, -0.25], [3, 1, 1], [1.5, np.nan, 2]], dtype=np.float32
    )
    attrs = {
        # tree 0: node 0 (NEQ on feature 2) -> node 1 (MEMBER {1, 2} on feature 0, NaN goes true)
        # or leaf 0; node 1 -> leaf 1 or leaf 2; tree 1: node 2 is a single leaf (leaf 3)
        "nodes_featureids": [2, 0, 1],
        "nodes_splits": helper.make_tensor("s", f32, [3], [-0.25, 0.0, 0.0]),
        "nodes_modes": helper.make_tensor("m", TensorProto.UINT8, [3], [5, 6, 0]),
        "nodes_truenodeids": [1, 1, 3],
        "nodes_trueleafs": [0, 1, 1],
        "nodes_falsenodeids": [0, 2, 3],
        "nodes_falseleafs": [1, 1, 1],
        "nodes_missing_value_tracks_true": [0, 1, 0],
        "membership_values": helper.make_tensor("v", f32, [3], [1.0, 2.0, float("nan")]),
        "tree_roots": [0, 2] if one_leaf_tree else [0],
        "leaf_targetids": [0, 1, 0, 1],
        "leaf_weights": helper.make_tensor("w", f32, [4], [0.5, -1.0, 2.0, 0.25]),
        "n_targets": 2,
        "aggregate_function": aggregate,
    }
    data = _model("TreeEnsemble", attrs, {"X": x}, [("Y", F)], ml=5)
    got = check(data, {"X": x}, ("ort", "onnx") if aggregate < 2 and not one_leaf_tree else ("ort",))[0]
    assert got.shape == (5, 2)


def _random_forest(seed: int) -> tuple[dict[str, Any], list[tuple[int, int]]]:
    """Random trees (every rule, random missing-value flags) over 4 features: the node
    attributes and the (tree, node) ids of the leaves."""
    rng = np.random.default_rng(seed)
    rules = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]
    columns: dict[str, list[Any]] = {
        k: []
        for k in (
            "nodes_treeids",
            "nodes_nodeids",
            "nodes_featureids",
            "nodes_values",
            "nodes_modes",
            "nodes_truenodeids",
            "nodes_falsenodeids",
            "nodes_missing_value_tracks_true",
        )
    }
    leaves = []
    for tree in range(int(rng.integers(1, 5))):
        count = 0

        def grow(depth: int, tree: int = tree) -> int:
            nonlocal count
            node, count = count, count + 1
            at = len(columns["nodes_nodeids"])
            for name in columns:
                columns[name].append(0)
            columns["nodes_treeids"][at], columns["nodes_nodeids"][at] = tree, node
            if depth == 0 or rng.random() < 0.2:
                columns["nodes_modes"][at] = "LEAF"
                columns["nodes_values"][at] = 0.0
                leaves.append((tree, node))
                return node
            columns["nodes_modes"][at] = rules[int(rng.integers(6))]
            columns["nodes_featureids"][at] = int(rng.integers(4))
            columns["nodes_values"][at] = float(rng.integers(-2, 3)) / 2
            columns["nodes_missing_value_tracks_true"][at] = int(rng.integers(2))
            columns["nodes_truenodeids"][at] = grow(depth - 1)
            columns["nodes_falsenodeids"][at] = grow(depth - 1)
            return node

        grow(int(rng.integers(1, 5)))
    return columns, leaves


@pytest.mark.parametrize("seed", range(12))
def test_random_forests_walk_as_onnx_reference(seed: int) -> None:
    """Random trees, every rule and missing-value flag, inputs on the thresholds and NaN:
    the regressor (each aggregate in turn) and a classifier, against onnx's evaluator."""
    rng = np.random.default_rng(100 + seed)
    columns, leaves = _random_forest(seed)
    x = (rng.integers(-3, 4, size=(40, 4)) / 2).astype(np.float32)
    x[rng.random(x.shape) < 0.15] = np.nan
    weights = [round(float(w), 2) for w in rng.normal(size=2 * len(leaves))]
    entries = [(t, n, k) for (t, n) in leaves for k in range(2)]
    regressor = {
        **columns,
        "target_treeids": [t for t, _, _ in entries],
        "target_nodeids": [n for _, n, _ in entries],
        "target_ids": [k for _, _, k in entries],
        "target_weights": weights,
        "n_targets": 2,
        "aggregate_function": ["SUM", "AVERAGE"][seed % 2],
    }
    check(_model("TreeEnsembleRegressor", regressor, {"X": x}, [("Y", F)]), {"X": x}, ("onnx",))
    classifier = {
        **columns,
        "class_treeids": regressor["target_treeids"],
        "class_nodeids": regressor["target_nodeids"],
        "class_ids": regressor["target_ids"],
        "class_weights": weights,
        "classlabels_int64s": [4, 9],
        "post_transform": ["NONE", "SOFTMAX", "LOGISTIC"][seed % 3],
    }
    check(_model("TreeEnsembleClassifier", classifier, {"X": x}, [("Y", I64), ("Z", F)]), {"X": x}, ("onnx",))
