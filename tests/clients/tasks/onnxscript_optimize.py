"""onnxscript: a model from an ``@script`` function (to_model_proto), then its optimizer."""

import sys

import numpy as np
import onnx
from onnxscript import FLOAT, optimizer, script
from onnxscript import opset18 as op


@script()
def gelu_mlp(x: FLOAT["N", 4]) -> FLOAT["N", 2]:  # noqa: F821  (onnxscript reads "N" as a dim name)
    w = op.Constant(value=onnx.numpy_helper.from_array(np.linspace(-1, 1, 8, dtype=np.float32).reshape(4, 2)))
    scale = op.Constant(value_float=0.5)
    one = op.Constant(value_float=1.0)
    two = op.Add(one, one)
    h = op.MatMul(x, w)
    return op.Mul(op.Mul(h, scale), op.Add(op.Tanh(h), two))


model = gelu_mlp.to_model_proto()
optimized = optimizer.optimize(model)
onnx.checker.check_model(optimized)
# Add(one, one) folded by onnx.reference.ops.load_op, the Constants made initializers
assert [n.op_type for n in optimized.graph.node] == ["MatMul", "Mul", "Tanh", "Add", "Mul"], optimized.graph
with open(sys.argv[1], "wb") as out:
    out.write(optimized.SerializeToString())
