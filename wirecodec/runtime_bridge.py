"""onnxruntime sessions for models in any layout wirecodec reads, weights served from our maps.

onnxruntime parses a model with protobuf, which refuses messages over 2 GiB, and it
cannot read our zip container. So :func:`onnxruntime_session` loads the model itself
(:func:`wirecodec.load`: a single file of any size, external data, the zip container),
hands onnxruntime the graph with the main graph's initializers stripped of their data
(so the protobuf message stays small), and gives it the weights as ``OrtValue``\\ s over
numpy views of the mapped file through ``SessionOptions.add_external_initializers``.

Why that API and not ``add_external_initializers_from_files_in_memory``: the latter
copies what it needs during session creation (its documentation says so), while an
``OrtValue`` made by ``OrtValue.ortvalue_from_numpy`` on the CPU wraps the array's
memory without a copy. Whether onnxruntime then copies the weights anyway is measured
in docs/zip-container.md (it does for weights a kernel pre-packs, such as ``MatMul``'s
constant operand; it does not for weights used as they are, such as a ``Gather`` table).

onnxruntime is imported when a session is made, never with wirecodec.
"""

from __future__ import annotations

import os
from typing import Any, Final

import numpy as np

from schema_dsl.onnx import StringStringEntryProto, TensorProto
from wirecodec.errors import TensorError
from wirecodec.files.load import load
from wirecodec.protobuf.codec import encode
from wirecodec.tensors import to_array

__all__ = ["onnxruntime_session"]

DataType = TensorProto.DataType
# Element types numpy has: their arrays go to onnxruntime as they are.
_NUMPY_TYPES: Final = frozenset(
    int(t)
    for t in (
        DataType.FLOAT, DataType.UINT8, DataType.INT8, DataType.UINT16, DataType.INT16, DataType.INT32,
        DataType.INT64, DataType.BOOL, DataType.FLOAT16, DataType.DOUBLE, DataType.UINT32, DataType.UINT64,
        DataType.COMPLEX64, DataType.COMPLEX128,
    )
)  # fmt: skip
# Whole-byte types numpy lacks: their bits go as same-sized unsigned integers, labelled.
_LABELLED_TYPES: Final = frozenset(
    int(t)
    for t in (
        DataType.BFLOAT16, DataType.FLOAT8E4M3FN, DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2,
        DataType.FLOAT8E5M2FNUZ,
    )
)  # fmt: skip
# The location a stripped initializer names: onnxruntime replaces the initializer
# before it would look for the file (it only accepts replacing external ones).
_PLACEHOLDER: Final = "wirecodec-external-initializer"
_DATA_FIELDS: Final = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data")


def _import_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise ImportError(
            "onnxruntime_session needs onnxruntime, which is not installed: pip install onnxruntime"
        ) from exc
    return onnxruntime


def _ort_value(onnxruntime: Any, tensor: TensorProto) -> Any | None:
    """An OrtValue over ``tensor``'s data (a view when it is ``raw_data``), or None to keep it inline."""
    data_type = int(tensor.data_type)
    if data_type not in _NUMPY_TYPES and data_type not in _LABELLED_TYPES:
        return None  # strings, packed sub-byte types: they stay in the graph
    try:
        array = to_array(tensor)
    except TensorError:
        return None  # onnxruntime gets the tensor as it is, and its verdict
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    if data_type in _NUMPY_TYPES:
        return onnxruntime.OrtValue.ortvalue_from_numpy(array)
    bits = array.view(np.dtype(f"u{array.dtype.itemsize}"))
    return onnxruntime.OrtValue.ortvalue_from_numpy_with_onnx_type(bits, data_type)


def _strip(tensor: TensorProto) -> None:
    for name in _DATA_FIELDS:
        tensor.ClearField(name)
    tensor.data_location = int(TensorProto.DataLocation.EXTERNAL)
    tensor.external_data = [StringStringEntryProto(key="location", value=_PLACEHOLDER)]


def onnxruntime_session(
    path: str | os.PathLike[str], sess_options: Any = None, providers: Any = None
) -> Any:
    """An ``onnxruntime.InferenceSession`` for the model at ``path``, in any layout wirecodec reads.

    A single file over 2 GiB, the zip container and external data all work: the main
    graph's initializers reach onnxruntime as ``OrtValue``\\ s over views of our maps
    (``SessionOptions.add_external_initializers``), the rest of the model as a small
    protobuf message. Other tensors (attributes, subgraph initializers, strings,
    packed 4-bit types) stay in that message.

    ``sess_options`` is used and modified (the initializers are added to it): do not
    reuse it for another session. The session keeps the views, and through them the
    maps, alive. Raises ``ImportError`` when onnxruntime is not installed.
    """
    onnxruntime = _import_onnxruntime()
    model = load(path)
    options = onnxruntime.SessionOptions() if sess_options is None else sess_options
    names: list[str] = []
    values: list[Any] = []
    for tensor in model.graph.initializer:
        value = _ort_value(onnxruntime, tensor)
        if value is not None:
            names.append(tensor.name)
            values.append(value)
            _strip(tensor)
    if names:
        options.add_external_initializers(names, values)
    session = onnxruntime.InferenceSession(encode(model), options, providers=providers)
    # onnxruntime uses the values' memory for the session's lifetime without owning it.
    session._wirecodec_weights = values
    return session
