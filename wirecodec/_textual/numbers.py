"""Numbers in the ONNX textual syntax: how they are written and how they are read.

The printer writes a number in its *shortest round-trip form*: the fewest significant
digits that read back to the same value (at the value's own precision: float32 for
``float`` fields, float64 for ``double``), laid out either as plain decimal or as
``d.ddde±XX`` — whichever is shorter, plain decimal on a tie. That is the layout C++
``std::to_chars`` gives, which the reference printer uses; NaN prints as ``nan`` or
``-nan``, infinities as ``inf`` or ``-inf``.

The parser reads a decimal literal as the nearest float32 (or float64), ties to even,
and refuses a finite literal that is too large for the type.
"""

from __future__ import annotations

import functools
import importlib
import math
import struct
from decimal import Decimal
from fractions import Fraction
from types import ModuleType

__all__ = [
    "FLOAT32_MAX",
    "INT32_MAX",
    "INT32_MIN",
    "INT64_MAX",
    "INT64_MIN",
    "UINT64_MAX",
    "float32_from_text",
    "float64_from_text",
    "format_float32",
    "format_float64",
    "round_to_float32",
]

INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1
INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
FLOAT32_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]

_F32 = struct.Struct("<f")
_U32 = struct.Struct("<I")


def round_to_float32(value: float) -> float:
    """``value`` rounded to the nearest float32 (ties to even); ``inf`` when out of range."""
    try:
        return float(_F32.unpack(_F32.pack(value))[0])
    except OverflowError:
        return math.copysign(math.inf, value)


def _layout(digits: str, exponent: int, value: float) -> str:
    """Lay out ``0.digits * 10**exponent`` plainly or in e-notation, whichever is shorter.

    A plain integer wider than its significant digits is written out exactly
    (``1727290368``, not ``1727290400``), as to_chars does.
    """
    # Scientific: d[.ddd]e±XX with at least two exponent digits.
    sci_exp = exponent - 1
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    scientific = f"{mantissa}e{'-' if sci_exp < 0 else '+'}{abs(sci_exp):02d}"
    if exponent <= 0:
        plain = "0." + "0" * (-exponent) + digits
    elif exponent >= len(digits):
        plain = str(int(abs(value)))
    else:
        plain = digits[:exponent] + "." + digits[exponent:]
    return ("-" if value < 0 else "") + (plain if len(plain) <= len(scientific) else scientific)


def _special(value: float) -> str | None:
    if math.isnan(value):
        return "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if math.isinf(value):
        return "-inf" if value < 0 else "inf"
    if value == 0.0:
        return "-0" if math.copysign(1.0, value) < 0 else "0"
    return None


def _digits_of(number: Decimal) -> tuple[str, int]:
    """Significant digits and exponent of a positive decimal: ``0.digits * 10**exponent``."""
    _, digit_tuple, exp = number.normalize().as_tuple()
    assert isinstance(exp, int)
    digits = "".join(map(str, digit_tuple))
    return digits, exp + len(digits)


def format_float64(value: float) -> str:
    """The shortest text that reads back as this float64 (``repr`` digits, to_chars layout)."""
    special = _special(value)
    if special is not None:
        return special
    # repr() gives the shortest round-trip digits, closest to the value among equals.
    digits, exponent = _digits_of(Decimal(repr(abs(value))))
    return _layout(digits, exponent, value)


def format_float32(value: float) -> str:
    """The shortest text that reads back as this float32 value (``value`` must be one)."""
    special = _special(value)
    if special is not None:
        return special
    magnitude = abs(value)
    for precision in range(_first_precision(magnitude), 10):
        text = f"{magnitude:.{precision - 1}e}"  # correctly rounded: the nearest candidate
        if float32_from_text(text) == magnitude:
            best = Decimal(text)
            break
        # Next to a power of two the round-trip interval is lopsided, so a decimal one
        # step further away may read back where the nearest one does not.
        nearest = Decimal(text)
        step = Decimal((0, (1,), nearest.adjusted() - precision + 1))
        fits = [
            c for c in (nearest - step, nearest + step) if c > 0 and float32_from_text(str(c)) == magnitude
        ]
        if fits:
            exact = Decimal(magnitude)
            best = min(fits, key=lambda c: abs(c - exact))
            break
    digits, exponent = _digits_of(best)
    return _layout(digits, exponent, value)


def _first_precision(magnitude: float) -> int:
    # numpy's Dragon4 knows how many digits the shortest form has; starting one short of
    # that keeps the exact search to two rounds instead of up to nine. Without numpy
    # (docs/platforms.md) the search starts at one digit: the same text, found slower.
    np = _numpy()
    if np is None:
        return 1
    hint = np.format_float_scientific(np.float32(magnitude), unique=True, trim="-")
    return max(1, len(hint.partition("e")[0].replace(".", "")) - 1)


@functools.cache
def _numpy() -> ModuleType | None:
    try:
        return importlib.import_module("numpy")
    except ImportError:
        return None


def float64_from_text(text: str) -> float | None:
    """A literal read as float64, or None when it does not fit (overflow or not a number)."""
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isinf(value) and "inf" not in text.lower():
        return None
    return value


def float32_from_text(text: str) -> float | None:
    """A literal read as the nearest float32 (ties to even), or None when it does not fit."""
    value = float64_from_text(text)
    if value is None:
        return None
    if math.isnan(value) or math.isinf(value):
        return round_to_float32(value)
    single = round_to_float32(value)
    if single != value and _is_float32_midpoint(value):
        # The float64 reading landed exactly between two float32 values; decide from the
        # exact decimal, so a literal is never rounded twice.
        exact = Fraction(text)
        below, above = _float32_neighbours(value)
        from_below, to_above = exact - Fraction(below), Fraction(above) - exact
        if from_below != to_above:
            single = below if from_below < to_above else above
    # 2**128 stands for the step past FLT_MAX: reaching it is overflow.
    return None if math.isinf(single) or abs(single) == 2.0**128 else single


def _is_float32_midpoint(value: float) -> bool:
    below, above = _float32_neighbours(value)
    # Both differences are exact in float64: the operands are within a factor of two.
    return value - below == above - value


def _float32_neighbours(value: float) -> tuple[float, float]:
    """The float32 values just below and above ``value`` (which is not itself a float32)."""
    nearest = round_to_float32(value)
    if math.isinf(nearest):
        nearest = math.copysign(FLOAT32_MAX, value)
    step = _next_float32(nearest, value > nearest)
    return (nearest, step) if nearest < step else (step, nearest)


def _next_float32(value: float, upward: bool) -> float:
    bits = _U32.unpack(_F32.pack(value))[0]
    if value == 0.0:
        bits = 0x00000001 if upward else 0x80000001
    elif (value > 0) == upward:
        bits += 1
    else:
        bits -= 1
    if bits & 0x7FFFFFFF == 0x7F800000:
        # One step past the largest float32: the value that rounding would give if the
        # exponent had room, so midpoints next to FLT_MAX come out right.
        return math.copysign(2.0**128, value)
    result: float = _F32.unpack(_U32.pack(bits))[0]
    return result
