"""onnxconverter-common: a float32 model converted to float16 (convert_float_to_float16)."""

import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnxconverter_common import float16

rng = np.random.RandomState(2)
W = numpy_helper.from_array(rng.rand(4, 3).astype(np.float32), "W")
B = numpy_helper.from_array(rng.rand(3).astype(np.float32), "B")
graph = helper.make_graph(
    [
        helper.make_node("MatMul", ["X", "W"], ["H"]),
        helper.make_node("Add", ["H", "B"], ["S"]),
        helper.make_node("Relu", ["S"], ["Y"]),
    ],
    "mlp",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [None, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [None, 3])],
    [W, B],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
half = float16.convert_float_to_float16(model, keep_io_types=True)
with open(sys.argv[1], "wb") as out:
    out.write(half.SerializeToString())
