"""What the code generators share: a line writer, the per-kind tables, and the read emitters.

The decoder (gen_decode) and the validator (gen_validate) read records with the same
emitted code, so they accept and reject the same inputs at the same offsets; the
encoder (gen_encode) writes each kind with the tables below, which the decoder reads
with, so one declaration drives both directions.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from schema_dsl import FieldSpec, Kind

__all__ = [
    "FIXED_KINDS",
    "FixedKind",
    "Writer",
    "emit_read_length",
    "emit_read_varint",
    "emit_record_loop",
]


@dataclass(frozen=True)
class FixedKind:
    """A fixed-width kind: its struct letter and size, and the runtime helpers that read/write one value."""

    fmt: str
    size: int
    unpack: str  # name of the single-value unpacker in the generated namespace
    pack: str  # name of the single-value packer


FIXED_KINDS: Final = {
    Kind.FLOAT: FixedKind("f", 4, "_uf32", "_f32b"),
    Kind.FIXED32: FixedKind("I", 4, "_uu32", "_pu32"),
    Kind.SFIXED32: FixedKind("i", 4, "_ui32", "_pi32"),
    Kind.DOUBLE: FixedKind("d", 8, "_uf64", "_pf64"),
    Kind.FIXED64: FixedKind("Q", 8, "_uu64", "_pu64"),
    Kind.SFIXED64: FixedKind("q", 8, "_ui64", "_pi64"),
}

# How each varint kind turns the raw 64-bit value into its Python value. ``slow`` is
# applied only when the varint took more than one byte (one-byte values are already
# right); ``always`` is applied to every value.
VARINT_SLOW: Final = {
    Kind.INT64: "_to_i64(v)",
    Kind.INT32: "_to_i32(v)",
    Kind.ENUM: "_to_i32(v)",
    Kind.UINT32: "_to_u32(v)",
}
VARINT_ALWAYS: Final = {
    Kind.BOOL: "v != 0",
    Kind.SINT32: "_to_sint(v & 0xFFFFFFFF)",
    Kind.SINT64: "_to_sint(v)",
}


class Writer:
    """Collects indented lines of generated source."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, indent: int, text: str) -> None:
        for line in text.strip("\n").split("\n"):
            self.lines.append("    " * indent + line)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def emit_read_length(w: Writer, ind: int) -> None:
    """Read a length prefix; leaves the payload at ``buf[pos:p2]``."""
    w(
        ind,
        """
if pos >= end:
    raise _trunc("length", 1, pos, end)
n = buf[pos]
if n < 128:
    pos += 1
elif pos + 1 < end and buf[pos + 1] < 128:  # two bytes: lengths up to 16383, inline
    n = (n & 127) | (buf[pos + 1] << 7)
    pos += 2
else:
    n, pos = _rv(buf, pos, end)
p2 = pos + n
if p2 > end:
    raise _lenerr(buf, start, n, end)""",
    )


def emit_read_varint(w: Writer, ind: int, kind: Kind | None) -> None:
    """Read a varint into ``v`` converted for ``kind``; ``kind=None`` only checks it (validators)."""
    w(
        ind,
        """
if pos >= end:
    raise _trunc("varint", 1, pos, end)
v = buf[pos]
if v < 128:
    pos += 1
elif pos + 1 < end and buf[pos + 1] < 128:  # two bytes: values up to 16383, inline
    v = (v & 127) | (buf[pos + 1] << 7)
    pos += 2
else:
    v, pos = _rv(buf, pos, end)""",
    )
    if kind is None:
        return
    if kind in VARINT_SLOW:
        w(ind + 1, f"v = {VARINT_SLOW[kind]}")
    if kind in VARINT_ALWAYS:
        w(ind, f"v = {VARINT_ALWAYS[kind]}")


def emit_record_loop(
    w: Writer,
    fields: tuple[FieldSpec, ...],
    single: Callable[[Writer, int, FieldSpec], None],
    packed: Callable[[Writer, int, FieldSpec], None],
) -> None:
    """The loop over a message's records, shared by decoders and validators.

    Reads each tag (one-byte fast path), dispatches on the whole tag to ``single`` (one
    occurrence of a field) or ``packed`` (a packed run), rejects field number 0 and skips
    anything else as unknown, leaving the record at ``buf[start:pos]``. The caller
    writes the ``except`` that closes the ``try`` opened here.
    """
    w(
        1,
        """
tag = 0
try:
    while pos < end:
        start = pos
        tag = buf[pos]
        if tag < 128:
            pos += 1
        else:
            tag = 0  # until it is read whole, a failure belongs to no field
            tag, pos = _read_tag(buf, pos, end)""",
    )
    keyword = "if"
    for spec in fields:
        w(3, f"{keyword} tag == {spec.tag}:  # {spec.name}")
        keyword = "elif"
        single(w, 4, spec)
        if spec.repeated and spec.kind.packable:
            w(3, f"elif tag == {spec.packed_tag}:  # {spec.name}, packed")
            packed(w, 4, spec)
    w(
        3,
        f"""
{keyword + " tag < 8:" if fields else "if tag < 8:"}
    raise _DecodeError("field number 0 is not allowed", start)
else:
    pos = _skip(buf, tag, pos, end, depth)""",
    )
