"""A reference evaluator in numpy: run an ONNX model without onnxruntime.

>>> import numpy as np
>>> from wirecodec import helper
>>> from wirecodec.reference import ReferenceEvaluator
>>> node = helper.make_node("Relu", ["X"], ["Y"])
>>> x, y = (helper.make_tensor_value_info(n, 1, [2]) for n in "XY")
>>> graph = helper.make_graph([node], "g", [x], [y])
>>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
>>> ReferenceEvaluator(model).run(None, {"X": np.array([-1.0, 2.0], dtype=np.float32)})
[array([0., 2.], dtype=float32)]

See docs/reference-evaluator.md. Importing this package imports numpy (it is never
imported by ``import wirecodec``); without numpy it raises
:class:`~wirecodec.errors.NumpyMissingError` (a ``ModuleNotFoundError`` named ``numpy``).
"""

from __future__ import annotations

from wirecodec.errors import NumpyMissingError

try:
    import numpy  # noqa: F401  (the evaluator's one dependency: checked once, here)
except ImportError as exc:  # one typed error naming numpy, not an ImportError deep inside
    raise NumpyMissingError() from exc

from wirecodec.reference._errors import CustomOperatorError, ShapeAnnotationError, UnknownOperatorError
from wirecodec.reference._evaluator import NodeContext, ReferenceEvaluator
from wirecodec.reference.op_run import OpRun, OpRunExpand

__all__ = [
    "CustomOperatorError",
    "NodeContext",
    "OpRun",
    "OpRunExpand",
    "ReferenceEvaluator",
    "ShapeAnnotationError",
    "UnknownOperatorError",
]
