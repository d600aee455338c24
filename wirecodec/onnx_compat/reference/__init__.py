"""``onnx.reference``: the reference evaluator, answered by :mod:`wirecodec.reference`.

``ReferenceEvaluator`` runs a model with numpy (``run(output_names, feeds)`` as onnx's);
``op_run.OpRun`` is the base of custom operators given through ``new_ops=``. numpy and
the operator families are imported on first use, never by ``import wirecodec``.
``ops.load_op(domain, op_type, version)`` gives one operator as a class with onnx's
``eval`` (onnxscript's constant folding calls it).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["ReferenceEvaluator", "op_run", "ops"]  # ReferenceEvaluator, op_run: by __getattr__, on first use

_MODULES = {
    "op_run": "wirecodec.reference.op_run",
    "reference_evaluator": "wirecodec.reference._evaluator",
    "ops": "wirecodec.onnx_compat.reference.ops",
    "shape_annotation_checker": "wirecodec.onnx_compat.reference.shape_annotation_checker",
}


def __getattr__(name: str) -> Any:
    if name == "ReferenceEvaluator":
        return importlib.import_module("wirecodec.reference").ReferenceEvaluator
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    raise AttributeError(f"module 'onnx.reference' has no attribute {name!r}")
