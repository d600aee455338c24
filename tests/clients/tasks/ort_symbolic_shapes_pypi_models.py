"""onnxruntime's symbolic shape inference on models from PyPI wheels
(bench/models_people_have.py): each model given after the output path, its intermediate
types cleared first so that every one is inferred; the result is the inferred models' bytes."""

import sys

import onnx
from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

with open(sys.argv[1], "wb") as out:
    for path in sys.argv[2:]:
        model = onnx.load(path)
        del model.graph.value_info[:]
        inferred = SymbolicShapeInference.infer_shapes(model, auto_merge=True)
        out.write(inferred.SerializeToString())
