"""Einsum's ellipsis against onnx's inference: every ellipsis stands for as many axes (else
onnx's refusal, naming both inputs), the first term's axes are kept except where a size of 1
meets a later size. Strict: both refuse, or both give the same bytes."""

from __future__ import annotations

from typing import Any

import pytest

from tests.differential.shape_compare import assert_strict_inference_as_onnx
from tests.support.reference import require_onnx

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


@pytest.mark.quick
@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("...,...->...", [(2, 3), (3,)]),
        ("...,...->...", [(), (2, 3)]),
        ("...,...", [(), (2, 3)]),
        ("...ij,...ij->...ij", [(3, 4), (2, 3, 4)]),
        ("...,...->...", [(2, 3), (1, 3)]),
        ("...,...->...", [(2, 1), (1, 3)]),
        ("...,...->...", [(2, 3), (4, 3)]),
        ("...,...->...", [("N", 3), (2, 3)]),
        ("...,...->...", [(2, 3), ("N", 3)]),
        ("...,...->...", [(1, 3), ("N", 3)]),
        ("...,...->...", [("M", 3), ("N", 3)]),
        ("...,...,...->...", [(2, 3), (2, 3), (3,)]),
        ("i,...,...->...", [(4,), (1, 3), (5, 3)]),
        ("i,...,...->...", [(4,), (2, 3), (3,)]),
        ("i...,...->...", [(2, 3), (3,)]),
        ("...,i->...", [(2, 3), (4,)]),
        ("...,...->...", [(2, 3), None]),
        ("...,...->...", [(), ()]),
    ],
)
def test_einsum_ellipsis_as_onnx(equation: str, shapes: list[Any]) -> None:
    names = [f"x{i}" for i in range(len(shapes))]
    graph = helper.make_graph(
        [helper.make_node("Einsum", names, ["z"], equation=equation)],
        "g",
        [helper.make_tensor_value_info(n, F, s) for n, s in zip(names, shapes, strict=True)],
        [],
    )
    assert_strict_inference_as_onnx(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))


def test_einsum_ellipsis_refusal_names_both_inputs() -> None:
    from schema_dsl.onnx import ModelProto
    from wirecodec.protobuf.codec import decode
    from wirecodec.shape_inference import InferenceError, infer_shapes

    graph = helper.make_graph(
        [helper.make_node("Einsum", ["a", "b"], ["z"], equation="...,...->...")],
        "g",
        [helper.make_tensor_value_info("a", F, (2, 3)), helper.make_tensor_value_info("b", F, (3,))],
        [],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(InferenceError, match="input 1 represents 1 dimensions, but ellipsis for input 0"):
        infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True)
