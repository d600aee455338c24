"""onnxslim: a model with foldable constants and a redundant Identity, slimmed."""

import sys

import numpy as np
import onnxslim
from onnx import TensorProto, helper, numpy_helper

A = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "A")
B = numpy_helper.from_array(np.ones((2, 3), dtype=np.float32), "B")
graph = helper.make_graph(
    [
        helper.make_node("Add", ["A", "B"], ["C"]),
        helper.make_node("Identity", ["X"], ["Xi"]),
        helper.make_node("Mul", ["Xi", "C"], ["M"]),
        helper.make_node("Relu", ["M"], ["Y"]),
    ],
    "slim",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])],
    [A, B],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
slimmed = onnxslim.slim(model)
with open(sys.argv[1], "wb") as out:
    out.write(slimmed.SerializeToString())
