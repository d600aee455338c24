"""Protobuf text format output, as the ``onnx`` package shows its messages.

Two printers share one layout (fields in field-number order, ``name: value`` for scalars,
``name {`` ... ``}`` for messages, two spaces of indentation per level, unknown fields
left out) and differ only in how they spell numbers:

* :func:`to_text` is ``google.protobuf.text_format.MessageToString(msg)`` with default
  options: a ``float`` is the shortest ``%g`` text (6 significant digits or more) that
  reads back as the same float32, then shown as Python shows that double (``1e10``
  prints as ``10000000000.0``); a ``double`` prints as Python's ``repr``.
* :func:`to_str` is ``str(msg)`` of the onnx package's protobuf (upb) messages: C's
  ``%.6g`` (``%.15g`` for doubles) when that reads back exactly, otherwise ``%.9g``
  (``%.17g``); ``-0``, ``1e+10``, ``nan``.

Strings print as UTF-8 with C escapes for quotes, backslashes and ASCII control
characters; bytes that are not valid UTF-8 (a ``string`` field decoded from such bytes
holds them as surrogate escapes) print as three-digit octal escapes, as every byte of a
``bytes`` field outside printable ASCII does.

>>> from schema_dsl.onnx import AttributeProto
>>> attr = AttributeProto(name="alpha", type=AttributeProto.FLOAT, f=0.1)
>>> print(to_text(attr), end="")
name: "alpha"
f: 0.1
type: FLOAT
>>> print(to_text(AttributeProto(f=1e10, s=b"\\x00a\\n")), end="")
f: 10000000000.0
s: "\\000a\\n"
>>> print(to_str(AttributeProto(f=1e10)), end="")
f: 1e+10
"""

from __future__ import annotations

import enum
import math
import re
import struct
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, Literal

from schema_dsl.fields import FieldSpec, Kind

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "format_double",
    "format_float",
    "quote_bytes",
    "quote_string",
    "shortest_float32",
    "round_to_float32",
    "to_str",
    "to_text",
]

_F32: Final = struct.Struct("<f")
_U32: Final = struct.Struct("<I")
_SMALLEST_SUBNORMAL: Final = 2.0**-149

# -- numbers --------------------------------------------------------------------------------


def round_to_float32(value: float) -> float:
    """``value`` rounded to the nearest float32 (overflowing to an infinity), as a float field stores it."""
    try:
        result: float = _F32.unpack(_F32.pack(value))[0]
    except OverflowError:
        # struct refuses only when the rounding overflows; C's conversion gives an infinity.
        return math.copysign(math.inf, value)
    return result


def shortest_float32(value: float) -> float:
    """The double protobuf's Python runtime shows for float32 ``value`` (text format and JSON).

    The first ``%.<p>g`` text, from 6 significant digits up, that reads back (through a
    double) as the same float32, read as a double: float32 0.1 gives 0.1, not
    0.10000000149011612. NaN and infinities come back unchanged.
    """
    value = round_to_float32(value)
    if not math.isfinite(value):
        return value
    precision = 6
    while True:
        rounded = float(f"{value:.{precision}g}")
        if round_to_float32(rounded) == value:
            return rounded
        precision += 1


def format_float(value: float, *, style: Literal["python", "upb"] = "python") -> str:
    """A float field's value as ``text_format`` (``style="python"``) or upb (``"upb"``) writes it."""
    value = round_to_float32(value)
    if math.isnan(value):
        return "nan"
    if style == "python":
        return repr(shortest_float32(value))
    text = f"{value:.6g}"
    return text if _strtof(text) == value else f"{value:.9g}"


def format_double(value: float, *, style: Literal["python", "upb"] = "python") -> str:
    """A double field's value as ``text_format`` (``style="python"``) or upb (``"upb"``) writes it."""
    if math.isnan(value):
        return "nan"
    if style == "python":
        return repr(value)
    text = f"{value:.15g}"
    return text if float(text) == value else f"{value:.17g}"


def _strtof(text: str) -> float:
    """C's ``strtof``: the decimal ``text`` correctly rounded straight to float32.

    Going through a double rounds twice; that differs from rounding once only when the
    double lands exactly halfway between two float32 values, so that case is settled
    with exact fractions.
    """
    wide = float(text)
    narrow = round_to_float32(wide)
    if narrow == wide or not math.isfinite(narrow):
        return narrow
    other = _next_float32(narrow, toward=wide)
    if math.isfinite(other) and (narrow + other) / 2 == wide:
        exact = Fraction(text)
        low, high = sorted((narrow, other))
        middle = (Fraction(low) + Fraction(high)) / 2
        if exact != middle:
            return high if exact > middle else low
    return narrow


def _next_float32(value: float, *, toward: float) -> float:
    """The float32 next to ``value`` in the direction of ``toward``."""
    if value == 0:
        return math.copysign(_SMALLEST_SUBNORMAL, toward)
    bits: int = _U32.unpack(_F32.pack(value))[0]
    bits += 1 if abs(toward) > abs(value) else -1  # the magnitude bits count up away from zero
    result: float = _F32.unpack(_U32.pack(bits))[0]
    return result


# -- strings --------------------------------------------------------------------------------


