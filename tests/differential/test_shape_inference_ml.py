"""The ai.onnx.ml operators against onnx's inference: the types and shapes of tree ensembles,
encoders and ArrayFeatureExtractor, and the refusals of attributes that disagree (category
lists, LabelEncoder's keys, values and default, a tree's per-node lists and thresholds).
Strict, with and without check_type: both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.reference import require_onnx

onnx = require_onnx()
helper, T = onnx.helper, onnx.TensorProto
ML = "ai.onnx.ml"


def assert_as_onnx(model: Any) -> None:
    """Strict inference (with and without check_type) gives onnx's bytes, or refuses where onnx does."""
    from schema_dsl.onnx import ModelProto
    from wirecodec.protobuf.codec import decode, encode
    from wirecodec.shape_inference import InferenceError, infer_shapes

    for check_type in (False, True):
        try:
            theirs: bytes | None = onnx.shape_inference.infer_shapes(
                model, check_type=check_type, strict_mode=True
            ).SerializeToString()
        except onnx.shape_inference.InferenceError:
            theirs = None
        try:
            decoded = decode(ModelProto, model.SerializeToString())
            ours: bytes | None = encode(infer_shapes(decoded, check_type=check_type, strict_mode=True))
        except InferenceError:
            ours = None
        assert ours == theirs, f"check_type={check_type}: onnx {_show(theirs)}, wirecodec {_show(ours)}"


def _show(data: bytes | None) -> str:
    """What inference gave, readably: the types of the graph's value_info, or 'refuses'."""
    if data is None:
        return "refuses"
    graph = onnx.load_from_string(data).graph
    return "; ".join(
        " ".join(f"{info.name}: {onnx.helper.printable_type(info.type)}".split()) for info in graph.value_info
    )


def _model(node: Any, inputs: list[tuple[str, int, Any]], ml: int, ai: int = 18) -> Any:
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(*i) for i in inputs], [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(ML, ml), helper.make_opsetid("", ai)])


@pytest.mark.quick
@pytest.mark.parametrize("indices", [(2, 3), (2,), (), ("N",), (1, 2, 3), (2, "N"), (0,), None])
@pytest.mark.parametrize("x", [(3, 4, 5), (5,), (), ("B", 4), None])
def test_array_feature_extractor_as_onnx(x: Any, indices: Any) -> None:
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], domain=ML)
    assert_as_onnx(_model(node, [("x", T.INT64, x), ("i", T.INT64, indices)], ml=3))


_CATS: list[dict[str, Any]] = [
    {"cats_int64s": [1, 2, 3], "cats_strings": ["1", "2"]},
    {"cats_int64s": [1, 2, 3], "cats_strings": ["1", "2", "3"]},
    {"cats_int64s": [1, 2, 3]},
    {"cats_strings": ["1", "2", "3"]},
    {},
]


@pytest.mark.quick
@pytest.mark.parametrize("cats", _CATS)
@pytest.mark.parametrize("elem", [T.INT64, T.STRING])
def test_category_mapper_and_one_hot_encoder_as_onnx(cats: dict[str, Any], elem: int) -> None:
    for op in ("CategoryMapper", "OneHotEncoder"):
        node = helper.make_node(op, ["x"], ["y"], domain=ML, **cats)
        assert_as_onnx(_model(node, [("x", elem, (30, "N", 5))], ml=1, ai=11))


@pytest.mark.parametrize("ml", [1, 3, 5])
@pytest.mark.parametrize("x", [(30, 3), ("N", 3), (7,), (), None])
@pytest.mark.parametrize(
    "attrs",
    [
        {"n_targets": 5},
        {},
        {"n_targets": 0},
        {"classlabels_int64s": [0, 1, 2, 3, 4]},
        {"classlabels_strings": ["a", "b"]},
        {"classlabels_int64s": [1, 2, 3], "classlabels_strings": ["a"]},
    ],
)
def test_tree_ensemble_regressor_and_classifier_as_onnx(ml: int, x: Any, attrs: dict[str, Any]) -> None:
    classifier = any(name.startswith("classlabels") for name in attrs)
    op, outputs = ("TreeEnsembleClassifier", ["y", "z"]) if classifier else ("TreeEnsembleRegressor", ["y"])
    node = helper.make_node(op, ["x"], outputs, domain=ML, **attrs)
    assert_as_onnx(_model(node, [("x", T.DOUBLE, x)], ml=ml, ai=11))


def test_tree_ensemble_classifier_with_one_output_is_refused_as_by_onnx() -> None:
    node = helper.make_node("TreeEnsembleClassifier", ["x"], ["y"], domain=ML, classlabels_int64s=[1])
    assert_as_onnx(_model(node, [("x", T.FLOAT, (3, 2))], ml=3))


