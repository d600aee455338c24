"""onnx_compat.tools.replace_constants against onnx.tools.replace_constants: the same bytes for
models, graphs and functions (large and small initializers of several types, Constant
nodes, bodies of If, model functions, metadata, IR 3's extra inputs, every option), the
same object back where onnx returns its argument, and the same errors."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto
from tests.support.reference import require_onnx
from wirecodec.onnx_compat.tools import replace_constants as ours

onnx = require_onnx()
theirs = importlib.import_module("onnx.tools.replace_constants")
helper, nh, T = onnx.helper, onnx.numpy_helper, onnx.TensorProto


def _body() -> Any:
    big = nh.from_array(np.arange(200, dtype=np.float32).reshape(20, 10), "inner_w")
    return helper.make_graph(
        [
            helper.make_node("Constant", [], ["c"], value=nh.from_array(np.ones((15, 15), np.int64), "cv")),
            helper.make_node("Add", ["inner_w", "x"], ["t"]),
        ],
        "body",
        [],
        [helper.make_tensor_value_info("t", T.FLOAT, None)],
        initializer=[big],
    )


def _model(opset: int = 18, ir: int = 10, metadata: bool = True, function: bool = True) -> Any:
    inits = [
        nh.from_array(np.arange(300, dtype=np.float32).reshape(30, 10), "w"),
        nh.from_array(np.arange(200, dtype=np.int64), "idx"),
        nh.from_array(np.ones((16, 16), np.float16), "h"),
        nh.from_array(np.ones((3,), np.float32), "small"),
        nh.from_array(np.array(2.0, np.float64), "scalar"),
    ]
    nodes = [
        helper.make_node("Constant", [], ["k"], value=nh.from_array(np.zeros((200,), np.float32), "kv")),
        helper.make_node("Constant", [], ["k2"], value=nh.from_array(np.zeros((2,), np.float32), "kv2")),
        helper.make_node("MatMul", ["x", "w"], ["y"], name="mm", doc_string="d"),
        helper.make_node("If", ["cond"], ["z"], name="branch", then_branch=_body(), else_branch=_body()),
        # a graphs attribute whose first body changes and whose last does not
        helper.make_node(
            "Bodies",
            [],
            ["b"],
            domain="local",
            name="multi",
            bodies=[_body(), helper.make_graph([], "e", [], [])],
        ),
        helper.make_node(
            "ConstantOfShape", ["shape"], ["filled"], value=nh.from_array(np.array([3], np.int32))
        ),
    ]
    if function:
        nodes.append(helper.make_node("F", ["x"], ["fy"], domain="local"))
    graph = helper.make_graph(
        nodes,
        "g",
        [
            helper.make_tensor_value_info("x", T.FLOAT, [None, 30]),
            helper.make_tensor_value_info("w", T.FLOAT, None),
        ],
        [helper.make_tensor_value_info("y", T.FLOAT, None)],
        initializer=inits,
        value_info=[helper.make_tensor_value_info("k", T.FLOAT, [200])],
        doc_string="graph doc",
    )
    functions = []
    if function:
        functions.append(
            helper.make_function(
                "local",
                "F",
                ["x"],
                ["fy"],
                [
                    helper.make_node(
                        "Constant", [], ["fc"], value=nh.from_array(np.ones((130,), np.float32), "fcv")
                    ),
                    helper.make_node("Add", ["x", "fc"], ["fy"]),
                ],
                [helper.make_opsetid("", opset)],
                doc_string="fdoc",
            )
        )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("local", 1)],
        functions=functions,
        producer_name="p",
        producer_version="1",
        doc_string="model doc",
        domain="dom",
        model_version=3,
        ir_version=ir,
    )
    if metadata:
        helper.set_model_props(model, {"a": "1", "b": "2"})
    return model


def _ours(thing: Any) -> Any:
    cls = {onnx.ModelProto: ModelProto, onnx.GraphProto: GraphProto, onnx.FunctionProto: FunctionProto}[
        type(thing)
    ]
    return cls.FromString(thing.SerializeToString())


def _both(thing: Any, **options: Any) -> tuple[bytes, bytes]:
    a = theirs.replace_initializer_by_constant_of_shape(thing, **options)
    b = ours.replace_initializer_by_constant_of_shape(_ours(thing), **options)
    return a.SerializeToString(), b.SerializeToString()


OPTIONS = [
    {},
    {"threshold": 0},
    {"threshold": 199},
    {"threshold": 10**6},
    {"use_range": True},
    {"value_constant_of_shape": 1},
    {"value_constant_of_shape": 2.5},
    {"use_range": True, "value_constant_of_shape": 1},
    {"ir_version": 3},
]


@pytest.mark.quick
@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_a_model_as_onnx(options: dict[str, Any]) -> None:
    a, b = _both(_model(), **options)
    assert a == b


@pytest.mark.parametrize("options", OPTIONS, ids=[str(o) for o in OPTIONS])
def test_a_graph_and_a_function_as_onnx(options: dict[str, Any]) -> None:
    model = _model()
    a, b = _both(model.graph, **options)
    assert a == b
    a, b = _both(model.functions[0], **options)
    assert a == b


@pytest.mark.parametrize("ir", [3, 4, 8])
def test_ir_versions_as_onnx(ir: int) -> None:
    a, b = _both(_model(opset=11, ir=ir, metadata=False, function=False))
    assert a == b


@pytest.mark.quick
def test_what_onnx_returns_unchanged_is_returned_itself() -> None:
    small = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [], [])
    function = _model().functions[0]
    for module, convert in ((theirs, lambda x: x), (ours, _ours)):
        graph = convert(small)
        assert module.replace_initializer_by_constant_of_shape(graph, value_constant_of_shape=1) is graph
        assert module.replace_initializer_by_constant_of_shape(graph) is not graph
        f = convert(function)
        assert (
            module.replace_initializer_by_constant_of_shape(f, threshold=200, value_constant_of_shape=1) is f
        )


def _raised(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(Exception) as info:
        call()
    return info.type, str(info.value)


@pytest.mark.quick
@pytest.mark.parametrize(
    ("make", "options"),
    [
        (lambda: _model(opset=8, function=False), {}),
        (lambda: _model(opset=10, function=False), {"use_range": True}),
        (
            lambda: helper.make_graph(
                [helper.make_node("Constant", [], ["c"], value_float=1.0)], "g", [], []
            ),
            {},
        ),
        (
            lambda: helper.make_graph(
                [
                    helper.make_node(
                        "Constant",
                        [],
                        ["c"],
                        sparse_value=helper.make_sparse_tensor(
                            nh.from_array(np.ones(2, np.float32), "v"),
                            nh.from_array(np.array([0, 1], np.int64), "i"),
                            [300],
                        ),
                    )
                ],
                "g",
                [],
                [],
            ),
            {},
        ),
        (
            lambda: helper.make_graph(
                [],
                "g",
                [],
                [],
                sparse_initializer=[
                    helper.make_sparse_tensor(
                        nh.from_array(np.ones(2, np.float32), "v"),
                        nh.from_array(np.array([0, 1], np.int64), "i"),
                        [300],
                    )
                ],
            ),
            {},
        ),
        (lambda: helper.make_node("Relu", ["x"], ["y"]), {}),
    ],
    ids=["opset-8", "range-opset-10", "value_float", "sparse-constant", "sparse-initializer", "a-node"],
)
def test_errors_as_onnx(make: Any, options: dict[str, Any]) -> None:
    thing = make()
    expected = _raised(lambda: theirs.replace_initializer_by_constant_of_shape(thing, **options))
    converted = _ours(thing) if not isinstance(thing, onnx.NodeProto) else thing
    got = _raised(lambda: ours.replace_initializer_by_constant_of_shape(converted, **options))
    assert got[0] is expected[0]
    if got[0] is not TypeError:  # (the type's name differs: onnx's class or ours)
        assert got[1] == expected[1]


def test_the_name_onnx_code_imports() -> None:
    import wirecodec.onnx_compat.tools as tools

    assert tools.replace_constants is ours
    assert (
        ours.replace_initializer_by_constant_of_shape.__name__ == "replace_initializer_by_constant_of_shape"
    )
