"""DFT-20 takes its axis as an input, DFT-19 as an attribute: going down, the axis Constant's
value becomes each DFT's attribute, and the Constant goes only once no node reads it any
more. One DFT, two DFTs sharing the Constant, a DFT and another reader of it: the bytes
onnx's converter gives."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="onnx's version converter is the oracle")

from onnx import helper, numpy_helper  # noqa: E402


def _model(readers: str) -> Any:
    axis = helper.make_node("Constant", [], ["axis"], value=numpy_helper.from_array(np.array(1, np.int64)))
    nodes = [axis, helper.make_node("DFT", ["x", "", "axis"], ["y"])]
    outputs = [helper.make_tensor_value_info("y", 1, None)]
    if readers == "two DFTs":
        nodes.append(helper.make_node("DFT", ["x", "", "axis"], ["z"]))
        outputs.append(helper.make_tensor_value_info("z", 1, None))
    elif readers == "DFT and Identity":
        nodes.append(helper.make_node("Identity", ["axis"], ["z"]))
        outputs.append(helper.make_tensor_value_info("z", 7, None))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", 1, [1, 8, 1])], outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)])


@pytest.mark.parametrize("readers", ["one DFT", "two DFTs", "DFT and Identity"])
def test_dft_20_to_19_keeps_an_axis_constant_still_read_as_onnx(readers: str) -> None:
    import wirecodec
    from wirecodec.protobuf.codec import encode
    from wirecodec.version_converter import convert_version

    model = _model(readers)
    theirs = onnx.version_converter.convert_version(model, 19)
    ours = convert_version(wirecodec.load(model.SerializeToString()), 19)
    assert encode(ours) == theirs.SerializeToString()
    kept = [node.op_type for node in ours.graph.node].count("Constant")
    assert kept == (0 if readers != "DFT and Identity" else 1)
