"""Proto values to numpy and back: tensors, sparse tensors, attributes, type names."""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from wirecodec.tensors import array_from_raw, to_array

# AttributeProto.AttributeType numbers
FLOAT, INT, STRING, TENSOR, GRAPH, FLOATS, INTS, STRINGS, TENSORS, GRAPHS = range(1, 11)
SPARSE_TENSOR, SPARSE_TENSORS, TYPE_PROTO, TYPE_PROTOS = 11, 12, 13, 14


def tensor_value(tensor: Any) -> Any:
    """A TensorProto as a writable numpy array (strings as an object array of str/bytes)."""
    quick = _raw_only(tensor)
    if quick is None:
        quick = _waiting_floats(tensor)
        if quick is None:
            quick = _listed_floats(tensor)
    if quick is not None:
        return quick
    array = to_array(tensor, copy=True)
    if array.dtype == object:
        array = np.vectorize(_text, otypes=[object])(array) if array.size else array
    return array


_FLOAT = 1  # TensorProto.DataType.FLOAT
_OTHER_FIELDS = (
    "raw_data",
    "int32_data",
    "string_data",
    "int64_data",
    "double_data",
    "uint64_data",
    "segment",
)


_VALUE_FIELDS = ("float_data", *_OTHER_FIELDS[1:])


@functools.cache
def _mask(schema: Any, fields: tuple[str, ...]) -> int:
    """The presence bits of ``fields`` in one mask: one ``&`` per tensor, not one per field."""
    mask = 0
    for name in fields:
        mask |= schema.bit[name]
    return mask


def _raw_only(tensor: Any) -> Any:
    """A tensor whose one value field is ``raw_data`` (what most exporters write), read by
    ``array_from_raw``: its presence told by the message's presence bits, where ``to_array``
    lists every present field (loading what still waits) to find the same; None when another
    value field (or a segment) is stored or waiting, or the data is external: ``to_array``
    reads that one and says what is wrong."""
    if tensor.data_location:  # (read first: a message not yet decoded is decoded by it)
        return None
    bits = getattr(type(tensor), "__schema__", None)
    if bits is None:  # not one of our messages
        return None
    has = tensor._has
    if not has & bits.bit["raw_data"] or has & _mask(bits, _VALUE_FIELDS):
        return None
    return array_from_raw(tensor.raw_data, tensor.data_type, tensor.dims, copy=True, name=tensor.name)


def _waiting_floats(tensor: Any) -> Any:
    """A float tensor whose ``float_data`` still waits in the decoded buffer as packed runs
    (the weights some exporters put in Constant nodes) read by numpy from those bytes,
    instead of unpacked into Python floats first (most of a first build on such a model).
    None for any other tensor: ``to_array`` reads it, and checks every field."""
    if tensor.data_type != _FLOAT or tensor.data_location:
        return None
    from wirecodec.protobuf.lazy import PendingRun, waiting_record

    run = waiting_record(tensor, "float_data")  # (unchanged by a load in another thread)
    if type(run) is not PendingRun or run.fmt != "f" or any(type(p) is not tuple for p in run.pieces):
        return None
    if tensor._has & _mask(type(tensor).__schema__, _OTHER_FIELDS):
        return None  # another value field stored or waiting: to_array says what is wrong
    shape = tuple(int(d) for d in tensor.dims)
    if any(d < 0 for d in shape) or math.prod(shape) != run.count:
        return None
    parts = [np.frombuffer(run.buf, "<f4", count, offset=start) for start, count in run.pieces]
    flat = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.zeros(0, "<f4")
    return flat.astype(np.float32).reshape(shape)  # a copy, in the host's byte order


_SHORT = 64  # float_data this long or shorter is checked value by value in Python
_FLOAT32_MAX = 3.4028234663852886e38


def _listed_floats(tensor: Any) -> Any:
    """A float tensor of a few ``float_data`` values already read (a ConstantOfShape's
    value: a run this short never waits), made by one ``np.array`` where ``to_array``
    widens, narrows and scans for NaN payloads. None when a value is a NaN (its bits are
    kept by ``to_array``) or out of float32's range, or anything but float_data holds data."""
    if tensor.data_type != _FLOAT or tensor.data_location:
        return None
    schema = getattr(type(tensor), "__schema__", None)
    if schema is None or tensor._has & _mask(schema, _OTHER_FIELDS):
        return None
    values = tensor.float_data
    if len(values) > _SHORT or not all(abs(v) <= _FLOAT32_MAX or abs(v) == math.inf for v in values):
        return None  # (a NaN fails both comparisons)
    shape = tuple(int(d) for d in tensor.dims)
    if len(shape) > _SHORT or any(d < 0 for d in shape) or math.prod(shape) != len(values):
        return None
    return np.array(values, dtype=np.float32).reshape(shape)


def _text(item: Any) -> Any:
    if isinstance(item, (bytes, bytearray, memoryview)):
        try:
            return bytes(item).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(item)
    return item


def sparse_value(sparse: Any) -> Any:
    """A SparseTensorProto as a dense numpy array."""
    values = tensor_value(sparse.values)
    indices = tensor_value(sparse.indices).astype(np.int64)
    shape = tuple(int(d) for d in sparse.dims)
    dense = np.zeros(shape, dtype=values.dtype)
    if indices.ndim == 1:
        dense.reshape(-1)[indices] = values
    else:
        dense[tuple(indices.T)] = values
    return dense


def attribute_value(attr: Any) -> Any:
    """An AttributeProto's value as Python/numpy (strings decoded; graphs as GraphProto)."""
    kind = attr.type
    if kind == FLOAT:
        return float(attr.f)
    if kind == INT:
        return int(attr.i)
    if kind == STRING:
        return _text(attr.s)
    if kind == TENSOR:
        return tensor_value(attr.t)
    if kind == GRAPH:
        return attr.g
    if kind == FLOATS:
        return [float(x) for x in attr.floats]
    if kind == INTS:
        return [int(x) for x in attr.ints]
    if kind == STRINGS:
        return [_text(x) for x in attr.strings]
    if kind == TENSORS:
        return [tensor_value(t) for t in attr.tensors]
    if kind == GRAPHS:
        return list(attr.graphs)
    if kind == SPARSE_TENSOR:
        return sparse_value(attr.sparse_tensor)
    if kind == SPARSE_TENSORS:
        return [sparse_value(t) for t in attr.sparse_tensors]
    if kind == TYPE_PROTO:
        return attr.tp
    if kind == TYPE_PROTOS:
        return list(attr.type_protos)
    return None


def default_value(value: Any) -> Any:
    """A schema default (STRING as bytes) in the form attribute_value gives."""
    if isinstance(value, bytes):
        return _text(value)
    if isinstance(value, list):
        return [_text(v) if isinstance(v, bytes) else v for v in value]
    return value


_TYPE_NAMES = {
    "float32": "float",
    "float64": "double",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "bool": "bool",
    "object": "string",
    "complex64": "complex64",
    "complex128": "complex128",
    # ml_dtypes' names where ONNX's differ
    "float4_e2m1fn": "float4e2m1",
    "float8_e8m0fnu": "float8e8m0",
}


def type_name(value: Any) -> str | None:
    """The ONNX type string of a runtime value (``tensor(float)``), or None when unknown."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "US":  # numpy's fixed-width text (np.str_, np.bytes_) is a string tensor
            return "tensor(string)"
        name = value.dtype.name
        if name in _TYPE_NAMES:
            return f"tensor({_TYPE_NAMES[name]})"
        if name.startswith(("int", "uint")):
            return f"tensor({name})"
        return f"tensor({name.replace('_', '')})"
    return None
