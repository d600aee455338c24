"""The ai.onnx.ml operators at their edges: a value equal to a threshold, a NaN key, a 1-D
input, an attribute left at its default, a map given out of key order. Each node runs in
wirecodec's evaluator and in the oracles that implement it (onnxruntime, onnx.reference),
which must agree; a case names the oracles it expects, so one that stops running fails.

Where they part: onnx.reference's LabelEncoder never matches a NaN key, while LabelEncoder-4's
spec ("Float keys with value 'NaN' match any input 'NaN' value") and onnxruntime do: that
case is checked against onnxruntime. Before version 4 neither oracle matches a NaN key (a
float compared as floats are), and neither does wirecodec. onnx.reference has no CastMap.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="the models are built with onnx.helper")

from onnx import TensorProto, helper  # noqa: E402

ML = "ai.onnx.ml"
BOTH = ("ort", "onnx")


def _model(node: Any, inputs: list[Any], output: int, ml: int = 3, initializers: Any = ()) -> bytes:
    graph = helper.make_graph(
        [node], "g", inputs, [helper.make_tensor_value_info("Y", output, None)], list(initializers)
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, ml)], ir_version=9
    )
    return model.SerializeToString()  # type: ignore[no-any-return]


def _run(kind: str, data: bytes, feeds: dict[str, Any]) -> Any:
    if kind == "ours":
        from wirecodec.reference import ReferenceEvaluator

        return ReferenceEvaluator(data).run(None, feeds)[0]
    if kind == "ort":
        ort = pytest.importorskip("onnxruntime", reason="onnxruntime is one of the oracles")
        return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    from onnx.reference import ReferenceEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(data).run(None, feeds)[0]


def _check(data: bytes, feeds: dict[str, Any], want: Any, oracles: tuple[str, ...]) -> None:
    """Ours gives ``want`` (shape, type and values), and so does each oracle."""
    want = np.asarray(want)
    for kind in ("ours", *oracles):
        got = np.asarray(_run(kind, data, feeds))
        assert got.shape == want.shape, f"{kind}: shape {got.shape}, not {want.shape}"
        assert got.dtype == want.dtype, f"{kind}: {got.dtype}, not {want.dtype}"
        np.testing.assert_array_equal(got, want, err_msg=kind)


@pytest.mark.quick
def test_binarizer_gives_zero_for_a_value_equal_to_the_threshold() -> None:
    node = helper.make_node("Binarizer", ["X"], ["Y"], domain=ML, threshold=1.0)
    data = _model(node, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])], TensorProto.FLOAT)
    x = np.array([0.5, 1.0, 1.5, -1.0], np.float32)
    _check(data, {"X": x}, np.array([0.0, 0.0, 1.0, 0.0], np.float32), BOTH)


def test_array_feature_extractor_of_a_vector_gives_one_row() -> None:
    node = helper.make_node("ArrayFeatureExtractor", ["X", "I"], ["Y"], domain=ML)
    indices = helper.make_tensor("I", TensorProto.INT64, [2], [0, 2])
    x_info = helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])
    data = _model(node, [x_info], TensorProto.FLOAT, initializers=[indices])
    x = np.array([1.0, 2.0, 3.0], np.float32)
    _check(data, {"X": x}, np.array([[1.0, 3.0]], np.float32), BOTH)


@pytest.mark.parametrize("cats", ["int64s", "strings"])
def test_one_hot_encoder_without_zeros_gives_a_row_of_zeros_to_an_unknown_category(cats: str) -> None:
    if cats == "int64s":
        attrs: dict[str, Any] = {"cats_int64s": [1, 2, 3]}
        x, kind = np.array([1, 5, 3], np.int64), TensorProto.INT64
    else:
        attrs = {"cats_strings": ["a", "b", "c"]}
        x, kind = np.array(["a", "z", "c"], dtype=object), TensorProto.STRING
    node = helper.make_node("OneHotEncoder", ["X"], ["Y"], domain=ML, **attrs)  # no zeros: 1 by default
    data = _model(node, [helper.make_tensor_value_info("X", kind, [3])], TensorProto.FLOAT)
    want = np.array([[1, 0, 0], [0, 0, 0], [0, 0, 1]], np.float32)
    _check(data, {"X": x}, want, BOTH)


def test_label_encoder_4_matches_a_nan_key_with_any_nan_input() -> None:
    node = helper.make_node(
        "LabelEncoder", ["X"], ["Y"], domain=ML, keys_floats=[float("nan"), 1.0], values_int64s=[7, 8]
    )
    data = _model(node, [helper.make_tensor_value_info("X", TensorProto.FLOAT, [4])], TensorProto.INT64, ml=4)
    nan_bits = np.array([0x7FC00000, 0x7FC00001], np.uint32).view(np.float32)  # two NaNs, other bits
    x = np.array([nan_bits[0], 1.0, 2.0, nan_bits[1]], np.float32)
    _check(data, {"X": x}, np.array([7, 8, -1, 7], np.int64), ("ort",))


@pytest.mark.parametrize("ml", [2, 3])
def test_label_encoder_before_4_never_matches_a_nan_key(ml: int) -> None:
    node = helper.make_node(
        "LabelEncoder", ["X"], ["Y"], domain=ML, keys_floats=[float("nan"), 1.0], values_int64s=[7, 8]
    )
    x_info = helper.make_tensor_value_info("X", TensorProto.FLOAT, [3])
    data = _model(node, [x_info], TensorProto.INT64, ml=ml)
    x = np.array([np.nan, 1.0, 2.0], np.float32)
    _check(data, {"X": x}, np.array([-1, 8, -1], np.int64), BOTH)


def test_label_encoder_before_4_still_maps_the_string_key_nan() -> None:
    node = helper.make_node(
        "LabelEncoder", ["X"], ["Y"], domain=ML, keys_strings=["nan", "a"], values_int64s=[7, 8]
    )
    x_info = helper.make_tensor_value_info("X", TensorProto.STRING, [3])
    data = _model(node, [x_info], TensorProto.INT64, ml=2)
    x = np.array(["nan", "a", "b"], dtype=object)
    _check(data, {"X": x}, np.array([7, 8, -1], np.int64), BOTH)


def test_cast_map_dense_lists_the_values_by_key_whatever_the_map_order() -> None:
    node = helper.make_node("CastMap", ["X"], ["Y"], domain=ML, cast_to="TO_FLOAT", map_form="DENSE")
    floats = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    map_type = helper.make_map_type_proto(TensorProto.INT64, floats)
    data = _model(node, [helper.make_value_info("X", map_type)], TensorProto.FLOAT)
    x = {3: 30.0, 1: 10.0, 2: 20.0}  # inserted out of key order
    _check(data, {"X": x}, np.array([[10.0, 20.0, 30.0]], np.float32), ("ort",))
