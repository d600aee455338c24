"""Sub-byte element types (4, 2 and 6 bits) packed little-endian into ``raw_data`` bytes."""

from __future__ import annotations

import math
from typing import Any

from wirecodec.errors import NumpyMissingError

try:
    import numpy as np
except ImportError as exc:  # the one error that says so (docs/platforms.md)
    raise NumpyMissingError() from exc
import numpy.typing as npt

__all__ = ["pack_bits", "unpack_bits"]


def _group(bits: int) -> tuple[int, int]:
    # Elements per group and bytes per group: the smallest run that ends on a byte boundary.
    per = 8 // math.gcd(bits, 8)
    return per, per * bits // 8


def unpack_bits(data: npt.NDArray[np.uint8], bits: int, count: int) -> npt.NDArray[np.uint8]:
    """Little-endian bit stream of ``bits``-wide codes → one code per uint8 (``count`` of them)."""
    per, nbytes = _group(bits)
    groups = -(-count // per)
    mask = (1 << bits) - 1
    word: npt.NDArray[Any]
    if nbytes == 1:
        word = data[:groups]
    else:
        # Assemble each group's bytes into one integer; a short final group is zero padded.
        word = np.zeros(groups, dtype=np.uint32)
        full = min(data.size // nbytes, groups)
        for j in range(nbytes):
            word[:full] |= data[j : full * nbytes : nbytes].astype(np.uint32) << np.uint32(8 * j)
        for j, byte in enumerate(data[full * nbytes : groups * nbytes].tolist()):
            word[full] |= np.uint32(byte << (8 * j))
    out = np.empty((groups, per), dtype=np.uint8)
    for i in range(per):
        out[:, i] = (word >> (i * bits)) & mask
    return out.reshape(-1)[:count]


def pack_bits(codes: npt.NDArray[np.uint8], bits: int) -> npt.NDArray[np.uint8]:
    """One code per uint8 → the packed little-endian bit stream, zero padded to whole bytes."""
    per, nbytes = _group(bits)
    count = codes.size
    groups = -(-count // per)
    padded = np.zeros(groups * per, dtype=np.uint8)
    padded[:count] = codes.reshape(-1) & np.uint8((1 << bits) - 1)
    lanes = padded.reshape(groups, per)
    size = (count * bits + 7) // 8
    if nbytes == 1:
        packed = lanes[:, 0].copy()
        for i in range(1, per):
            packed |= lanes[:, i] << (i * bits)
        return packed[:size]
    word = np.zeros(groups, dtype=np.uint32)
    for i in range(per):
        word |= lanes[:, i].astype(np.uint32) << np.uint32(i * bits)
    grouped = word.astype("<u4").view(np.uint8).reshape(groups, 4)[:, :nbytes]
    return grouped.reshape(-1)[:size]
