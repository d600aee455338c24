"""Element types: ``TensorProto.DataType`` ↔ numpy dtypes, names and typed fields, as onnx maps them."""

from __future__ import annotations

from collections.abc import KeysView
from typing import TYPE_CHECKING, Any, Final

from schema_dsl.onnx import TensorProto
from wirecodec._helper.args import INT32_RANGE, as_int
from wirecodec.errors import WireCodecError
from wirecodec.tensors.dtypes import INFOS, data_type_of, numpy_dtype, numpy_module

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "UnknownElementTypeError",
    "get_all_tensor_dtypes",
    "np_dtype_to_tensor_dtype",
    "tensor_dtype_to_field",
    "tensor_dtype_to_np_dtype",
    "tensor_dtype_to_storage_tensor_dtype",
    "tensor_dtype_to_string",
]


_FIELD_STORAGE: Final = {
    "float_data": TensorProto.DataType.FLOAT,
    "int32_data": TensorProto.DataType.INT32,
    "int64_data": TensorProto.DataType.INT64,
    "double_data": TensorProto.DataType.DOUBLE,
    "uint64_data": TensorProto.DataType.UINT64,
    "string_data": TensorProto.DataType.STRING,
}


class UnknownElementTypeError(WireCodecError, KeyError, ValueError):
    """A number that is no element type (``UNDEFINED`` included): a ValueError, and the
    KeyError onnx's helpers raise, so code written against onnx catches it too."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""  # not KeyError's repr of the message


def _code(tensor_dtype: object, where: str) -> int:
    code = as_int(tensor_dtype, where, INT32_RANGE)
    if code not in INFOS:
        raise UnknownElementTypeError(f"{where}: {code} is not an element type of IR version 14")
    return code


def tensor_dtype_to_np_dtype(tensor_dtype: int) -> np.dtype[Any]:
    """The numpy dtype of a ``TensorProto.DataType`` (an ``ml_dtypes`` type for those numpy lacks).

    >>> tensor_dtype_to_np_dtype(TensorProto.FLOAT16)
    dtype('float16')
    """
    if type(tensor_dtype) is int:  # the common call: once per element type, then a lookup
        known = _NP_DTYPES.get(tensor_dtype)
        if known is not None:
            return known
    code = _code(tensor_dtype, "tensor_dtype_to_np_dtype: tensor_dtype")
    dtype = numpy_dtype(code)
    if INFOS[code].native is not None:
        _NP_DTYPES[code] = dtype
    return dtype


# tensor_dtype_to_np_dtype's answers for numpy's own types (graph tools call it once per
# tensor: onnxslim 12,000 times on three models); a dtype is immutable, and which one such a
# code gives never changes (the ml_dtypes types are not kept: they depend on its presence)
_NP_DTYPES: dict[int, np.dtype[Any]] = {}


def tensor_dtype_to_storage_tensor_dtype(tensor_dtype: int) -> int:
    """The data type whose typed field stores ``tensor_dtype`` elements (FLOAT16 → INT32, ...)."""
    code = _code(tensor_dtype, "tensor_dtype_to_storage_tensor_dtype: tensor_dtype")
    return _FIELD_STORAGE[INFOS[code].field]


def tensor_dtype_to_string(tensor_dtype: int) -> str:
    """``"TensorProto.<NAME>"`` for a ``TensorProto.DataType``.

    >>> tensor_dtype_to_string(TensorProto.BFLOAT16)
    'TensorProto.BFLOAT16'
    """
    code = _code(tensor_dtype, "tensor_dtype_to_string: tensor_dtype")
    return f"TensorProto.{TensorProto.DataType(code).name}"


def tensor_dtype_to_field(tensor_dtype: int) -> str:
    """The typed field that holds ``tensor_dtype`` elements when ``raw_data`` is not used.

    >>> tensor_dtype_to_field(TensorProto.UINT32)
    'uint64_data'
    """
    return INFOS[_code(tensor_dtype, "tensor_dtype_to_field: tensor_dtype")].field


def np_dtype_to_tensor_dtype(np_dtype: npt.DTypeLike) -> int:
    """The ``TensorProto.DataType`` of a numpy dtype (str and object dtypes are STRING).

    Only the dtypes :func:`tensor_dtype_to_np_dtype` returns, in native byte order, map to
    a type (plus any str dtype); anything else is a ``ValueError``, as in onnx.

    >>> import numpy as np
    >>> np_dtype_to_tensor_dtype(np.dtype("int8"))
    3
    """
    dtype: np.dtype[Any] = numpy_module().dtype(np_dtype)
    if dtype.kind in "OU":
        return int(TensorProto.DataType.STRING)
    try:
        code = data_type_of(dtype)
    except ValueError:
        code = None
    if code is None or numpy_dtype(code) != dtype or not dtype.isnative:
        raise ValueError(f"np_dtype_to_tensor_dtype: numpy dtype {dtype!r} has no ONNX element type")
    return code


def get_all_tensor_dtypes() -> KeysView[int]:
    """Every ``TensorProto.DataType`` that is an element type (all but UNDEFINED)."""
    return INFOS.keys()
