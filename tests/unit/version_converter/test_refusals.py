"""What wirecodec's converter refuses before or while converting (as onnx's does): a
value nothing defines, a constant whose payload does not fit its dims, a type a lower
version lacks inside an optional or a sequence, Pad data of a non-float type; each a
ConvertError naming where, the model given left as it was."""

from __future__ import annotations

import struct

import pytest

from schema_dsl.onnx import ModelProto, TensorProto, ValueInfoProto
from wirecodec import helper
from wirecodec.errors import ConvertError
from wirecodec.version_converter import convert_version


def _model(nodes: list, opset: int, inputs: list, outputs: list) -> ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


X = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 2])
Y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)


@pytest.mark.quick
def test_an_input_nothing_defines_is_named() -> None:
    model = _model([helper.make_node("Add", ["x", "w"], ["y"])], 13, [X], [Y])
    with pytest.raises(ConvertError) as caught:
        convert_version(model, 14)
    assert caught.value.path == "graph.node[0].input[1]"
    assert "'w'" in str(caught.value)


def test_an_output_nothing_defines_is_named() -> None:
    model = _model(
        [helper.make_node("Identity", ["x"], ["y"])], 13, [X], [Y, helper.make_value_info("z", Y.type)]
    )
    with pytest.raises(ConvertError) as caught:
        convert_version(model, 14)
    assert caught.value.path == "graph.output[1]"


def test_an_outer_name_read_in_a_body_is_defined() -> None:
    """A body reads a graph input and a value an earlier node made; an unknown name is named."""
    body = helper.make_graph(
        [helper.make_node("Add", ["x", "t"], ["b"])], "body", [], [ValueInfoProto(name="b")]
    )
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    before = helper.make_node("Identity", ["x"], ["t"])
    model = _model(
        [before, helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)], 13, [X, cond], [Y]
    )
    assert convert_version(model, 14).opset_import[0].version == 14
    inner = helper.make_graph(
        [helper.make_node("Identity", ["q"], ["b"])], "body", [], [ValueInfoProto(name="b")]
    )
    model = _model(
        [before, helper.make_node("If", ["c"], ["y"], then_branch=inner, else_branch=body)],
        13,
        [X, cond],
        [Y],
    )
    with pytest.raises(ConvertError) as caught:
        convert_version(model, 14)
    assert caught.value.path == "graph.node[1].attribute[1].g.node[0].input[0]"  # then_branch


def test_a_split_constant_whose_raw_data_does_not_fit_its_dims() -> None:
    split = TensorProto(data_type=TensorProto.INT64, dims=[2], raw_data=struct.pack("<q", 1))
    nodes = [
        helper.make_node("Constant", [], ["s"], value=split),
        helper.make_node("Split", ["x", "s"], ["y", "z"], axis=0),
    ]
    model = _model(nodes, 13, [X], [Y, helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    before = model.SerializeToString()
    with pytest.raises(ConvertError, match=r"dims \[2\] say 2 values, the tensor holds 8 bytes") as caught:
        convert_version(model, 12)
    assert caught.value.path == "graph.node[1]"
    assert model.SerializeToString() == before


def test_a_type_inside_an_optional_is_checked_going_down() -> None:
    element = helper.make_tensor_type_proto(TensorProto.BFLOAT16, [3])
    optional = helper.make_value_info("o", helper.make_optional_type_proto(element))
    flag = helper.make_tensor_value_info("y", TensorProto.BOOL, [])
    model = _model([helper.make_node("OptionalHasElement", ["o"], ["y"])], 28, [optional], [flag])
    with pytest.raises(ConvertError, match="BFLOAT16") as caught:
        convert_version(model, 18)
    assert caught.value.path == "graph.node[0]"


def test_an_attention_window_names_what_opset_24_lacks() -> None:
    q = helper.make_tensor_value_info("q", TensorProto.FLOAT, [2, 3, 4, 8])
    k = helper.make_tensor_value_info("k", TensorProto.FLOAT, [2, 3, 6, 8])
    node = helper.make_node("Attention", ["q", "k", "k"], ["y"], left_window_size=3)
    model = _model([node], 25, [q, k], [Y])
    with pytest.raises(ConvertError, match=r"left_window_size must be -1 .* got 3.*Windowed attention"):
        convert_version(model, 24)


def test_reshape_4_5_drops_consumed_inputs() -> None:
    node = helper.make_node("Reshape", ["x"], ["y"], consumed_inputs=[0], shape=[2, 4])
    converted = convert_version(_model([node], 4, [X], [Y]), 5)
    assert [a.name for a in converted.graph.node[-1].attribute] == []
    assert converted.graph.node[-1].op_type == "Reshape"


@pytest.mark.parametrize("op", ["Flatten", "Constant", "Greater"])
def test_integer_data_going_down_to_8_is_named(op: str) -> None:
    """onnx wraps these in Casts to float (exact only below 2**24): refused here, with the type."""
    ints = helper.make_tensor_value_info("x", TensorProto.INT64, [2, 3])
    if op == "Constant":
        node = helper.make_node(
            "Constant", [], ["y"], value=helper.make_tensor("v", TensorProto.INT64, [1], [7])
        )
        inputs = []
    else:
        node = helper.make_node(op, ["x"] * (2 if op == "Greater" else 1), ["y"])
        inputs = [ints]
    model = _model([node], 9, inputs, [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)])
    with pytest.raises(ConvertError, match=r"takes only float16, float and double; .* is INT64") as caught:
        convert_version(model, 8)
    assert caught.value.path == "graph.node[0]"


def test_a_node_missing_an_input_it_needs_is_named() -> None:
    model = _model([helper.make_node("Cast", [], ["y"], to=TensorProto.FLOAT)], 9, [], [Y])
    with pytest.raises(ConvertError, match="takes at least 1 inputs") as caught:
        convert_version(model, 8)
    assert caught.value.path == "graph.node[0]"
