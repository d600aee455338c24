"""``onnx.reference``: the reference evaluator, answered by :mod:`wirecodec.reference`.

``ReferenceEvaluator`` runs a model with numpy (``run(output_names, feeds)`` as onnx's);
``op_run.OpRun`` is the base of custom operators given through ``new_ops=``. numpy and
the operator families are imported on first use, never by ``import wirecodec``.
onnx's per-operator classes (``onnx.reference.ops``) are not provided.
"""

from __future__ import annotations

import importlib
from typing import Any

from wirecodec.onnx_compat._unsupported import not_provided

__all__ = ["ReferenceEvaluator", "op_run"]  # noqa: F822  (given by __getattr__, on first use)

_MODULES = {"op_run": "wirecodec.reference.op_run", "reference_evaluator": "wirecodec.reference._evaluator"}


def __getattr__(name: str) -> Any:
    if name == "ReferenceEvaluator":
        return importlib.import_module("wirecodec.reference").ReferenceEvaluator
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    if name == "ops":
        not_provided(
            "onnx.reference.ops",
            "wirecodec's evaluator registers plain functions per operator family (wirecodec.reference.ops)",
        )
    raise AttributeError(f"module 'onnx.reference' has no attribute {name!r}")
