"""``make_tensor``: a TensorProto from a list of values or from raw bytes, as onnx builds it.

``onnx.helper.make_tensor`` stores values in the typed field the spec assigns to the data
type (``float_data``, ``int32_data``, ...), each element converted the way numpy (and,
for the types numpy lacks, ``ml_dtypes``) converts it; with ``raw=True`` it stores the
given bytes, or the little-endian bytes of the given array, in ``raw_data``. This module
reproduces those encodings: the conversion facts (which field, which rounding, which
packing) are the ones :mod:`wirecodec.tensors.dtypes` records.

Types numpy lacks are converted with ``ml_dtypes`` when it is installed (exactly as
onnx does, since onnx needs it too). Without it, integer and float8 values are
converted by :mod:`wirecodec._helper.minifloat_encode` (round to nearest, ties to even, float8
saturating like onnx); values those formats cannot hold (NaN in float4/float6, integers
out of range) are a ``ValueError`` there instead of ml_dtypes' silent choice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from schema_dsl.onnx import TensorProto
from wirecodec._helper import minifloat_encode as _minifloat_encode
from wirecodec._helper.args import INT32_RANGE, adopt, as_int, as_list, as_text
from wirecodec.tensors.dtypes import INFOS, Info, ml_dtype
from wirecodec.tensors.packing import pack_bits

__all__ = ["make_tensor"]

DataType = TensorProto.DataType

_FLOAT8: Final = frozenset(
    {DataType.FLOAT8E4M3FN, DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2, DataType.FLOAT8E5M2FNUZ}
)
_FLOAT6: Final = frozenset({DataType.FLOAT6E2M3, DataType.FLOAT6E3M2})
_SMALL_INTS: Final = frozenset({DataType.INT4, DataType.UINT4, DataType.INT2, DataType.UINT2})


def _info(data_type: object) -> Info:
    code = as_int(data_type, "make_tensor: data_type", INT32_RANGE)
    info = INFOS.get(code)
    if info is None:
        raise ValueError(f"make_tensor: data_type {code} is not an element type of IR version 14")
    return info


def make_tensor(
    name: str,
    data_type: int,
    dims: Sequence[int],
    vals: Any,
    raw: bool = False,
) -> TensorProto:
    """A TensorProto named ``name`` of ``data_type`` and shape ``dims`` holding ``vals``.

    ``raw=False``: ``vals`` are element values (any nesting numpy flattens), stored in the
    typed field of ``data_type``; float8 values saturate, bool becomes 0/1, sub-byte
    types are packed into ``int32_data``. ``raw=True``: ``vals`` are the bytes of
    ``raw_data`` (or a numpy array whose little-endian bytes, packed for sub-byte types,
    are); their length must match ``dims``. The encoding equals
    ``onnx.helper.make_tensor(...).SerializeToString()``.

    >>> t = make_tensor("w", TensorProto.FLOAT, [2], [1.0, 0.1])
    >>> t.float_data
    [1.0, 0.10000000149011612]
    """
    info = _info(data_type)
    tensor = TensorProto()
    tensor.data_type = info.code
    tensor.name = as_text(name, "make_tensor: name")
    shape = [as_int(d, f"make_tensor: dims[{i}]") for i, d in enumerate(as_list(dims, "make_tensor: dims"))]
    adopt(tensor, "dims", shape)
    if raw:
        if info.code == DataType.STRING:
            raise TypeError("make_tensor: STRING tensors cannot use raw=True (raw_data holds no strings)")
        tensor.raw_data = _raw_data(info, shape, vals)
        return tensor
    flat = _flat_values(info, vals)
    expected = math.prod(shape)
    if flat.size != expected:
        raise ValueError(
            f"make_tensor: Number of values ({flat.size}) does not match tensor dimensions {shape} "
            f"({expected} elements)"
        )
    # numpy made each item what the field stores (a float32 value, an int in range): no
    # second check of millions of items
    adopt(tensor, info.field, _field_items(info, flat))
    return tensor


# -- raw=True --------------------------------------------------------------------------------


def _little_endian(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and not _LITTLE_HOST):
        return array.astype(array.dtype.newbyteorder("<"))
    return array


_LITTLE_HOST: Final = np.little_endian


def _raw_data(info: Info, dims: list[int], vals: Any) -> bytes:
    if isinstance(vals, np.ndarray):
        if vals.dtype.kind == "O":
            raise TypeError(
                "make_tensor: vals with raw=True cannot be an object array (raw_data holds numbers)"
            )
        if info.packed:
            # onnx packs the array's bytes, one code per byte (an ml_dtypes or uint8 array).
            data = pack_bits(np.ascontiguousarray(vals).reshape(-1).view(np.uint8), info.bits).tobytes()
        else:
            data = _little_endian(vals).tobytes()
    elif isinstance(vals, (bytes, bytearray, memoryview)):
        data = bytes(vals)
    else:
        raise TypeError(
            f"make_tensor: vals with raw=True must be bytes or a numpy array, got {type(vals).__name__}"
        )
    expected = -(-math.prod(dims) * info.bits // 8)
    if len(data) != expected:
        raise ValueError(
            f"make_tensor: raw data holds {len(data)} bytes but dims {dims} of {info.name} need {expected}"
        )
    return data


# -- raw=False: element values ---------------------------------------------------------------


def _strings(vals: Any) -> npt.NDArray[Any]:
    array = np.array(vals).reshape(-1)
    if array.size == 0:
        return array
    items = []
    for i, item in enumerate(array.tolist()):
        if isinstance(item, str):
            item = item.encode("utf-8")
        if not isinstance(item, bytes):
            raise TypeError(
                f"make_tensor: vals[{i}] is a {type(item).__name__}; STRING tensors hold str or bytes"
            )
        items.append(item)
    # A numpy bytes array, as onnx builds it: its elements lose trailing NUL bytes.
    return np.array(items, dtype=np.bytes_)


def _flat_values(info: Info, vals: Any) -> npt.NDArray[Any]:
    """The values as a flat array of the element type (codes for types numpy lacks)."""
    code = info.code
    if code == DataType.STRING:
        return _strings(vals)
    if code == DataType.FLOAT8E8M0:
        return _minifloat_encode.e8m0_codes_round_up(np.asarray(vals)).reshape(-1)
    if info.native is not None:
        return np.asarray(vals, dtype=info.native).reshape(-1)
    ml = ml_dtype(info)
    if code in _FLOAT8:
        values = np.asarray(vals)
        if ml is not None:
            # onnx clips to the format's range first: float8 values saturate.
            bound = _minifloat_encode.largest(code)
            return np.asarray(np.clip(values, -bound, bound).astype(ml)).reshape(-1)
        return _minifloat_encode.float_codes(values, code, saturate=True).reshape(-1)
    if ml is not None:
        return np.asarray(vals, dtype=ml).reshape(-1)
    if code == DataType.BFLOAT16:
        return _minifloat_encode.bfloat16_codes(np.asarray(vals)).reshape(-1)
    if code in _SMALL_INTS:
        return _minifloat_encode.small_int_codes(np.asarray(vals), code).reshape(-1)
    return _minifloat_encode.float_codes(np.asarray(vals), code, saturate=False).reshape(-1)


def _field_items(info: Info, flat: npt.NDArray[Any]) -> list[Any]:
    """The typed field's items for a flat array of elements."""
    code = info.code
    if code == DataType.STRING:
        return [bytes(x) for x in flat.tolist()]
    if code == DataType.COMPLEX64:
        return flat.view(np.float32).tolist()  # type: ignore[no-any-return]
    if code == DataType.COMPLEX128:
        return flat.view(np.float64).tolist()  # type: ignore[no-any-return]
    if code == DataType.BOOL:
        return flat.astype(np.uint8).tolist()  # type: ignore[no-any-return]
    if info.packed and code not in _FLOAT6:
        # 4- and 2-bit types: int32_data holds the packed bytes; float6 keeps one code per item.
        return pack_bits(flat.view(np.uint8), info.bits).tolist()  # type: ignore[no-any-return]
    if info.native is None or code == DataType.FLOAT16:
        return flat.view(np.uint16 if info.bits == 16 else np.uint8).tolist()  # type: ignore[no-any-return]
    return flat.tolist()  # type: ignore[no-any-return]
