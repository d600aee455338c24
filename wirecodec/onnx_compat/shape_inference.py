"""``onnx.shape_inference``, which wirecodec does not provide yet.

``InferenceError`` is the class onnx raises; every function raises
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from wirecodec.errors import TensorError
from wirecodec.onnx_compat._unsupported import missing_module_getattr

__all__ = ["InferenceError"]


class InferenceError(TensorError):
    """onnx.shape_inference.InferenceError: what onnx raises where its C++ inference code (which
    also backs its printer) finds a tensor inconsistent; a :class:`~wirecodec.TensorError` here."""


__getattr__ = missing_module_getattr(
    "onnx.shape_inference",
    "shape inference needs operator schemas",
    frozenset({"infer_shapes", "infer_shapes_path", "infer_node_outputs", "infer_function_output_types"}),
)
