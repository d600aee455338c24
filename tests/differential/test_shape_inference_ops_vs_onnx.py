"""Operators the backend corpus does not exercise, each in a small model made with onnx's
helper, inferred by onnx and by wirecodec and compared value by value (as the corpus test).

A case may carry initializers (constant inputs: Resize's scales and sizes), and the graph
cases chain nodes whose values shape inference must carry (data propagation: Shape, Gather,
arithmetic, Concat, then Reshape). The backend corpus feeds every input as a graph input,
so rules over constant inputs and over type variables were tested only by onnx's own tests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.differential.shape_compare import compare
from tests.support.reference import require_onnx

ML = "ai.onnx.ml"

# op, domain, inputs (name, elem type, shape), attributes, number of outputs, and optionally
# initializers (name -> array: a constant input; an input named "" is omitted)
Case = (
    tuple[str, str, list[tuple[str, int, Any]], dict[str, Any], int]
    | tuple[str, str, list[tuple[str, int, Any]], dict[str, Any], int, dict[str, Any]]
)
_U8, _I8 = 2, 3
_QLINEAR_CONV_INPUTS = [
    ("x", _U8, [1, 2, 5, 5]),
    ("x_scale", 1, []),
    ("x_zero_point", _U8, []),
    ("w", _I8, [4, 2, 3, 3]),
    ("w_scale", 1, []),
    ("w_zero_point", _I8, []),
    ("y_scale", 1, []),
    ("y_zero_point", _I8, []),  # T3: the output's type, not x's (T1)
]
_IMAGE = ("x", 1, [1, 3, 4, 6])
CASES: list[Case] = [
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
    ("QLinearConv", "", _QLINEAR_CONV_INPUTS, {}, 1),
    ("QLinearConv", "", _QLINEAR_CONV_INPUTS, {"pads": [1, 1, 1, 1], "strides": [2, 2]}, 1),
    # Resize: the output's dims from constant scales or sizes
    ("Resize", "", [_IMAGE, ("", 0, None), ("s", 1, [4])], {}, 1, {"s": np.float32([1, 1, 2, 0.5])}),
    (
        "Resize",
        "",
        [("x", 1, ["N", 3, 5, 6]), ("", 0, None), ("s", 1, [4])],
        {},
        1,
        {"s": np.float32([1, 1, 1.5, 0.5])},
    ),
    (
        "Resize",
        "",
        [_IMAGE, ("", 0, None), ("", 0, None), ("z", 7, [4])],
        {},
        1,
        {"z": np.int64([1, 3, 7, 5])},
    ),
    (
        "Resize",
        "",
        [_IMAGE, ("", 0, None), ("", 0, None), ("z", 7, [2])],
        {"axes": [2, 3]},
        1,
        {"z": np.int64([8, 9])},
    ),
    (
        "Resize",
        "",
        [_IMAGE, ("", 0, None), ("", 0, None), ("z", 7, [2])],
        {"axes": [2, 3], "keep_aspect_ratio_policy": "not_larger"},
        1,
        {"z": np.int64([8, 9])},
    ),
    (
        "Resize",
        "",
        [_IMAGE, ("", 0, None), ("", 0, None), ("z", 7, [2])],
        {"axes": [-2, -1], "keep_aspect_ratio_policy": "not_smaller"},
        1,
        {"z": np.int64([5, 5])},
    ),
    (
        "Resize",
        "",
        [_IMAGE, ("", 0, None), ("s", 1, [2])],
        {"axes": [3, 2]},
        1,
        {"s": np.float32([0.5, 3])},
    ),
    (
        "Resize",
        "",
        [_IMAGE, ("r", 1, [0]), ("s", 1, [4])],
        {},
        1,
        {"r": np.float32([]), "s": np.float32([2, 2, 1, 1])},
    ),
]


def _model(
    op: str,
    domain: str,
    inputs: list[tuple[str, int, Any]],
    attrs: dict[str, Any],
    n_out: int,
    constants: dict[str, Any] | None = None,
) -> bytes:
    """One node; inputs named in ``constants`` are initializers (not graph inputs), and the
    inputs named "" are omitted (an optional input left out)."""
    onnx = require_onnx()
    from onnx import helper, numpy_helper

    constants = {name: value for name, value in (constants or {}).items() if name}
    values = [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs if n and n not in constants]
    initializers = [numpy_helper.from_array(value, name) for name, value in constants.items()]
    outs = [f"y{i}" for i in range(n_out)]
    node = helper.make_node(op, [n for n, _, _ in inputs], outs, domain=domain, **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        values,
        [helper.make_value_info(o, onnx.TypeProto()) for o in outs],
        initializer=initializers,
    )
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid(ML, 3)]
    return bytes(helper.make_model(graph, opset_imports=opsets).SerializeToString())


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_op_equal(case: Case) -> None:
    result = compare(case[0], _model(*case))
    assert not result.error.startswith("onnx"), result.error  # the case must be one onnx infers
    assert result.equal, result.differing


# -- data propagation: values of shapes carried from node to node ---------------------------

# name -> (nodes as (op, inputs, outputs, attributes), input x's shape, initializers, outputs)
GRAPHS: dict[
    str, tuple[list[tuple[str, list[str], list[str], dict[str, Any]]], list[Any], dict[str, Any], list[str]]
] = {
    "shape-gather-concat-reshape": (
        [
            ("Shape", ["x"], ["s"], {}),
            ("Gather", ["s", "i"], ["g"], {"axis": 0}),
            ("Concat", ["g", "minus_one"], ["t"], {"axis": 0}),
            ("Reshape", ["x", "t"], ["y"], {}),
        ],
        [2, 3, 4],
        {"i": np.int64([0]), "minus_one": np.int64([-1])},
        ["t", "y"],
    ),
    "shape-gather-mul-concat-reshape": (
        [
            ("Shape", ["x"], ["s"], {}),
            ("Gather", ["s", "i"], ["g"], {"axis": 0}),
            ("Mul", ["g", "m"], ["gm"], {}),
            ("Concat", ["gm", "minus_one"], ["t"], {"axis": 0}),
            ("Reshape", ["x", "t"], ["y"], {}),
        ],
        [2, 3, 4],
        {"i": np.int64([1, 2]), "m": np.int64([1, 2]), "minus_one": np.int64([-1])},
        ["t", "y"],
    ),
    "shape-sub-concat-reshape": (
        [
            ("Shape", ["x"], ["s"], {"start": 1}),
            ("Sub", ["s", "two_four"], ["d"], {}),
            ("Concat", ["minus_one", "d"], ["t"], {"axis": 0}),
            ("Reshape", ["x", "t"], ["y"], {}),
        ],
        [6, 4, 8],
        {"two_four": np.int64([2, 4]), "minus_one": np.int64([-1])},
        ["t", "y"],
    ),
    "shape-add-one-value-to-each-concat-reshape": (
        [
            ("Shape", ["x"], ["s"], {"start": 1}),
            ("Add", ["s", "minus_two"], ["d"], {}),
            ("Concat", ["minus_one", "d"], ["t"], {"axis": 0}),
            ("Reshape", ["x", "t"], ["y"], {}),
        ],
        [6, 4, 8],
        {"minus_two": np.int64([-2]), "minus_one": np.int64([-1])},
        ["t", "y"],
    ),
    "shape-div-is-not-propagated": (
        [
            ("Shape", ["x"], ["s"], {"start": 1}),
            ("Div", ["s", "two"], ["c"], {}),
            ("Concat", ["c", "minus_one"], ["t"], {"axis": 0}),
            ("Reshape", ["x", "t"], ["y"], {}),
        ],
        [6, 4, 8],
        {"two": np.int64([2]), "minus_one": np.int64([-1])},
        ["t", "y"],
    ),
    "symbolic-batch-shape-gather-concat-reshape": (
        [
            ("Shape", ["x"], ["s"], {}),
            ("Gather", ["s", "i"], ["g"], {"axis": 0}),
            ("Concat", ["g", "rest"], ["t"], {"axis": 0}),
            ("Reshape", ["x", "t"], ["y"], {}),
        ],
        ["N", 3, 4],
        {"i": np.int64([0]), "rest": np.int64([12])},
        ["t", "y"],
    ),
}


def _graph_model(name: str) -> bytes:
    onnx = require_onnx()
    from onnx import helper, numpy_helper

    nodes, shape, constants, outs = GRAPHS[name]
    graph = helper.make_graph(
        [helper.make_node(op, ins, o, **attrs) for op, ins, o, attrs in nodes],
        name,
        [helper.make_tensor_value_info("x", 1, shape)],
        [helper.make_value_info(o, onnx.TypeProto()) for o in outs],
        initializer=[numpy_helper.from_array(value, key) for key, value in constants.items()],
    )
    return bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())


@pytest.mark.parametrize("data_prop", [True, False], ids=["data_prop", "no_data_prop"])
@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_data_propagation_equal(name: str, data_prop: bool) -> None:
    result = compare(name, _graph_model(name), data_prop=data_prop)
    assert not result.error.startswith("onnx"), result.error
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