def _escape_table(upper: int) -> dict[int, str]:
    table = {c: f"\\{c:03o}" for c in range(upper) if not 32 <= c < 127}
    table.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
    table.update({ord('"'): '\\"', ord("'"): "\\'", ord("\\"): "\\\\"})
    return table


_TEXT_ESCAPES: Final = _escape_table(128)  # non-ASCII text stays as it is
_BYTE_ESCAPES: Final = _escape_table(256)  # applied to bytes decoded as latin-1
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def quote_bytes(value: bytes | bytearray | memoryview) -> str:
    """A ``bytes`` value as a double-quoted text-format literal (octal escapes outside printable ASCII)."""
    return '"' + bytes(value).decode("latin-1").translate(_BYTE_ESCAPES) + '"'


def quote_string(value: str) -> str:
    """A ``string`` value as a double-quoted text-format literal: UTF-8 kept, invalid bytes escaped."""
    if _SURROGATE.search(value) is None:
        return '"' + value.translate(_TEXT_ESCAPES) + '"'
    # Invalid UTF-8 from the wire arrives as surrogate escapes; any other lone surrogate
    # has no UTF-8 form, and its surrogatepass bytes are invalid UTF-8 as well.
    try:
        raw = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = value.encode("utf-8", "surrogatepass")
    parts = []
    while raw:
        text = raw.decode("utf-8", "surrogateescape")
        valid_end = len(raw)
        match = _SURROGATE.search(text)
        if match is not None:
            valid_end = len(text[: match.start()].encode("utf-8"))
        parts.append(raw[:valid_end].decode("utf-8").translate(_TEXT_ESCAPES))
        if valid_end < len(raw):
            parts.append(f"\\{raw[valid_end]:03o}")
        raw = raw[valid_end + 1 :]
    return '"' + "".join(parts) + '"'


# -- messages -------------------------------------------------------------------------------

_Formatter = Callable[[FieldSpec, Any], str]
_enum_names: dict[type[enum.IntEnum], dict[int, str]] = {}


def _enum_name(spec: FieldSpec, value: Any) -> str:
    enum_type = spec.enum_type
    assert enum_type is not None
    names = _enum_names.get(enum_type)
    if names is None:
        names = {}
        for member in enum_type:  # aliases come after their canonical member
            names.setdefault(int(member), member.name)
        _enum_names[enum_type] = names
    number = int(value)
    return names.get(number, str(number))


def _bool(spec: FieldSpec, value: Any) -> str:
    return "true" if value else "false"


def _int(spec: FieldSpec, value: Any) -> str:
    return str(int(value))


def _formatters(style: Literal["python", "upb"]) -> dict[Kind, _Formatter]:
    table: dict[Kind, _Formatter] = dict.fromkeys(
        (
            Kind.INT32,
            Kind.INT64,
            Kind.UINT32,
            Kind.UINT64,
            Kind.SINT32,
            Kind.SINT64,
            Kind.FIXED32,
            Kind.FIXED64,
            Kind.SFIXED32,
            Kind.SFIXED64,
        ),
        _int,
    )
    table[Kind.BOOL] = _bool
    table[Kind.ENUM] = _enum_name
    table[Kind.STRING] = lambda spec, value: quote_string(value)
    table[Kind.BYTES] = lambda spec, value: quote_bytes(value)
    table[Kind.FLOAT] = lambda spec, value: format_float(value, style=style)
    table[Kind.DOUBLE] = lambda spec, value: format_double(value, style=style)
    return table


_PYTHON: Final = _formatters("python")
_UPB: Final = _formatters("upb")


def _print(message: Message, formatters: dict[Kind, _Formatter], indent: str, out: list[str]) -> None:
    for spec, value in message.ListFields():
        values = value if spec.repeated else (value,)
        if spec.kind is Kind.MESSAGE:
            opening, inner = f"{indent}{spec.name} {{\n", indent + "  "
            closing = f"{indent}}}\n"
            for child in values:
                out.append(opening)
                _print(child, formatters, inner, out)
                out.append(closing)
        else:
            formatter = formatters[spec.kind]
            prefix = f"{indent}{spec.name}: "
            for item in values:
                out.append(prefix + formatter(spec, item) + "\n")


def to_text(message: Message) -> str:
    """``message`` in protobuf text format, as ``text_format.MessageToString`` writes it.

    >>> from schema_dsl.onnx import TensorShapeProto
    >>> shape = TensorShapeProto(dim=[TensorShapeProto.Dimension(dim_value=3)])
    >>> print(to_text(shape), end="")
    dim {
      dim_value: 3
    }
    """
    out: list[str] = []
    _print(message, _PYTHON, "", out)
    return "".join(out)


def to_str(message: Message) -> str:
    """``message`` as ``str()`` of the same message in the onnx package (upb's text encoder) shows it.

    The layout of :func:`to_text`; only floats and doubles are spelled the C way.

    >>> from schema_dsl.onnx import TensorProto
    >>> print(to_str(TensorProto(double_data=[-0.0, 1 / 3])), end="")
    double_data: -0
    double_data: 0.33333333333333331
    """
    out: list[str] = []
    _print(message, _UPB, "", out)
    return "".join(out)
