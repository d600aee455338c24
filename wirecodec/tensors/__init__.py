"""TensorProto ↔ numpy for every element type of ONNX IR version 14.

:func:`to_array` reads a tensor's elements from ``raw_data`` or from the typed field the
spec assigns to its ``data_type`` (``float_data``, ``int32_data``, ``int64_data``,
``uint64_data``, ``double_data``, ``string_data``); :func:`from_array` writes an array
the way ``onnx.numpy_helper.from_array`` does, byte for byte.

>>> import numpy as np
>>> from wirecodec.tensors import from_array, to_array
>>> tensor = from_array(np.array([[1.5, -2.0]], dtype=np.float32), "w")
>>> tensor.dims, tensor.data_type, bytes(tensor.raw_data)
([1, 2], 1, b'\\x00\\x00\\xc0?\\x00\\x00\\x00\\xc0')
>>> to_array(tensor)
array([[ 1.5, -2. ]], dtype=float32)

**Zero copy.** For fixed-width types stored in ``raw_data`` the result is a read-only
view of the tensor's buffer (for a decoded tensor: of the bytes it was decoded from).
A copy is unavoidable for typed fields, strings, packed sub-byte types (int4, uint4,
int2, uint2, float4e2m1, float6e2m3, float6e3m2), bool ``raw_data`` holding bytes other
than 0 and 1, and every multi-byte type on a big-endian host. ``copy=True`` always gives
a fresh, writable, aligned array owned by the caller.

**Element types numpy lacks** (bfloat16, the float8/float6/float4 formats, int4, uint4,
int2, uint2) come back as the ``ml_dtypes`` types ``onnx`` uses when that package is
installed. Without it they come back as *storage arrays*: ``uint16`` (bfloat16) or
``uint8`` holding each element's bits, one element per item, sub-byte types unpacked
(an int4 -2 is ``0x0E``). :func:`to_float32` turns either form into float32 values and
:func:`from_array` accepts storage arrays with an explicit ``data_type=``.

Errors: every problem with a tensor's content is a :class:`TensorError` naming the
tensor; nothing is allocated from ``dims`` before the payload is known to hold that
many elements.

**Without numpy** importing this package (and :mod:`wirecodec.tensors.dtypes`, which the
checker and ``inspect`` read) works; the functions that make or take arrays are imported
on first use and raise :class:`~wirecodec.NumpyMissingError` then.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from wirecodec.tensors.dtypes import data_type_of, ml_dtypes_available, numpy_dtype, raw_size

if TYPE_CHECKING:
    from wirecodec.tensors.minifloat import to_float32
    from wirecodec.tensors.reading import array_from_raw, to_array
    from wirecodec.tensors.writing import from_array

# name -> the module that defines it; these modules import numpy (PEP 562: on first use)
_ARRAY_FUNCTIONS = {
    "array_from_raw": "wirecodec.tensors.reading",
    "from_array": "wirecodec.tensors.writing",
    "to_array": "wirecodec.tensors.reading",
    "to_float32": "wirecodec.tensors.minifloat",
}

if not TYPE_CHECKING:  # hidden from type checkers, which would take any name for Any

    def __getattr__(name: str) -> Any:
        """Import the module defining an array function when it is first asked for."""
        module_name = _ARRAY_FUNCTIONS.get(name)
        if module_name is None:
            raise AttributeError(f"module 'wirecodec.tensors' has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        globals()[name] = value
        return value


__all__ = [
    "array_from_raw",
    "data_type_of",
    "from_array",
    "ml_dtypes_available",
    "numpy_dtype",
    "raw_size",
    "to_array",
    "to_float32",
]
