"""What onnx's shape-inference tests call besides inference, against onnx: ``defs.has`` and
``defs.get_schema`` in their ``(op_type, domain)`` form, ``helper.make_node`` with a str of
names, and the full check's refusal by inference (``shape_inference.InferenceError``)."""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec import decode
from wirecodec import helper as wirecodec_helper
from wirecodec.onnx_compat import checker, defs
from wirecodec.onnx_compat import helper as compat_helper
from wirecodec.onnx_compat import shape_inference as compat_inference

onnx = require_onnx()


@pytest.mark.quick
@pytest.mark.parametrize(
    ("op_type", "second"),
    [("Relu", ""), ("CustomOp", ""), ("LabelEncoder", "ai.onnx.ml"), ("Relu", 6), ("Relu", 5)],
)
def test_has_takes_a_domain_in_second_place_as_onnx(op_type: str, second: Any) -> None:
    assert defs.has(op_type, second) == onnx.defs.has(op_type, second)


@pytest.mark.parametrize(("op_type", "second"), [("Relu", ""), ("LabelEncoder", "ai.onnx.ml"), ("Relu", 13)])
def test_get_schema_takes_a_domain_in_second_place_as_onnx(op_type: str, second: Any) -> None:
    ours, theirs = defs.get_schema(op_type, second), onnx.defs.get_schema(op_type, second)
    assert (ours.name, ours.domain, ours.since_version) == (theirs.name, theirs.domain, theirs.since_version)


@pytest.mark.quick
@pytest.mark.parametrize(("inputs", "outputs"), [("xy", "z"), (["x"], "out"), ("", ["y"])])
def test_make_node_reads_a_str_of_names_as_onnx(inputs: Any, outputs: Any) -> None:
    ours = compat_helper.make_node("Add", inputs, outputs)
    theirs = onnx.helper.make_node("Add", inputs, outputs)
    assert ours.SerializeToString() == theirs.SerializeToString()


def test_wirecodec_helper_still_refuses_a_str_of_names() -> None:
    with pytest.raises(TypeError, match="make_node: inputs must be a list"):
        wirecodec_helper.make_node("Add", "xy", ["z"])


def test_make_function_reads_a_str_of_names_as_onnx() -> None:
    ours = compat_helper.make_function("d", "f", "ab", "c", [], [compat_helper.make_opsetid("", 18)], "kl")
    theirs = onnx.helper.make_function("d", "f", "ab", "c", [], [onnx.helper.make_opsetid("", 18)], "kl")
    assert ours.SerializeToString() == theirs.SerializeToString()


def test_full_check_refused_by_inference_raises_inference_error_as_onnx() -> None:
    text = """
    <ir_version: 9, opset_import: ["" : 11]>
    g (float[7,6,1,5] x, float w) => () { y = Conv <auto_pad = "NOTSET", group = 1> (x, w) }
    """
    model = onnx.parser.parse_model(text)
    with pytest.raises(onnx.shape_inference.InferenceError):
        onnx.checker.check_model(model, full_check=True)
    with pytest.raises(compat_inference.InferenceError) as caught:
        checker.check_model(decode(ModelProto, model.SerializeToString()), full_check=True)
    assert isinstance(caught.value, checker.ValidationError)  # still wirecodec's CheckError
    assert caught.value.node == "graph.node[0]"


def test_an_elem_type_naming_no_type_passes_check_model_as_in_onnx() -> None:
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [onnx.helper.make_tensor_value_info("x", onnx.TensorProto.UNDEFINED, [])],
        [onnx.helper.make_tensor_value_info("y", onnx.TensorProto.UNDEFINED, [2])],
    )
    model = onnx.helper.make_model(graph)
    onnx.checker.check_model(model)
    checker.check_model(decode(ModelProto, model.SerializeToString()))
    model.graph.input[0].type.tensor_type.ClearField("elem_type")  # unset: both refuse
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    with pytest.raises(checker.ValidationError, match="no elem_type"):
        checker.check_model(decode(ModelProto, model.SerializeToString()))


@pytest.mark.parametrize(
    ("op", "inputs", "outputs"), [("Relu", 2, 1), ("Add", 1, 1), ("Relu", 1, 2), ("Add", 2, 1)]
)
@pytest.mark.parametrize("strict", [True, False])
def test_check_type_refuses_a_node_outside_its_schema_arity_as_onnx(
    op: str, inputs: int, outputs: int, strict: bool
) -> None:
    names = ["x", "y"][:inputs]
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node(op, names, [f"o{i}" for i in range(outputs)])],
        "g",
        [onnx.helper.make_tensor_value_info(n, onnx.TensorProto.FLOAT, [2]) for n in names],
        [],
    )
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 14)])
    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=strict)
        refused = False
    except onnx.shape_inference.InferenceError:
        refused = True
    ours = decode(ModelProto, model.SerializeToString())
    if refused:
        with pytest.raises(compat_inference.InferenceError, match="not in range"):
            compat_inference.infer_shapes(ours, check_type=True, strict_mode=strict)
    else:
        compat_inference.infer_shapes(ours, check_type=True, strict_mode=strict)
