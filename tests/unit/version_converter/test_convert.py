"""wirecodec.version_converter on hand-built models: adapters, subgraphs, errors, weights."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import check, helper
from wirecodec.errors import ConvertError, WireCodecError
from wirecodec.protobuf.codec import decode
from wirecodec.version_converter import convert_version


def _model(
    nodes: list, opset: int, inputs: list | None = None, initializers: list | None = None
) -> ModelProto:
    graph = helper.make_graph(
        nodes,
        "g",
        inputs if inputs is not None else [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializers or [],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _attrs(node: object) -> dict[str, object]:
    return {a.name: (list(a.ints) or a.i) for a in node.attribute}  # type: ignore[attr-defined]


@pytest.mark.quick
def test_axes_go_to_an_input_and_back() -> None:
    model = _model([helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0])], 12)
    up = convert_version(model, 13)
    assert [n.op_type for n in up.graph.node] == ["Constant", "Unsqueeze"]
    assert list(up.graph.node[1].input) == ["x", up.graph.node[0].output[0]]
    assert list(up.graph.node[0].attribute[0].t.int64_data) == [0]
    assert up.opset_import[0].version == 13
    check(up)
    down = convert_version(up, 12)
    assert [n.op_type for n in down.graph.node] == ["Unsqueeze"]
    assert _attrs(down.graph.node[0]) == {"axes": [0]}
    assert down.opset_import[0].version == 12


@pytest.mark.quick
def test_the_model_given_is_not_changed() -> None:
    model = _model([helper.make_node("ReduceSum", ["x"], ["y"], axes=[1], keepdims=0)], 12)
    before = model.SerializeToString()
    convert_version(model, 18)
    assert model.SerializeToString() == before


def test_an_initializer_axes_input_becomes_the_attribute_and_goes() -> None:
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [1])
    model = _model([helper.make_node("ReduceMean", ["x", "axes"], ["y"])], 18, initializers=[axes])
    down = convert_version(model, 17)
    assert _attrs(down.graph.node[0]) == {"axes": [1]}
    assert list(down.graph.node[0].input) == ["x"]
    assert not down.graph.initializer


def test_weights_are_not_copied() -> None:
    weight = helper.make_tensor("w", TensorProto.FLOAT, [4], b"\0" * 16, raw=True)
    model = _model([helper.make_node("Add", ["x", "w"], ["y"])], 12, initializers=[weight])
    data = bytearray(model.SerializeToString())
    loaded = decode(ModelProto, data)
    converted = convert_version(loaded, 21)
    raw = converted.graph.initializer[0].raw_data
    assert isinstance(raw, memoryview) and raw.obj is data


def test_subgraphs_are_converted() -> None:
    then = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x"], ["t"], axes=[0])],
        "then",
        [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)],
    )
    other = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x"], ["e"], axes=[0])],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)],
    )
    model = _model(
        [helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)], 12,
        inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
    )  # fmt: skip
    up = convert_version(model, 13)
    for attribute in up.graph.node[0].attribute:
        assert [n.op_type for n in attribute.g.node] == ["Constant", "Unsqueeze"]
    check(up)


@pytest.mark.quick
@pytest.mark.parametrize(
    ("model", "target", "path", "words"),
    [
        (_model([helper.make_node("Gelu", ["x"], ["y"])], 20), 19, "graph.node[0]", "came in opset 20"),
        (_model([helper.make_node("Relu", ["x"], ["y"])], 14), 99, "", "not an ai.onnx version"),
        (_model([helper.make_node("Relu", ["x"], ["y"])], 14), 0, "", "not an ai.onnx version"),
        (_model([helper.make_node("Frobnicate", ["x"], ["y"])], 14), 15, "graph.node[0]", "no schema"),
        (_model([helper.make_node("Abs", ["x"], ["y"])], 13), 12, "graph.node[0]", "no adapter"),
        (_model([helper.make_node("ArgMax", ["x"], ["y"], select_last_index=1)], 12), 11, "graph.node[0]",
         "select_last_index"),
        (_model([helper.make_node("Sum", ["x", "r"], ["y"])], 8,
                inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
                        helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 4])]), 7, "graph.node[0]",
         "does not broadcast"),
        (_model([helper.make_node("Pad", ["x"], ["y"], pads=[0, 0, 0, 0])], 10,
                inputs=[helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [3, 4])]), 11,
         "graph.node[0]",
         "cast the data to float"),
        (_model([helper.make_node("Sin", ["x"], ["y"])], 22,
                inputs=[helper.make_tensor_value_info("x", TensorProto.BFLOAT16, [2])]), 21, "graph.node[0]",
         "BFLOAT16"),
        (_model([helper.make_node("Squeeze", ["x", "a"], ["y"])], 13,
                inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3]),
                        helper.make_tensor_value_info("a", TensorProto.INT64, [1])]), 12, "graph.node[0]",
         "neither a Constant"),
    ],
)  # fmt: skip
def test_what_cannot_be_converted_says_where_and_what_to_do(
    model: ModelProto, target: int, path: str, words: str
) -> None:
    before = model.SerializeToString()
    with pytest.raises(ConvertError, match=words) as caught:
        convert_version(model, target)
    assert caught.value.path == path
    assert isinstance(caught.value, WireCodecError) and isinstance(caught.value, ValueError)
    assert isinstance(caught.value, RuntimeError)  # what onnx raises: code written for onnx catches it
    assert model.SerializeToString() == before


def test_a_model_without_a_default_opset_is_refused() -> None:
    model = _model([helper.make_node("Relu", ["x"], ["y"])], 14)
    del model.opset_import[:]
    with pytest.raises(ConvertError, match="no default-domain") as caught:
        convert_version(model, 15)
    assert caught.value.path == "opset_import"


def test_an_error_inside_a_subgraph_names_its_path() -> None:
    body = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Gelu", ["t"], ["u"])],
        "then",
        [],
        [helper.make_tensor_value_info("u", TensorProto.FLOAT, None)],
    )
    model = _model(
        [helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)], 20,
        inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
    )  # fmt: skip
    with pytest.raises(ConvertError) as caught:
        convert_version(model, 19)
    assert caught.value.path == "graph.node[0].attribute[0].g.node[1]"


def test_the_onnx_names_work() -> None:
    from wirecodec.onnx_compat import version_converter

    model = _model([helper.make_node("Split", ["x"], ["y", "z"], split=[1, 2], axis=1)], 12)
    converted = version_converter.convert_version(model, 13)
    assert [n.op_type for n in converted.graph.node] == ["Constant", "Split"]
    assert version_converter.ConvertError is ConvertError


def test_model_local_functions_are_converted_from_their_own_version() -> None:
    body = [helper.make_node("Unsqueeze", ["a"], ["b"], axes=[0])]
    function = helper.make_function("local", "F", ["a"], ["b"], body, [helper.make_opsetid("", 12)])
    graph = helper.make_graph(
        [helper.make_node("F", ["x"], ["y"], domain="local")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )  # fmt: skip
    opsets = [helper.make_opsetid("", 12), helper.make_opsetid("local", 1)]
    model = helper.make_model(graph, opset_imports=opsets, functions=[function])
    up = convert_version(model, 13)
    converted = up.functions[0]
    assert [n.op_type for n in converted.node] == ["Constant", "Unsqueeze"]
    assert converted.node[1].input[1] == converted.node[0].output[0]
    assert [(o.domain, o.version) for o in converted.opset_import] == [("", 13)]
    check(up)
    model.functions[0].node.append(helper.make_node("Gelu", ["b"], ["c"]))
    model.functions[0].opset_import[0].version = 20
    with pytest.raises(ConvertError) as caught:
        convert_version(model, 19)
    assert caught.value.path == "functions[0].node[1]"


def test_dft_axis_goes_to_an_input_and_back() -> None:
    model = _model([helper.make_node("DFT", ["x"], ["y"], axis=1)], 19,
                   inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, 1])])  # fmt: skip
    up = convert_version(model, 20)
    assert [n.op_type for n in up.graph.node] == ["Constant", "DFT"]
    assert list(up.graph.node[1].input) == ["x", "", up.graph.node[0].output[0]]
    assert list(up.graph.node[0].attribute[0].t.dims) == []
    down = convert_version(up, 19)
    assert [n.op_type for n in down.graph.node] == ["DFT"]
    assert _attrs(down.graph.node[0]) == {"axis": 1}


def test_scatter_becomes_scatter_elements() -> None:
    model = _model([helper.make_node("Scatter", ["x", "i", "u"], ["y"], axis=1)], 10,
                   inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("i", TensorProto.INT64, [2, 1]),
                           helper.make_tensor_value_info("u", TensorProto.FLOAT, [2, 1])])  # fmt: skip
    node = convert_version(model, 11).graph.node[0]
    assert (node.op_type, list(node.input), list(node.output)) == ("ScatterElements", ["x", "i", "u"], ["y"])
    assert _attrs(node) == {"axis": 1}


def test_upsample_becomes_resize_with_a_roi_input() -> None:
    model = _model(
        [helper.make_node("Upsample", ["x", "s"], ["u"], mode="nearest"),
         helper.make_node("Relu", ["u"], ["y"])], 9,
        inputs=[helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2]),
                helper.make_tensor_value_info("s", TensorProto.FLOAT, [4])],
    )  # fmt: skip
    nodes = convert_version(model, 11).graph.node
    assert [n.op_type for n in nodes] == ["Constant", "Resize", "Relu"]
    roi = nodes[0].attribute[0].t
    assert list(roi.dims) == [8] and list(roi.float_data) == [0.0] * 4 + [1.0] * 4
    assert list(nodes[1].input) == ["x", nodes[0].output[0], "s"]
    assert nodes[2].input[0] == nodes[1].output[0]  # renamed as onnx's IR renames it


def test_scan_loses_its_batch_axis() -> None:
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_in"], ["s_out"])], "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2])],
    )  # fmt: skip
    graph = helper.make_graph(
        [helper.make_node("Scan", ["", "init", "xs"], ["y"], body=body, num_scan_inputs=1,
                          directions=[0])], "g",
        [helper.make_tensor_value_info("init", TensorProto.FLOAT, [1, 2]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [1, 3, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 8)])
    converted = convert_version(model, 9)
    node = converted.graph.node[0]
    assert list(node.input) == ["init", "xs"]
    assert "scan_input_directions" in _attrs(node) and "directions" not in _attrs(node)
    assert [len(i.type.tensor_type.shape.dim) for i in converted.graph.input] == [1, 2]
    node_with_lengths = model.graph.node[0]
    node_with_lengths.input[0] = "init"
    with pytest.raises(ConvertError, match="sequence_lens"):
        convert_version(model, 9)


def test_attention_window_must_be_off_to_go_down() -> None:
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 2, 4, 8]) for n in "qkv"]
    node = helper.make_node("Attention", ["q", "k", "v"], ["y"], left_window_size=-1)
    model = _model([node], 25, inputs=inputs)
    assert "left_window_size" not in _attrs(convert_version(model, 24).graph.node[0])
    node = helper.make_node("Attention", ["q", "k", "v"], ["y"], left_window_size=3)
    model = _model([node], 25, inputs=inputs)
    with pytest.raises(ConvertError, match="left_window_size"):
        convert_version(model, 24)


def _scan9(**attributes: object) -> ModelProto:
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "x_in"], ["s_out"])], "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2])],
    )  # fmt: skip
    graph = helper.make_graph(
        [helper.make_node("Scan", ["init", "xs"], ["y"], body=body, num_scan_inputs=1, **attributes)], "g",
        [helper.make_tensor_value_info("init", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("xs", TensorProto.FLOAT, [3, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)])


@pytest.mark.quick
def test_scan_gets_its_batch_axis_back() -> None:
    converted = convert_version(_scan9(scan_input_directions=[1]), 8)
    node = converted.graph.node[0]
    assert list(node.input) == ["", "init", "xs"]
    assert _attrs(node)["directions"] == [1] and "scan_input_directions" not in _attrs(node)
    shapes = [[d.dim_value for d in i.type.tensor_type.shape.dim] for i in converted.graph.input]
    assert shapes == [[1, 2], [1, 3, 2]]
    assert [d.dim_value for d in converted.graph.output[0].type.tensor_type.shape.dim] == [1, 2]


def test_scan_along_another_axis_does_not_go_to_8() -> None:
    model = _scan9(scan_input_axes=[1])
    with pytest.raises(ConvertError, match="scan_input_axes must be all 0") as caught:
        convert_version(model, 8)
    assert caught.value.path == "graph.node[0]"
