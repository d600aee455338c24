"""Operators the backend corpus does not exercise, each in a small model made with onnx's
helper, inferred by onnx and by wirecodec and compared value by value (as the corpus test)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import compare
from tests.support.reference import require_onnx

ML = "ai.onnx.ml"

# op, domain, inputs (name, elem type, shape), attributes, number of outputs
CASES: list[tuple[str, str, list[tuple[str, int, Any]], dict[str, Any], int]] = [
    ("CategoryMapper", ML, [("x", 7, [2, 3])], {"cats_int64s": [1, 2], "cats_strings": ["a", "b"]}, 1),
    ("CategoryMapper", ML, [("x", 8, ["N"])], {"cats_int64s": [1, 2], "cats_strings": ["a", "b"]}, 1),
    ("OneHotEncoder", ML, [("x", 7, [2, 3])], {"cats_int64s": [1, 2, 3, 4]}, 1),
    ("OneHotEncoder", ML, [("x", 8, ["N"])], {"cats_strings": ["a", "b"]}, 1),
    ("LinearClassifier", ML, [("x", 1, [2, 3])], {"coefficients": [1.0] * 6, "classlabels_ints": [0, 1]}, 2),
    (
        "LinearClassifier",
        ML,
        [("x", 1, ["N", 3])],
        {"coefficients": [1.0] * 6, "classlabels_strings": ["a", "b"], "intercepts": [0.0, 0.0]},
        2,
    ),
    ("LinearClassifier", ML, [("x", 1, [3])], {"coefficients": [1.0] * 6, "classlabels_ints": [0, 1]}, 2),
    ("SVMClassifier", ML, [("x", 1, [2, 3])], {"classlabels_ints": [0, 1], "vectors_per_class": [1, 1]}, 2),
    ("ZipMap", ML, [("x", 1, [2, 3])], {"classlabels_int64s": [1, 2, 3]}, 1),
    ("ZipMap", ML, [("x", 1, [2, 3])], {"classlabels_strings": ["a", "b", "c"]}, 1),
    ("LinearRegressor", ML, [("x", 1, [2, 3])], {"coefficients": [1.0] * 6, "targets": 2}, 1),
    ("Scaler", ML, [("x", 1, [2, 3])], {"scale": [1.0], "offset": [0.0]}, 1),
    ("MaxRoiPool", "", [("x", 1, [1, 3, 8, 8]), ("r", 1, [4, 5])], {"pooled_shape": [2, 2]}, 1),
    ("Multinomial", "", [("x", 1, [2, 3])], {"sample_size": 4}, 1),
    ("Multinomial", "", [("x", 1, ["B", 3])], {"sample_size": 4, "dtype": 7}, 1),
    ("Einsum", "", [("a", 1, [2, 3, 4]), ("b", 1, [2, 4, 5])], {"equation": "bij,bjk->bik"}, 1),
    ("Einsum", "", [("a", 1, ["N", 3, 4])], {"equation": "...ij->...ji"}, 1),
    ("Einsum", "", [("a", 1, [3, 3])], {"equation": "ii"}, 1),
    (
        "Conv",
        "",
        [("x", 1, ["N", 3, 9, 9]), ("w", 1, [8, 3, 3, 3])],
        {"auto_pad": "SAME_UPPER", "strides": [2, 2]},
        1,
    ),
    (
        "ConvTranspose",
        "",
        [("x", 1, [1, 2, 5, 5]), ("w", 1, [2, 4, 3, 3])],
        {"strides": [2, 2], "group": 1},
        1,
    ),
    ("MaxPool", "", [("x", 1, [1, 1, 7, 7])], {"kernel_shape": [3, 3], "ceil_mode": 1, "strides": [2, 2]}, 2),
    ("TopK", "", [("x", 1, [3, "N"]), ("k", 7, [1])], {"axis": 1}, 2),
    ("Split", "", [("x", 1, [2, 7])], {"axis": 1, "num_outputs": 3}, 3),
]


def _model(
    op: str, domain: str, inputs: list[tuple[str, int, Any]], attrs: dict[str, Any], n_out: int
) -> bytes:
    onnx = require_onnx()
    from onnx import helper

    values = [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs]
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, [n for n, _, _ in inputs], outs, domain=domain, **attrs)
    graph = helper.make_graph(
        [node], "g", values, [helper.make_value_info(o, onnx.TypeProto()) for o in outs]
    )
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid(ML, 3)]
    return bytes(helper.make_model(graph, opset_imports=opsets).SerializeToString())


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_op_equal(case: tuple[str, str, list[tuple[str, int, Any]], dict[str, Any], int]) -> None:
    result = compare(case[0], _model(*case))
    assert not result.error.startswith("onnx"), result.error  # the case must be one onnx infers
    assert result.equal, result.differing


def _map_model(op: str, attrs: dict[str, Any]) -> bytes:
    onnx = require_onnx()
    from onnx import helper

    map_type = helper.make_map_type_proto(7, helper.make_tensor_type_proto(1, []))
    node = helper.make_node(op, ["x"], ["y0"], domain=ML, **attrs)
    inputs = [helper.make_value_info("x", map_type)]
    graph = helper.make_graph([node], "g", inputs, [helper.make_value_info("y0", onnx.TypeProto())])
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid(ML, 3)]
    return bytes(helper.make_model(graph, opset_imports=opsets).SerializeToString())


@pytest.mark.parametrize(
    ("op", "attrs"),
    [
        ("CastMap", {"cast_to": "TO_FLOAT"}),
        ("CastMap", {"cast_to": "TO_STRING"}),
        ("DictVectorizer", {"int64_vocabulary": [1, 2, 3]}),
    ],
)
def test_map_op_equal(op: str, attrs: dict[str, Any]) -> None:
    result = compare(op, _map_model(op, attrs))
    assert not result.error.startswith("onnx"), result.error
    assert result.equal, result.differing
