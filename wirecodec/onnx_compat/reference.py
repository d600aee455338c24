"""``onnx.reference``: the reference evaluator, which wirecodec does not provide.

Every name raises :class:`~wirecodec.onnx_compat.NotProvidedError`; run models with
onnxruntime (``wirecodec.onnxruntime_session``).
"""

from wirecodec.onnx_compat._unsupported import missing_module_getattr

__getattr__ = missing_module_getattr(
    "onnx.reference",
    "the reference evaluator needs operator implementations; run models with "
    "wirecodec.onnxruntime_session (onnxruntime)",
    frozenset({"ReferenceEvaluator", "op_run", "ops", "reference_evaluator"}),
)