def _tree(dtype: int, **changes: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {
        "n_targets": 5,
        "nodes_featureids": [0] * 5,
        "nodes_splits": helper.make_tensor("s", dtype, (5,), [1] * 5),
        "nodes_modes": helper.make_tensor("m", T.UINT8, (5,), [0] * 5),
        "nodes_truenodeids": [0] * 5,
        "nodes_falsenodeids": [0] * 5,
        "nodes_trueleafs": [0] * 5,
        "nodes_falseleafs": [0] * 5,
        "leaf_targetids": [0] * 9,
        "leaf_weights": helper.make_tensor("w", dtype, (9,), [1] * 9),
        "tree_roots": [0],
    }
    attrs.update(changes)
    return {k: v for k, v in attrs.items() if v is not None}


_TREE_CHANGES: list[dict[str, Any]] = [
    {},
    {"n_targets": None},
    {"nodes_featureids": [0] * 6},
    {"nodes_truenodeids": [0] * 6},
    {"nodes_falsenodeids": [0] * 4},
    {"nodes_trueleafs": [0] * 4},
    {"nodes_falseleafs": [0] * 4},
    {"nodes_modes": helper.make_tensor("m", T.UINT8, (4,), [0] * 4)},
    {"nodes_modes": helper.make_tensor("m", T.INT32, (5,), [0] * 5)},
    {"nodes_splits": helper.make_tensor("s", T.FLOAT, (5,), [1] * 5)},
    {"nodes_splits": helper.make_tensor("s", T.DOUBLE, (4,), [1] * 4)},
    {"nodes_splits": None},
    {"leaf_weights": helper.make_tensor("w", T.FLOAT, (9,), [1] * 9)},
    {"leaf_weights": helper.make_tensor("w", T.DOUBLE, (18,), [1] * 18)},
    {"leaf_weights": helper.make_tensor("w", T.DOUBLE, (), [1])},
    {"leaf_weights": helper.make_tensor("w", T.DOUBLE, (3, 3), [1] * 9)},
    {"leaf_weights": None},
    {"leaf_targetids": [0] * 8},
    {"leaf_targetids": None},
    {"membership_values": helper.make_tensor("v", T.FLOAT, (3,), [1] * 3)},
    {"membership_values": helper.make_tensor("v", T.DOUBLE, (3,), [1] * 3)},
]


@pytest.mark.quick
@pytest.mark.parametrize("changes", _TREE_CHANGES)
def test_tree_ensemble_attributes_as_onnx(changes: dict[str, Any]) -> None:
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], domain=ML, **_tree(T.DOUBLE, **changes))
    assert_as_onnx(_model(node, [("x", T.DOUBLE, ("B", "F"))], ml=5, ai=11))


_KEYS = helper.make_tensor("k", T.STRING, [4], ["a", "b", "c", "d"])
_VALUES = helper.make_tensor("v", T.INT64, [4], [1, 2, 3, 4])
_KV = {"keys_tensor": _KEYS, "values_tensor": _VALUES}


def _default(elem: int, dims: list[int]) -> Any:
    return helper.make_tensor("d", elem, dims, [0] * max(1, len(dims) and dims[0]))


_LABEL_ENCODERS: list[dict[str, Any]] = [
    {"keys_strings": ["a", "b"], "values_int64s": [1, 2]},
    {"keys_strings": ["a", "b"], "values_int64s": [1]},
    {"keys_int64s": [1], "values_int64s": [1]},
    {"keys_int64s": [1], "keys_strings": ["a"], "values_int64s": [1]},
    {"keys_strings": ["a"]},
    {"values_strings": ["a"]},
    {},
    {"keys_strings": ["a"], "values_floats": [1.0], "default_int64": 3},
    {"keys_tensor": _KEYS, "values_tensor": _VALUES},
    {**_KV, "default_tensor": _default(T.INT64, [1])},
    {**_KV, "default_tensor": _default(T.INT32, [1])},
    {**_KV, "default_tensor": _default(T.INT64, [])},
    {**_KV, "default_tensor": _default(T.INT64, [1, 1])},
    {"keys_tensor": _KEYS, "values_strings": ["a", "b", "c", "d"]},
    {"keys_tensor": _KEYS, "keys_strings": ["a"], "values_tensor": _VALUES},
    {"keys_tensor": helper.make_tensor("k", T.INT64, [4], [1, 2, 3, 4]), "values_tensor": _VALUES},
]


@pytest.mark.quick
@pytest.mark.parametrize(
    ("ml", "attrs"),
    # tensor attributes are from ai.onnx.ml 4 (onnx's checker refuses them before)
    [
        (ml, a)
        for ml in (1, 2, 4)
        for a in _LABEL_ENCODERS
        if ml == 4 or not any(n.endswith("_tensor") for n in a)
    ],
)
def test_label_encoder_as_onnx(ml: int, attrs: dict[str, Any]) -> None:
    node = helper.make_node("LabelEncoder", ["x"], ["y"], domain=ML, **attrs)
    assert_as_onnx(_model(node, [("x", T.STRING, ("M", 3))], ml=ml, ai=11))
