"""polygraphy: the backend.onnx loaders chained as its users chain them — OnnxFromPath,
FoldConstants (onnx-graphsurgeon and onnxruntime underneath, no TensorRT), InferShapes,
SaveOnnx."""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save_model
from polygraphy.backend.onnx import FoldConstants, InferShapes, OnnxFromPath, SaveOnnx

two = numpy_helper.from_array(np.array([2.0], np.float32), "two")
w = numpy_helper.from_array(np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3), "w")
graph = helper.make_graph(
    [
        helper.make_node("Mul", ["w", "two"], ["w2"]),
        helper.make_node("Transpose", ["w2"], ["wt"], perm=[1, 0]),
        helper.make_node("MatMul", ["X", "wt"], ["M"]),
        helper.make_node("Relu", ["M"], ["Y"]),
    ],
    "fold",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 3])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 4])],
    [two, w],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
save_model(model, "fold.onnx")
folded = SaveOnnx(InferShapes(FoldConstants(OnnxFromPath("fold.onnx"))), path=sys.argv[1])()
assert [n.op_type for n in folded.graph.node] == ["MatMul", "Relu"], [n.op_type for n in folded.graph.node]
