"""The shipped table of shared type variables equals what the installed onnx gives, and
``check_type`` refuses what breaks it (as onnx's check_type does)."""

from __future__ import annotations

import pathlib

import pytest

from tests.support.reference import require_onnx

TABLE = pathlib.Path(__file__).resolve().parents[3] / "wirecodec/shape_inference/_shared_types.py"


def test_shipped_table_is_what_onnx_gives() -> None:
    require_onnx()
    from wirecodec.shape_inference._shared_types import SHARED
    from wirecodec.shape_inference.gen_shared_types import table

    # compared as data: the shipped file is formatted by ruff after generation
    assert table() == SHARED, "regenerate: python -m wirecodec.shape_inference.gen_shared_types > " + str(
        TABLE
    )


@pytest.mark.parametrize(
    ("op", "types", "n_out"),
    [
        ("Add", [1, 7], 1),  # A and B are both T
        ("Where", [9, 1, 10], 1),  # X and Y are both T
        ("Concat", [1, 1, 11], 1),  # a homogeneous variadic input
        ("Add", [1, 1], 1),  # fine: both refuse nothing
        ("Max", [10, 10, 10], 1),
    ],
)
def test_check_type_verdict_equals_onnx(op: str, types: list[int], n_out: int) -> None:
    onnx = require_onnx()
    from onnx import helper

    from schema_dsl.onnx import ModelProto
    from wirecodec.protobuf.codec import decode
    from wirecodec.shape_inference import InferenceError, infer_shapes

    names = [f"x{i}" for i in range(len(types))]
    inputs = [helper.make_tensor_value_info(n, t, [2]) for n, t in zip(names, types, strict=True)]
    attrs = {"axis": 0} if op == "Concat" else {}
    node = helper.make_node(op, names, ["y"], **attrs)
    graph = helper.make_graph([node], "g", inputs, [helper.make_value_info("y", onnx.TypeProto())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
        theirs = True
    except onnx.shape_inference.InferenceError:
        theirs = False
    try:
        infer_shapes(decode(ModelProto, model.SerializeToString()), check_type=True, strict_mode=True)
        ours = True
    except InferenceError:
        ours = False
    assert ours == theirs
    # without check_type neither refuses what only the type variables forbid
    infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True)
