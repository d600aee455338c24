"""onnxruntime's symbolic shape inference on a model with symbolic dims, a Reshape and a Concat."""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

shape = numpy_helper.from_array(np.array([0, -1], dtype=np.int64), "shape")
graph = helper.make_graph(
    [
        helper.make_node("Concat", ["A", "B"], ["C"], axis=1),
        helper.make_node("Reshape", ["C", "shape"], ["R"]),
        helper.make_node("Transpose", ["R"], ["T"], perm=[1, 0]),
        helper.make_node("MatMul", ["T", "R"], ["Y"]),
    ],
    "symbolic",
    [
        helper.make_tensor_value_info("A", TensorProto.FLOAT, ["batch", "n", 4]),
        helper.make_tensor_value_info("B", TensorProto.FLOAT, ["batch", "m", 4]),
    ],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [shape],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
inferred = SymbolicShapeInference.infer_shapes(model, auto_merge=True)
with open(sys.argv[1], "wb") as out:
    out.write(inferred.SerializeToString())
