"""The checker's type verdicts where a schema's spelling or a parameter's kind matters, side
by side with onnx: ZipMap's output types (written ``seq(map(int64, float))`` with a space),
a Loop carrying values of different types (a heterogeneous variadic), an element type no
schema knows; and an attribute without a type in a model without ``ir_version``."""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from wirecodec import decode, helper
from wirecodec.checker import violations
from wirecodec.shape_inference import infer_shapes
from wirecodec.shape_inference._check_types import TypeCheckError, canonical_type_str

onnx = pytest.importorskip("onnx", reason="onnx is the reference for the type verdicts (test extra)")

F, I64 = 1, 7


def _theirs(model: ModelProto) -> Any:
    return onnx.shape_inference.infer_shapes(
        onnx.load_from_string(model.SerializeToString()), check_type=True, strict_mode=True
    )


@pytest.mark.quick
def test_a_schema_type_string_with_spaces_reads_as_without() -> None:
    assert canonical_type_str("seq(map(int64, float))") == "seq(map(int64,tensor(float)))"
    assert canonical_type_str("map(string, tensor(float))") == "map(string,tensor(float))"


def test_zipmap_output_type_is_allowed_as_onnx_allows_it() -> None:
    node = helper.make_node("ZipMap", ["x"], ["z"], domain="ai.onnx.ml", classlabels_int64s=[1, 2, 3])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", F, [1, 3])],
        [helper.make_value_info("z", helper.TypeProto())],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("ai.onnx.ml", 3)]
    )
    theirs = _theirs(model)
    ours = infer_shapes(model, check_type=True, strict_mode=True)
    want = theirs.graph.output[0].type.sequence_type.elem_type.map_type.key_type
    assert ours.graph.output[0].type.sequence_type.elem_type.map_type.key_type == want == I64


def _loop_model() -> ModelProto:
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["a_in"], ["a_out"]),
            helper.make_node("Identity", ["b_in"], ["b_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", I64, []),
            helper.make_tensor_value_info("cond_in", 9, []),
            helper.make_tensor_value_info("a_in", F, [2]),
            helper.make_tensor_value_info("b_in", I64, [3]),
        ],
        [
            helper.make_tensor_value_info("cond_out", 9, []),
            helper.make_tensor_value_info("a_out", F, [2]),
            helper.make_tensor_value_info("b_out", I64, [3]),
        ],
    )
    loop = helper.make_node("Loop", ["n", "c", "a", "b"], ["a_final", "b_final"], body=body)
    graph = helper.make_graph(
        [loop],
        "g",
        [
            helper.make_tensor_value_info("n", I64, []),
            helper.make_tensor_value_info("c", 9, []),
            helper.make_tensor_value_info("a", F, [2]),
            helper.make_tensor_value_info("b", I64, [3]),
        ],
        [
            helper.make_value_info("a_final", helper.TypeProto()),
            helper.make_value_info("b_final", helper.TypeProto()),
        ],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_a_loop_carrying_values_of_two_types_type_checks_as_onnx() -> None:
    model = _loop_model()
    theirs = _theirs(model)
    ours = infer_shapes(model, check_type=True, strict_mode=True)
    elems = [o.type.tensor_type.elem_type for o in ours.graph.output]
    assert elems == [o.type.tensor_type.elem_type for o in theirs.graph.output] == [F, I64]


def test_an_element_type_no_schema_knows_is_refused() -> None:
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", 99, [2])],
        [helper.make_value_info("y", helper.TypeProto())],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    with pytest.raises(Exception):  # noqa: B017 - onnx refuses it, with its own error
        _theirs(model)
    with pytest.raises(TypeCheckError, match="unknown99"):
        infer_shapes(model, check_type=True, strict_mode=True)


def test_an_untyped_attribute_is_reported_in_a_model_without_ir_version() -> None:
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Relu", ["x"], ["y"])],
            "g",
            [helper.make_tensor_value_info("x", F, [2])],
            [helper.make_tensor_value_info("y", F, [2])],
        ),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    model.graph.node[0].attribute.append(helper.make_attribute("alpha", 0.5))
    model.graph.node[0].attribute[0].ClearField("type")
    model.ClearField("ir_version")
    model = decode(ModelProto, model.SerializeToString())
    rules = {v.rule for v in violations(model)}
    assert "attribute-type" in rules, rules
