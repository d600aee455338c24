"""Values → element codes of the types numpy lacks, without ``ml_dtypes``.

:func:`wirecodec.helper.make_tensor` uses ``ml_dtypes`` for these conversions when it is
installed (as onnx does). This module is what it uses otherwise, and each function
follows the conversion onnx's ``make_tensor`` gets from ``ml_dtypes``:

* float8 / float6 / float4: round to nearest, ties to the even code, saturating at the
  largest finite value (onnx clips float8 values to that range; ml_dtypes saturates
  float4 and float6). ``tests/unit/tensors/test_helper.py`` compares these with ml_dtypes.
* bfloat16: the value is rounded to float32 first, then to bfloat16 (nearest, ties to
  even), NaN becomes the quiet NaN of its sign — what ml_dtypes does with a double.
* float8e8m0: onnx's "saturate, round up" rule on the float32 exponent.
* int4 / uint4 / int2 / uint2: whole numbers within the type's range.

Values a format cannot hold in a defined way (NaN in float4/float6, integers out of
range or with a fraction) are a ``ValueError`` rather than a guess.
"""

from __future__ import annotations

import functools
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from schema_dsl.onnx import TensorProto
from wirecodec.tensors.dtypes import INFOS
from wirecodec.tensors.minifloat import to_float32

__all__ = ["bfloat16_codes", "e8m0_codes_round_up", "float_codes", "largest", "small_int_codes"]

DataType = TensorProto.DataType

_FNUZ: Final = frozenset({DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2FNUZ})
# The NaN code a positive NaN becomes, for the float8 formats that have NaN (ml_dtypes' choice).
_NAN_CODE: Final[dict[int, int]] = {
    DataType.FLOAT8E4M3FN: 0x7F,
    DataType.FLOAT8E5M2: 0x7E,
    DataType.FLOAT8E4M3FNUZ: 0x80,
    DataType.FLOAT8E5M2FNUZ: 0x80,
}


def _is_ml_float(dtype: np.dtype[Any]) -> bool:
    """An ml_dtypes floating type (bfloat16, float8_*, float4/6...): numpy sees kind 'V', casts exactly."""
    return dtype.kind == "V" and dtype.type.__module__.startswith("ml_dtypes") and "float" in dtype.name


def _as_float(values: npt.NDArray[Any], dtype: type[np.floating[Any]]) -> npt.NDArray[Any]:
    if values.dtype.kind not in "biuf" and not _is_ml_float(values.dtype):
        raise TypeError(f"make_tensor: vals must be numbers, got an array of dtype {values.dtype}")
    with np.errstate(over="ignore"):  # beyond float32: ±inf, as numpy's cast gives
        return values.astype(dtype)


@functools.cache
def _magnitudes(code: int) -> npt.NDArray[np.float64]:
    """The finite non-negative values of a small float format, indexed by code (increasing)."""
    bits = INFOS[code].bits
    half = np.arange(1 << (bits - 1), dtype=np.uint8)
    table = to_float32(half, code).astype(np.float64)
    finite = int(np.argmin(np.isfinite(table))) if not np.isfinite(table).all() else table.size
    out = table[:finite]
    out.flags.writeable = False
    return out


def largest(code: int) -> float:
    """The largest finite value of small float format ``code``."""
    return float(_magnitudes(code)[-1])


def float_codes(values: npt.NDArray[Any], code: int, *, saturate: bool = True) -> npt.NDArray[np.uint8]:
    """Codes of ``values`` in small float format ``code``: nearest, ties to even, saturating.

    ``saturate`` only matters for NaN: float8 formats keep it (as their NaN code), float4
    and float6 (``saturate=False`` here, they have no NaN) refuse it.
    """
    x = _as_float(values, np.float64).reshape(-1)
    mags = _magnitudes(code)
    sign_bit = 1 << (INFOS[code].bits - 1)
    nan = np.isnan(x)
    if nan.any() and code not in _NAN_CODE:
        raise ValueError(f"make_tensor: {DataType(code).name} has no NaN; vals holds NaN")
    a = np.minimum(np.abs(np.where(nan, 0.0, x)), mags[-1])  # saturate (inf included)
    hi = np.clip(np.searchsorted(mags, a, side="left"), 0, mags.size - 1)
    lo = np.maximum(hi - 1, 0)
    twice, around = 2.0 * a, mags[lo] + mags[hi]
    pick_hi = (mags[hi] == a) | (twice > around) | ((twice == around) & (hi % 2 == 0))
    magnitude_code = np.where(pick_hi, hi, lo).astype(np.uint8)
    negative = np.signbit(x)
    if code in _FNUZ:
        negative &= magnitude_code != 0  # these formats have no negative zero (its code is NaN)
    codes: npt.NDArray[np.uint8] = magnitude_code | np.where(negative, sign_bit, 0).astype(np.uint8)
    if nan.any():
        nan_code = _NAN_CODE[code]
        signed = nan_code | (np.signbit(x) * sign_bit if code not in _FNUZ else 0)
        codes = np.where(nan, signed, codes).astype(np.uint8)
    return codes


def bfloat16_codes(values: npt.NDArray[Any]) -> npt.NDArray[np.uint16]:
    """bfloat16 bits of ``values`` (via float32; nearest, ties to even)."""
    bits = _as_float(values, np.float32).reshape(-1).view(np.uint32)
    upper = bits >> np.uint32(16)
    rounded = (bits + np.uint32(0x7FFF) + (upper & np.uint32(1))) >> np.uint32(16)
    is_nan = (bits & np.uint32(0x7FFFFFFF)) > np.uint32(0x7F800000)
    quiet_nan = (upper & np.uint32(0x8000)) | np.uint32(0x7FC0)
    return np.where(is_nan, quiet_nan, rounded).astype(np.uint16)


def e8m0_codes_round_up(values: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """float8e8m0 codes: the float32 exponent, raised by one when a fraction remains.

    The sign is dropped; NaN and ±inf become 0xFF; the largest finite exponent (0xFE)
    is not raised further (saturation).
    """
    bits = _as_float(values, np.float32).view(np.uint32)
    exponent = (bits >> np.uint32(23)) & np.uint32(0xFF)
    fraction = (bits & np.uint32(0x7FFFFF)) != 0
    special = exponent == 0xFF
    up = fraction & ~special & (exponent != 0xFE)
    return np.where(special, 0xFF, exponent + up).astype(np.uint8)


def small_int_codes(values: npt.NDArray[Any], code: int) -> npt.NDArray[np.uint8]:
    """Two's-complement codes of whole numbers within the range of INT4/UINT4/INT2/UINT2."""
    info = INFOS[code]
    signed = code in (DataType.INT4, DataType.INT2)
    low, high = (-(1 << (info.bits - 1)), (1 << (info.bits - 1)) - 1) if signed else (0, (1 << info.bits) - 1)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"make_tensor: vals must be numbers, got an array of dtype {values.dtype}")
    flat = values.reshape(-1)
    if flat.size and (
        (flat.dtype.kind == "f" and not np.array_equal(flat, np.trunc(flat)))
        or flat.min() < low
        or flat.max() > high
    ):
        raise ValueError(f"make_tensor: {info.name} values must be whole numbers in [{low}, {high}]")
    return (flat.astype(np.int64) & ((1 << info.bits) - 1)).astype(np.uint8)
