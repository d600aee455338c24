"""``onnx.shape_inference``: :mod:`wirecodec.shape_inference` under onnx's names.

``infer_shapes`` and ``infer_shapes_path`` have onnx's signatures and meaning
(docs/shape-inference.md); ``InferenceError`` is the class both raise, and what
``onnx_compat.printer.to_text`` raises for a tensor whose data does not fit its dims.
``infer_node_outputs`` and ``infer_function_output_types`` raise
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from wirecodec.errors import TensorError
from wirecodec.onnx_compat._unsupported import missing_module_getattr
from wirecodec.shape_inference import InferenceError, infer_shapes, infer_shapes_path

__all__ = ["DataSizeError", "InferenceError", "infer_shapes", "infer_shapes_path"]


class DataSizeError(InferenceError, TensorError):
    """A tensor whose data does not fit its dims, as onnx's printer reports it: an
    ``InferenceError`` as in onnx, and a :class:`~wirecodec.TensorError` as in wirecodec."""


__getattr__ = missing_module_getattr(
    "onnx.shape_inference",
    "inferring a single node's or function's outputs is not provided",
    frozenset({"infer_node_outputs", "infer_function_output_types"}),
)
