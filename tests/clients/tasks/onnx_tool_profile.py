"""onnx-tool: profile a small CNN (shapes inferred per tensor, MACs and parameters per node);
the result is the profile table followed by the model onnx-tool writes with the shapes."""

import pathlib
import sys

import numpy as np
import onnx_tool
from onnx import TensorProto, helper, numpy_helper, save_model

rng = np.random.default_rng(0)
weights = [
    numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "K"),
    numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "B"),
    numpy_helper.from_array(rng.standard_normal((8, 10)).astype(np.float32), "W"),
    numpy_helper.from_array(np.array([1, -1], np.int64), "shape"),
]
graph = helper.make_graph(
    [
        helper.make_node("Conv", ["X", "K", "B"], ["C"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["C"], ["R"]),
        helper.make_node("GlobalAveragePool", ["R"], ["P"]),
        helper.make_node("Reshape", ["P", "shape"], ["F"]),
        helper.make_node("MatMul", ["F", "W"], ["M"]),
        helper.make_node("Softmax", ["M"], ["Y"], axis=-1),
    ],
    "cnn",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 16, 16])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 10])],
    weights,
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
save_model(model, "cnn.onnx")
onnx_tool.model_profile("cnn.onnx", save_profile="profile.txt", save_model="shaped.onnx")
table = pathlib.Path("profile.txt").read_bytes()
assert b"Conv" in table and b"Total" in table, table
pathlib.Path(sys.argv[1]).write_bytes(table + pathlib.Path("shaped.onnx").read_bytes())
