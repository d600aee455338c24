"""``onnx.shape_inference``, which wirecodec does not provide yet.

``InferenceError`` is the class onnx raises; every function raises
:class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from wirecodec.errors import WireCodecError
from wirecodec.onnx_compat._unsupported import missing_module_getattr

__all__ = ["InferenceError"]


class InferenceError(WireCodecError, ValueError):
    """Shape or type inference found the model inconsistent (onnx.shape_inference.InferenceError)."""


__getattr__ = missing_module_getattr(
    "onnx.shape_inference",
    "shape inference needs operator schemas",
    frozenset({"infer_shapes", "infer_shapes_path", "infer_node_outputs", "infer_function_output_types"}),
)
