"""Shape inference for ``extract_model(infer_shapes=True)``: onnx's, when onnx is installed.

wirecodec has no operator schemas, so it cannot infer shapes itself. When the onnx
package is installed, :func:`infer_with_onnx` hands it the model's *structure* —
initializers of 1 KiB or more replaced by external-data references to nothing, so the
bytes stay small whatever the weights (onnx's own path for models past 2 GiB works the
same way: inference never reads external data) — runs ``onnx.shape_inference.infer_shapes``
and puts the original initializers back into the result. onnx is imported here only,
when called, never with wirecodec.
"""

from __future__ import annotations

from typing import Any, Final

from schema_dsl.onnx import ModelProto, StringStringEntryProto, TensorProto
from wirecodec.errors import GraphError
from wirecodec.protobuf.codec import decode, encode

__all__ = ["infer_with_onnx", "onnx_shape_inference"]

_KEEP_BELOW: Final = 1024  # small initializers stay: inference reads shapes and axes from them
_ABSENT: Final = "wirecodec-shape-inference-has-no-data"


def onnx_shape_inference() -> Any:
    """``onnx.shape_inference``, or None when onnx is not installed."""
    try:
        import onnx.shape_inference
    except ImportError:
        return None
    return onnx.shape_inference


def _headers(model: ModelProto) -> ModelProto:
    """A copy of ``model`` whose large main-graph initializers hold no data."""
    copy = ModelProto()
    copy.CopyFrom(model)
    for tensor in copy.graph.initializer:
        if tensor.HasField("raw_data") and len(tensor.raw_data) >= _KEEP_BELOW:
            tensor.ClearField("raw_data")
            tensor.data_location = TensorProto.DataLocation.EXTERNAL
            tensor.external_data = [StringStringEntryProto(key="location", value=_ABSENT)]
    return copy


def infer_with_onnx(model: ModelProto) -> ModelProto | None:
    """``model`` with the shapes onnx infers (its ``value_info``, and what inference adds to
    inputs, outputs and bodies), its own initializers kept; None when onnx is not installed.

    An error of onnx's inference is a :class:`~wirecodec.GraphError` carrying its message.
    """
    inference = onnx_shape_inference()
    if inference is None:
        return None
    import onnx

    theirs = onnx.ModelProto()
    theirs.ParseFromString(encode(_headers(model)))
    try:
        inferred = inference.infer_shapes(theirs)
    except Exception as exc:  # onnx's inference errors share no base class but Exception
        raise GraphError(f"onnx's shape inference failed: {str(exc).strip().splitlines()[0]}") from None
    result = decode(ModelProto, inferred.SerializeToString())
    if [t.name for t in result.graph.initializer] != [t.name for t in model.graph.initializer]:
        raise GraphError("onnx's shape inference changed the initializers: cannot put the weights back")
    result.graph.initializer = list(model.graph.initializer)
    return result
