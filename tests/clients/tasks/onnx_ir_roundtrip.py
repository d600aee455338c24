"""onnx-ir: a model read into onnx-ir's IR, a node renamed and a weight doubled, written back."""

import sys

import numpy as np
import onnx
import onnx_ir as ir
from onnx import TensorProto, helper, numpy_helper

W = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "W")
graph = helper.make_graph(
    [
        helper.make_node("MatMul", ["X", "W"], ["H"], name="mm"),
        helper.make_node("Relu", ["H"], ["Y"], name="act"),
    ],
    "g",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 2])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 3])],
    [W],
)
model = ir.serde.deserialize_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]))
model.graph.node(1).name = "activation"
weight = model.graph.initializers["W"]
weight.const_value = ir.tensor(weight.const_value.numpy() * 2, name="W")
proto = ir.serde.serialize_model(model)
onnx.checker.check_model(proto)
with open(sys.argv[1], "wb") as out:
    out.write(proto.SerializeToString())
