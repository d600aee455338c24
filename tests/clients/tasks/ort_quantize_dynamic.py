"""onnxruntime.quantization: quantize_dynamic of a small MatMul model."""

import pathlib
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save_model
from onnxruntime.quantization import QuantType, quantize_dynamic

W = numpy_helper.from_array(np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4), "W")
graph = helper.make_graph(
    [helper.make_node("MatMul", ["X", "W"], ["Y"])],
    "mm",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", 8])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 4])],
    [W],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
source = pathlib.Path("mm.onnx")
save_model(model, str(source))
quantize_dynamic(str(source), sys.argv[1], weight_type=QuantType.QInt8)
