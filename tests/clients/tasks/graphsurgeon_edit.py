"""onnx-graphsurgeon: import a model, fold constants, remove a node, clean up, export."""

import sys

import numpy as np
import onnx
import onnx_graphsurgeon as gs
from onnx import TensorProto, helper, numpy_helper

A = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "A")
B = numpy_helper.from_array(np.ones((2, 3), dtype=np.float32), "B")
model = helper.make_model(
    helper.make_graph(
        [
            helper.make_node("Add", ["A", "B"], ["C"], name="fold_me"),
            helper.make_node("Identity", ["X"], ["Xi"], name="drop_me"),
            helper.make_node("Mul", ["Xi", "C"], ["M"], name="mul"),
            helper.make_node("Relu", ["M"], ["Y"], name="relu"),
        ],
        "gs",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 3])],
        [A, B],
    ),
    opset_imports=[helper.make_opsetid("", 17)],
)
graph = gs.import_onnx(model)
identity = next(node for node in graph.nodes if node.op == "Identity")
consumer = identity.outputs[0].outputs[0]
consumer.inputs[0] = identity.inputs[0]
identity.outputs.clear()
graph.cleanup().toposort()
exported = gs.export_onnx(graph)
onnx.checker.check_model(exported)
with open(sys.argv[1], "wb") as out:
    out.write(exported.SerializeToString())
