"""The numpy_helper names beyond conversion: e8m0 rounding, saturating casts, seeded integers, packing."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from wirecodec.tensors.packing import pack_bits

__all__ = ["create_random_int", "pack_2bitx4", "pack_4bitx2", "pack_6bit", "saturate_cast", "to_float8e8m0"]

_ROUND_MODES = ("nearest", "up", "down")


def to_float8e8m0(x: npt.ArrayLike, saturate: bool = True, round_mode: str = "up") -> npt.NDArray[Any]:
    """float32 values as float8 e8m0 (a bare power-of-two exponent): ``ml_dtypes.float8_e8m0fnu``.

    ``round_mode`` "up" (the default, as onnx), "nearest" (ties away on the guard bit,
    as onnx) or "down"; NaN and infinities become the NaN code 0xFF; with ``saturate``
    rounding never passes the largest exponent (0xFE).
    """
    if round_mode not in _ROUND_MODES:
        raise ValueError(f"Unsupported rounding mode: {round_mode}")
    bits = np.asarray(x, dtype=np.float32).view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.uint16)
    special = exponent == 0xFF
    if round_mode == "up":
        bump = (bits & 0x7FFFFF) > 0
    elif round_mode == "nearest":
        guard = (bits & 0x400000) > 0
        bump = guard & (((bits & 0x3FFFFF) > 0) | (exponent > 0))
    else:
        bump = np.zeros(bits.shape, dtype=bool)
    bump &= ~special
    if saturate:
        bump &= exponent != 0xFE
    codes = np.where(special, 0xFF, exponent + bump).astype(np.uint8)
    import ml_dtypes

    return codes.view(ml_dtypes.float8_e8m0fnu)


def create_random_int(input_shape: tuple[int, ...], dtype: npt.DTypeLike, seed: int = 1) -> npt.NDArray[Any]:
    """Random integers of ``dtype`` (8 to 64 bits) within int32's range, from ``seed``.

    The values are onnx's for the same seed (numpy's legacy generator), drawn from a
    private generator: numpy's global random state is left alone.
    """
    kind = np.dtype(dtype)
    if kind.kind not in "iu" or kind.itemsize not in (1, 2, 4, 8):
        raise TypeError(f"{dtype} is not supported by create_random_int.")
    info, int32 = np.iinfo(kind), np.iinfo(np.int32)
    start, end = max(info.min, int32.min), min(info.max, int32.max)
    return np.random.RandomState(seed).randint(start, end, size=input_shape).astype(kind)


def saturate_cast(x: npt.NDArray[Any], dtype: npt.DTypeLike) -> npt.NDArray[Any]:
    """``x`` cast to ``dtype`` with values outside its range clamped (integers rounded first)."""
    import ml_dtypes

    kind = np.dtype(dtype)
    integral = np.issubdtype(kind, np.integer) or kind in tuple(
        np.dtype(t) for t in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2)
    )
    if integral:
        info: Any = ml_dtypes.iinfo(kind)  # type: ignore[no-untyped-call]
        x = np.round(x)
    else:
        info = ml_dtypes.finfo(kind)  # type: ignore[no-untyped-call]
    clipped: npt.NDArray[Any] = np.clip(x, info.min, info.max).astype(kind)
    return clipped


def _codes(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    return np.ascontiguousarray(array).reshape(-1).view(np.uint8)


def pack_4bitx2(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """4-bit codes (int4/uint4/float4 values, one per byte) packed two to a byte, low nibble first."""
    return pack_bits(_codes(array), 4)


def pack_2bitx4(array: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """2-bit codes packed four to a byte, lowest bits first."""
    return pack_bits(_codes(array), 2)


def pack_6bit(values: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """6-bit codes packed four to three bytes, little-endian."""
    return pack_bits(_codes(values), 6)
