"""onnxruntime.quantization: quantize_static of a small Conv + MatMul model, calibrated on a
few seeded random inputs (QDQ format, MinMax)."""

import pathlib
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save_model
from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static

rng = np.random.default_rng(0)
K = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "K")
B = numpy_helper.from_array(rng.standard_normal(4).astype(np.float32), "B")
W = numpy_helper.from_array(rng.standard_normal((4 * 6 * 6, 5)).astype(np.float32), "W")
shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
graph = helper.make_graph(
    [
        helper.make_node("Conv", ["X", "K", "B"], ["C"], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["C"], ["R"]),
        helper.make_node("Reshape", ["R", "shape"], ["F"]),
        helper.make_node("MatMul", ["F", "W"], ["Y"]),
    ],
    "convmm",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 8, 8])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 5])],
    [K, B, W, shape],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
source = pathlib.Path("convmm.onnx")
save_model(model, str(source))


class Reader(CalibrationDataReader):
    def __init__(self) -> None:
        feeds = np.random.default_rng(1).standard_normal((4, 1, 3, 8, 8)).astype(np.float32)
        self.feeds = iter([{"X": x} for x in feeds])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self.feeds, None)


quantize_static(
    str(source),
    sys.argv[1],
    Reader(),
    quant_format=QuantFormat.QDQ,
    activation_type=QuantType.QUInt8,
    weight_type=QuantType.QInt8,
)
