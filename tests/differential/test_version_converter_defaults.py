"""The converter's adapters where an attribute is absent (its default decides) or changes which
dimension is which, against onnx's converter: Dropout 11 -> 12 without ``ratio``, Clip 10 ->
11 with ``max`` alone, Softmax 12 -> 13 without ``axis`` on a known rank of 4, Gemm 6 -> 7
with ``transA``. The same bytes as onnx where it converts; and the converted Softmax, run by
onnxruntime, computes what the opset-12 model computed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's converter is the reference")
from onnx import TensorProto, helper, version_converter  # noqa: E402

from schema_dsl.onnx import ModelProto  # noqa: E402
from wirecodec.protobuf.codec import decode  # noqa: E402
from wirecodec.version_converter import convert_version  # noqa: E402

F = TensorProto.FLOAT


def _model(node: Any, inputs: list[tuple[str, list[int]]], opset: int) -> Any:
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info(name, F, shape) for name, shape in inputs],
        [helper.make_tensor_value_info("y", F, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def _ours(model: Any, target: int) -> ModelProto:
    return convert_version(decode(ModelProto, model.SerializeToString()), target)


def _same_as_onnx(model: Any, target: int) -> ModelProto:
    ours = _ours(model, target)
    assert ours.SerializeToString() == version_converter.convert_version(model, target).SerializeToString()
    return ours


def _constant(model: ModelProto, name: str) -> Any:
    from wirecodec.numpy_helper import to_array

    for node in model.graph.node:
        if node.op_type == "Constant" and node.output[0] == name:
            return to_array(node.attribute[0].t)
    raise AssertionError(f"no Constant makes {name!r}")


def test_dropout_without_ratio_gets_the_default_half_as_onnx() -> None:
    converted = _same_as_onnx(_model(helper.make_node("Dropout", ["x"], ["y"]), [("x", [4, 5])], 11), 12)
    dropout = converted.graph.node[-1]
    assert float(_constant(converted, dropout.input[1])) == 0.5


def test_clip_with_max_alone_gets_the_lowest_float_as_min() -> None:
    converted = _ours(_model(helper.make_node("Clip", ["x"], ["y"], max=6.0), [("x", [4, 5])], 10), 11)
    clip = converted.graph.node[-1]
    assert float(_constant(converted, clip.input[1])) == float(np.finfo(np.float32).min)
    assert float(_constant(converted, clip.input[2])) == 6.0


def test_gemm_with_trans_a_converts_6_to_7_as_onnx() -> None:
    # A is (K, M) = (3, 2) under transA: C (2, 4) broadcasts to (M, N) = (2, 4).
    gemm = helper.make_node("Gemm", ["a", "b", "c"], ["y"], transA=1, broadcast=1)
    model = _model(gemm, [("a", [3, 2]), ("b", [3, 4]), ("c", [2, 4])], 6)
    converted = _same_as_onnx(model, 7)
    assert [a.name for a in converted.graph.node[0].attribute] == ["transA"]


def test_softmax_without_axis_12_to_13_computes_what_opset_12_did() -> None:
    ort = pytest.importorskip("onnxruntime", reason="the converted model is run to show it computes the same")
    model = _model(helper.make_node("Softmax", ["x"], ["y"]), [("x", [2, 3, 4, 5])], 12)
    converted = _ours(model, 13)
    data = np.random.default_rng(46).standard_normal((2, 3, 4, 5)).astype(np.float32)

    def run(payload: bytes) -> Any:
        session = ort.InferenceSession(payload, providers=["CPUExecutionProvider"])
        return session.run(None, {"x": data})[0]

    np.testing.assert_allclose(run(converted.SerializeToString()), run(model.SerializeToString()), rtol=1e-6)
