"""Field-by-field equality of two messages of one class, as protobuf's ``==`` compares.

Two functions per class, generated on its first comparison (straight-line code: a loop
over the fields with its per-field tests costs several times more). ``quick`` finds the
differences that cost little to see: a singular field present on one side only, a
number, enum or string that differs, a repeated field of another length. ``rest``
compares everything else: bytes, floats bit for bit, sub-messages and repeated contents.
``==`` (when the two are not both decoded and unchanged: those compare their source
bytes) asks ``quick`` first, so two different messages usually differ in a few
operations, then ``rest``.

What is compared is what ``ListFields`` lists: a present singular field, a non-empty
repeated one; unknown fields are the caller's.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from schema_dsl.fields import Kind
from schema_dsl.layout import MessageSchema

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = ["comparators", "float_bits"]

Comparator = Callable[[Any, Any], bool]

# Kinds whose values Python's == compares as protobuf does (no views, no float bits).
_PLAIN: Final = frozenset(Kind) - {Kind.BYTES, Kind.FLOAT, Kind.DOUBLE, Kind.MESSAGE}

_MADE: Final[dict[MessageSchema, tuple[Comparator, Comparator]]] = {}


def comparators(schema: MessageSchema) -> tuple[Comparator, Comparator]:
    """``(quick, rest)`` for ``schema``'s class: ``quick(a, b)`` is True when a cheap
    difference is found, ``rest(a, b)`` True when every other part is equal; ``a == b``
    exactly when ``not quick(a, b) and rest(a, b)`` (unknown fields aside)."""
    found = _MADE.get(schema)
    if found is None:
        found = _MADE[schema] = _generate(schema)
    return found


def _generate(schema: MessageSchema) -> tuple[Comparator, Comparator]:
    names: dict[str, Any] = {"bits": float_bits, "b2": bytes}
    singular = 0
    quick = ["def quick(a, b):", "    ha = a._has", "    hb = b._has"]
    rest = ["def rest(a, b):", "    ha = a._has", "    hb = b._has"]
    for spec, bit in schema.field_bits:
        name = spec.name  # an identifier: checked when the class was declared
        kind = spec.kind
        if spec.repeated:
            mine, theirs = f"a.{name} if ha & {bit} else ()", f"b.{name} if hb & {bit} else ()"
            quick += [f"    if (ha | hb) & {bit} and len({mine}) != len({theirs}):", "        return True"]
            if kind in _PLAIN or kind is Kind.MESSAGE:
                test = "x != y"
            elif kind is Kind.BYTES:
                test = "[*map(b2, x)] != [*map(b2, y)]"
            else:
                test = f"bits(x, {kind is Kind.FLOAT}) != bits(y, {kind is Kind.FLOAT})"
            # (equal lengths, known from quick: both empty or both present)
            rest += [f"    if ha & {bit} and hb & {bit}:", f"        x = a.{name}", "        if x:"]
            rest += [f"            y = b.{name}", f"            if {test}:", "                return False"]
            continue
        singular |= bit
        if kind in _PLAIN:
            quick += [f"    if ha & {bit} and a.{name} != b.{name}:", "        return True"]
            continue
        if kind is Kind.MESSAGE:
            test = f"a.{name} != b.{name}"
        elif kind is Kind.BYTES:
            test = f"b2(a.{name}) != b2(b.{name})"
        else:
            test = f"bits((a.{name},), {kind is Kind.FLOAT}) != bits((b.{name},), {kind is Kind.FLOAT})"
        rest += [f"    if ha & {bit} and {test}:", "        return False"]
    # a singular field present on one side only: one test for them all, before the others
    quick.insert(3, f"    if (ha ^ hb) & {singular}:\n        return True")
    quick.append("    return False")
    rest.append("    return True")
    exec("\n".join([*quick, "", *rest]), names)
    return names["quick"], names["rest"]


def float_bits(values: Any, single: bool) -> bytes:
    """The encoding of float (``single``) or double ``values``: what equality compares
    (as protobuf: bit for bit, so 0.0 != -0.0 and a NaN equals the same NaN)."""
    if not single:
        return struct.pack(f"<{len(values)}d", *values)
    try:
        body = struct.pack(f"<{len(values)}f", *values)
    except OverflowError:  # beyond float32 (stored past the checks): C's infinity, as encoded
        body = b"".join(_f32(v) for v in values)
    if any(map(math.isnan, values)):  # a C-speed scan: the common case costs little
        # A NaN read from the wire keeps its exact bytes (``bits``, set by the decoder).
        body = b"".join(getattr(v, "bits", None) or _f32(v) for v in values)
    return body


def _f32(value: float) -> bytes:
    try:
        return struct.pack("<f", value)
    except OverflowError:
        return struct.pack("<f", math.copysign(math.inf, value))


def unknown_equal(a: Message, b: Message) -> bool:
    """Whether two messages' unknown fields are the same records."""
    ua, ub = a._unknown, b._unknown
    if not ua and not ub:
        return True
    return [bytes(u) for u in ua] == [bytes(u) for u in ub]
