"""spox: a model built with value propagation; TopK's output shape must come out as [N, 3]."""

import sys

import numpy as np
import spox.opset.ai.onnx.v17 as op
from spox import Tensor, argument, build

x = argument(Tensor(np.float32, ("N", 10)))
values, indices = op.top_k(x, op.constant(value=np.array([3], dtype=np.int64)), axis=-1)
model = build({"x": x}, {"values": values, "indices": indices})
shapes = [[d.dim_param or d.dim_value for d in o.type.tensor_type.shape.dim] for o in model.graph.output]
assert shapes == [["N", 3], ["N", 3]], shapes
with open(sys.argv[1], "wb") as out:
    out.write(model.SerializeToString())
