"""Sizes past int64 against onnx's inference: a dimension computed from huge ones (Concat,
Tile, a ConvTranspose's group of channels, values propagated through Add/Sub/Mul) and the
intermediate products onnx checks (a dilated kernel, a Pad's total, a block area, a
Col2Im block). Each model is inferred by both in strict mode: both refuse, and ours with
an ``InferenceError`` that says "overflow", or both give the same bytes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec import decode, encode
from wirecodec.shape_inference import InferenceError, infer_shapes

onnx = require_onnx()
helper, F, I64 = onnx.helper, onnx.TensorProto.FLOAT, onnx.TensorProto.INT64
BIG = (1 << 63) - 1


def _model(nodes: list[Any], inputs: dict[str, Any], opset: int = 22, **constants: list[int]) -> Any:
    infos = [helper.make_tensor_value_info(n, F, shape) for n, shape in inputs.items()]
    infos += [helper.make_tensor_value_info(n, I64, [len(v)]) for n, v in constants.items()]
    initializer = [onnx.numpy_helper.from_array(np.array(v, np.int64), n) for n, v in constants.items()]
    graph = helper.make_graph(nodes, "g", infos, [], initializer=initializer)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _same(model: Any, data_prop: bool = False) -> None:
    try:
        theirs: bytes | None = onnx.shape_inference.infer_shapes(
            model, strict_mode=True, data_prop=data_prop
        ).SerializeToString()
    except onnx.shape_inference.InferenceError:
        theirs = None
    if theirs is None:
        with pytest.raises(InferenceError, match="overflow"):
            infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True, data_prop=data_prop)
        return
    ours = infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True, data_prop=data_prop)
    assert encode(ours) == theirs


CASES = {
    "concat past int64": lambda: _model(
        [helper.make_node("Concat", ["x", "y"], ["z"], axis=0)], {"x": [BIG, 1], "y": [1, 1]}
    ),
    "concat up to int64": lambda: _model(
        [helper.make_node("Concat", ["x", "y"], ["z"], axis=0)], {"x": [BIG - 1, 1], "y": [1, 1]}
    ),
    "tile past int64": lambda: _model([helper.make_node("Tile", ["x", "r"], ["y"])], {"x": [2]}, r=[BIG]),
    "tile of one": lambda: _model([helper.make_node("Tile", ["x", "r"], ["y"])], {"x": [1]}, r=[BIG]),
    "dilated kernel": lambda: _model(
        [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[BIG])], {"x": [1, 1, 5], "w": [1, 1, 2]}
    ),
    "group of channels": lambda: _model(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], group=2)], {"x": [1, 2, 1], "w": [2, BIG, 1]}
    ),
    "pad total": lambda: _model([helper.make_node("Pad", ["x", "p"], ["y"])], {"x": ["N"]}, p=[BIG, 1]),
    "pad total that cancels": lambda: _model(
        [helper.make_node("Pad", ["x", "p"], ["y"])], {"x": [4]}, p=[BIG, -BIG]
    ),
    "block area": lambda: _model(
        [helper.make_node("SpaceToDepth", ["x"], ["y"], blocksize=1 << 32)], {"x": [1, 1, 4, 4]}
    ),
    "col2im block": lambda: _model(
        [helper.make_node("Col2Im", ["x", "image", "block"], ["y"])],
        {"x": [1, 1, 1]},
        image=[1, 1],
        block=[BIG, 2],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_sizes_past_int64_as_onnx(case: str) -> None:
    _same(CASES[case]())


@pytest.mark.quick
@pytest.mark.parametrize(("op", "second"), [("Add", [1]), ("Sub", [-1]), ("Mul", [2]), ("Add", [-1])])
def test_propagated_values_past_int64_as_onnx(op: str, second: list[int]) -> None:
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node(op, ["s", "k"], ["t"]),
        helper.make_node("ConstantOfShape", ["t"], ["z"]),
    ]
    _same(_model(nodes, {"x": [BIG]}, k=second), data_prop=True)
