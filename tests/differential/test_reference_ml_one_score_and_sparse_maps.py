"""Two ai.onnx.ml edges the converters' models never reach, against onnxruntime (and
onnx.reference where it has the operator):

- a LinearClassifier with one row of coefficients and no class labels labels a row 1 when
  its score passes the threshold: 0 without a post transform (a raw score), 0.5 after one
  that makes a probability (LOGISTIC); at a score equal to the threshold the oracles part
  (onnx.reference: 1, onnxruntime: 0), and wirecodec gives onnx.reference's answer;
- CastMap to a SPARSE tensor puts each value at its key, leaves out a key at or past
  ``max_map``, and refuses a map holding a negative key, as onnxruntime does (``Negative
  index values are not permitted``): an ``OperatorError`` naming the node.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="the models are built with onnx.helper")

from onnx import TensorProto, helper  # noqa: E402

ML = "ai.onnx.ml"


def _model(node: Any, inputs: list[Any], outputs: list[Any]) -> bytes:
    graph = helper.make_graph([node], "g", inputs, outputs)
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)], ir_version=9
    )
    return model.SerializeToString()  # type: ignore[no-any-return]


def _ours(data: bytes, feeds: dict[str, Any]) -> Any:
    from wirecodec.reference import ReferenceEvaluator

    return ReferenceEvaluator(data).run(None, feeds)[0]


def _ort(data: bytes, feeds: dict[str, Any]) -> Any:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the oracle")
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)[0]


def _onnx(data: bytes, feeds: dict[str, Any]) -> Any:
    from onnx.reference import ReferenceEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(data).run(None, feeds)[0]


def _one_score(post_transform: str) -> bytes:
    node = helper.make_node(
        "LinearClassifier",
        ["X"],
        ["label", "scores"],
        domain=ML,
        coefficients=[1.0, 0.0],
        intercepts=[0.0],
        post_transform=post_transform,
    )
    return _model(
        node,
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, 2])],
        [
            helper.make_tensor_value_info("label", TensorProto.INT64, [None]),
            helper.make_tensor_value_info("scores", TensorProto.FLOAT, [None, 1]),
        ],
    )


@pytest.mark.quick
@pytest.mark.parametrize(
    ("post_transform", "want"),
    [
        # raw scores -1, 0.2, 0.7: above 0 from 0.2
        ("NONE", [0, 1, 1]),
        # logistic: 0.27, 0.55, 0.67: above 0.5 from 0.2 as well; -3 gives 0.05
        ("LOGISTIC", [0, 1, 1]),
    ],
)
def test_linear_classifier_of_one_score_without_labels_as_onnxruntime(post_transform: str, want: Any) -> None:
    data = _one_score(post_transform)
    x = np.array([[-1.0, 0.0], [0.2, 0.0], [0.7, 0.0]], np.float32)
    if post_transform == "LOGISTIC":
        x[0, 0] = -3.0
    feeds = {"X": x}
    for name, run in (("ours", _ours), ("onnxruntime", _ort), ("onnx.reference", _onnx)):
        got = np.asarray(run(data, feeds))
        assert got.dtype == np.int64, name
        np.testing.assert_array_equal(got, want, err_msg=name)


@pytest.mark.parametrize("post_transform", ["NONE", "LOGISTIC"])
def test_linear_classifier_at_a_score_equal_to_the_threshold_labels_as_onnx_reference(
    post_transform: str,
) -> None:
    """Where the oracles part: at a score equal to the threshold (0 raw, 0.5 after LOGISTIC)
    onnx.reference labels the row 1 and onnxruntime 0; wirecodec follows onnx.reference."""
    data = _one_score(post_transform)
    feeds = {"X": np.array([[0.1, 0.0], [0.0, 0.0], [-0.1, 0.0]], np.float32)}
    np.testing.assert_array_equal(_ours(data, feeds), [1, 1, 0])
    np.testing.assert_array_equal(_onnx(data, feeds), [1, 1, 0])
    np.testing.assert_array_equal(_ort(data, feeds), [1, 0, 0])


def _cast_map(max_map: int) -> bytes:
    node = helper.make_node(
        "CastMap", ["X"], ["Y"], domain=ML, map_form="SPARSE", max_map=max_map, cast_to="TO_FLOAT"
    )
    map_type = helper.make_map_type_proto(
        TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, [])
    )
    return _model(
        node,
        [helper.make_value_info("X", map_type)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, max_map])],
    )


@pytest.mark.parametrize(
    ("keys", "want"),
    [
        ([3, 1], [0, 5, 0, 5]),
        ([4, 1], [0, 5, 0, 0]),  # 4 is past max_map: left out
        ([9], [0, 0, 0, 0]),
    ],
)
def test_cast_map_sparse_puts_values_at_their_keys_as_onnxruntime(keys: list[int], want: list[float]) -> None:
    data = _cast_map(4)
    feeds = {"X": {k: 5.0 for k in keys}}
    for name, run in (("ours", _ours), ("onnxruntime", _ort)):
        got = np.asarray(run(data, feeds))
        assert got.shape == (1, 4), name
        np.testing.assert_array_equal(got, [want], err_msg=name)


@pytest.mark.parametrize("keys", [[-1, 1], [-3], [-1, 9]])
def test_cast_map_sparse_refuses_a_negative_key_as_onnxruntime(keys: list[int]) -> None:
    from wirecodec.reference._errors import OperatorError

    data = _cast_map(4)
    feeds = {"X": {k: 7.0 for k in keys}}
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the oracle")
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    with pytest.raises(Exception, match="Negative index values are not permitted"):
        session.run(None, feeds)
    with pytest.raises(OperatorError, match=f"key {min(keys)} of the input map is negative") as caught:
        _ours(data, feeds)
    assert caught.value.path == "graph.node[0]"
    assert isinstance(caught.value.__cause__, ValueError)
