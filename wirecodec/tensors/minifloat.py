"""float32 values of the small float formats numpy lacks, from their bit patterns alone.

Needs no ``ml_dtypes``: each format's code table is computed from its exponent and
mantissa widths, bias and special values (the OCP 8-bit and MX formats and the FNUZ
variants of the ONNX spec).
"""

from __future__ import annotations

import functools
from typing import Any, Final

from wirecodec.errors import NumpyMissingError

try:
    import numpy as np
except ImportError as exc:  # the one error that says so (docs/platforms.md)
    raise NumpyMissingError() from exc
import numpy.typing as npt

from wirecodec.errors import TensorError
from wirecodec.tensors.dtypes import DataType, Info, data_type_of, info_of, ml_dtype

__all__ = ["storage_codes", "to_float32"]


def _minifloat_table(exp_bits: int, man_bits: int, bias: int, specials: str) -> npt.NDArray[np.float32]:
    """float32 value of every code of a small float format (sign bit first).

    ``specials``: "ieee" (all-ones exponent is inf/NaN), "fn" (only all-ones
    exponent and mantissa is NaN), "fnuz" (only the negative-zero code is NaN),
    "none" (every code is finite).
    """
    width = 1 + exp_bits + man_bits
    codes = np.arange(1 << width, dtype=np.int64)
    negative = (codes >> (width - 1)) & 1 == 1
    exponent = (codes >> man_bits) & ((1 << exp_bits) - 1)
    mantissa = codes & ((1 << man_bits) - 1)
    normal = exponent > 0
    fraction = np.where(normal, 1.0, 0.0) + mantissa / float(1 << man_bits)
    magnitude = np.ldexp(fraction, np.where(normal, exponent - bias, 1 - bias))
    values = np.where(negative, -magnitude, magnitude)
    top = (1 << exp_bits) - 1
    if specials == "ieee":
        values = np.where(exponent == top, np.where(mantissa == 0, np.inf, np.nan), values)
        values = np.where((exponent == top) & negative, -np.abs(values), values)
    elif specials == "fn":
        nan = (exponent == top) & (mantissa == (1 << man_bits) - 1)
        values = np.where(nan, np.copysign(np.nan, values), values)
    elif specials == "fnuz":
        values = np.where(codes == 1 << (width - 1), np.nan, values)
    return values.astype(np.float32)


def _e8m0_table() -> npt.NDArray[np.float32]:
    codes = np.arange(256, dtype=np.int64)
    values = np.ldexp(1.0, codes - 127)
    return np.where(codes == 255, np.nan, values).astype(np.float32)


# Exponent bits, mantissa bits, bias and special values of each small float format
# (the OCP 8-bit and MX formats and the FNUZ variants of the ONNX spec).
_MINIFLOATS: Final[dict[int, tuple[int, int, int, str]]] = {
    DataType.FLOAT8E4M3FN: (4, 3, 7, "fn"),
    DataType.FLOAT8E4M3FNUZ: (4, 3, 8, "fnuz"),
    DataType.FLOAT8E5M2: (5, 2, 15, "ieee"),
    DataType.FLOAT8E5M2FNUZ: (5, 2, 16, "fnuz"),
    DataType.FLOAT4E2M1: (2, 1, 1, "none"),
    DataType.FLOAT6E2M3: (2, 3, 1, "none"),
    DataType.FLOAT6E3M2: (3, 2, 3, "none"),
}


@functools.cache
def _table(code: int) -> npt.NDArray[np.float32]:
    table = _e8m0_table() if code == DataType.FLOAT8E8M0 else _minifloat_table(*_MINIFLOATS[code])
    table.flags.writeable = False
    return table


def storage_codes(array: npt.NDArray[Any], info: Info) -> npt.NDArray[Any]:
    """The storage-array form of ``array`` (an ml_dtypes or storage array of ``info``'s type)."""
    if array.dtype == info.storage:
        return array
    if array.dtype == ml_dtype(info):
        return array.view(info.storage)
    raise TensorError(
        f"an array of dtype {array.dtype} does not hold {info.name} elements "
        f"(expected {info.storage}{'' if info.ml_name is None else ' or ml_dtypes.' + info.ml_name})"
    )


def to_float32(array: npt.NDArray[Any], data_type: int) -> npt.NDArray[np.float32]:
    """The values of ``array``, which holds ``data_type`` elements, as float32.

    Works on what :func:`to_array` returns with or without ``ml_dtypes``: for the
    types numpy lacks it decodes storage arrays (each element's bits) exactly, so no
    extra package is needed. Every value of those types is exact in float32.

    >>> import numpy as np
    >>> to_float32(np.array([0x38, 0xC0, 0x7F], dtype=np.uint8), DataType.FLOAT8E4M3FN)
    array([ 1., -2., nan], dtype=float32)
    >>> to_float32(np.array([0x0E, 0x07], dtype=np.uint8), DataType.INT4)
    array([-2.,  7.], dtype=float32)
    """
    info = info_of(data_type, "data_type")
    code = info.code
    if info.native is not None:
        if code in (DataType.STRING, DataType.COMPLEX64, DataType.COMPLEX128):
            raise TensorError(f"{info.name} values have no float32 form")
        if array.dtype.kind in "OUS" or data_type_of(array.dtype) != code:
            raise TensorError(f"an array of dtype {array.dtype} does not hold {info.name} elements")
        with np.errstate(over="ignore"):  # doubles beyond float32 become ±inf
            return array.astype(np.float32)
    codes = storage_codes(array, info)
    if code == DataType.BFLOAT16:
        return (codes.astype(np.uint32) << np.uint32(16)).view(np.float32)
    codes = codes & np.uint8((1 << info.bits) - 1)
    if code in (DataType.UINT4, DataType.UINT2):
        return codes.astype(np.float32)
    if code in (DataType.INT4, DataType.INT2):
        sign = 1 << (info.bits - 1)
        return ((codes.astype(np.int16) ^ sign) - sign).astype(np.float32)
    values: npt.NDArray[np.float32] = _table(code)[codes]
    return values
