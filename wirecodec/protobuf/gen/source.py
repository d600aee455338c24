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
# Which raw 64-bit values re-encode to themselves, by kind (runtime.canonical_varint):
# 0 any, 1 a sign-extended int32, 2 below 2**32, 3 only 0 or 1.
VARINT_RANGE: Final = {Kind.INT32: 1, Kind.ENUM: 1, Kind.UINT32: 2, Kind.SINT32: 2, Kind.BOOL: 3}
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
    if n < 128:
        nc = 1  # not minimal
    pos += 2
else:
    q = pos
    n, pos = _rv(buf, pos, end)
    if not _cv(buf, q, pos, n, 0):
        nc = 1
p2 = pos + n
if p2 > end:
    raise _lenerr(buf, start, n, end)""",
    )


def emit_read_varint(w: Writer, ind: int, kind: Kind, *, convert: bool = True) -> None:
    """Read a varint into ``v``, converted for ``kind`` unless ``convert`` is False (validators).

    Either way ``nc`` is set when the varint is not how the encoder would write its value
    (see wirecodec.protobuf.origin).
    """
    w(
        ind,
        f"""
if pos >= end:
    raise _trunc("varint", 1, pos, end)
v = buf[pos]
if v < 128:
    pos += 1
elif pos + 1 < end and buf[pos + 1] < 128:  # two bytes: values up to 16383, inline
    v = (v & 127) | (buf[pos + 1] << 7)
    if v < 128:
        nc = 1  # not minimal
    pos += 2
else:
    q = pos
    v, pos = _rv(buf, pos, end)
    if not _cv(buf, q, pos, v, {VARINT_RANGE.get(kind, 0)}):
        nc = 1""",
    )
    if kind is Kind.BOOL:
        w(ind, "if v > 1:\n    nc = 1  # protobuf writes a bool as 0 or 1")
    if not convert:
        return
    if kind in VARINT_SLOW:
        w(ind + 1, f"v = {VARINT_SLOW[kind]}")
    if kind in VARINT_ALWAYS:
        w(ind, f"v = {VARINT_ALWAYS[kind]}")


# A message with more branches than this dispatches through a binary tree of tag ranges
# (AttributeProto's ``type`` is field 20: a chain would test it ~20 times per attribute).
_CHAIN: Final = 12
_LEAF: Final = 6

Branch = tuple[int, Callable[[Writer, int], None]]


def emit_record_loop(
    w: Writer,
    fields: tuple[FieldSpec, ...],
    single: Callable[[Writer, int, FieldSpec], None],
    packed: Callable[[Writer, int, FieldSpec], None],
    unknown: Callable[[Writer, int], None],
) -> None:
    """The loop over a message's records, shared by decoders and validators.

    Reads each tag (one- and two-byte fast paths), dispatches on the whole tag to
    ``single`` (one occurrence of a field) or ``packed`` (a packed run), rejects field
    number 0 and skips anything else as unknown, leaving the record at
    ``buf[start:pos]`` for ``unknown`` (which must set ``nc``: the encoder writes unknown
    fields after the known ones). The caller writes the ``except`` that closes the
    ``try`` opened here.

    Along the way ``nc`` becomes 1 when a record is not exactly what the encoder would
    write there (out of order, repeated, unknown, in the other packing, or with a longer
    varint than needed): the bytes can then not be re-emitted as they are
    (wirecodec.protobuf.origin).
    """
    w(
        1,
        """
tag = nc = lt = 0
try:
    while pos < end:
        start = pos
        tag = buf[pos]
        if tag < 128:
            pos += 1
        elif pos + 1 < end and buf[pos + 1] < 128:  # two bytes: fields 16 to 2047, inline
            tag = (tag & 127) | (buf[pos + 1] << 7)
            if tag < 128:
                nc = 1  # not minimal
            pos += 2
        else:
            tag = 0  # until it is read whole, a failure belongs to no field
            tag, pos = _read_tag(buf, pos, end)
            if not _cv(buf, start, pos, tag, 0):
                nc = 1""",
    )
    branches: list[Branch] = []
    for spec in fields:
        branches.append((spec.tag, _branch(spec, False, single)))
        if spec.repeated and spec.kind.packable:
            branches.append((spec.packed_tag, _branch(spec, True, packed)))
    branches.sort(key=lambda branch: branch[0])
    _emit_dispatch(w, 3, branches, unknown, lowest=True, limit=_CHAIN)


def _branch(
    spec: FieldSpec, packed_form: bool, body: Callable[[Writer, int, FieldSpec], None]
) -> Callable[[Writer, int], None]:
    def emit(w: Writer, ind: int) -> None:
        _emit_order_check(w, ind, spec, packed_form)
        if spec.noted:  # decoders and validators alike (wirecodec.protobuf.notes)
            w(ind, f"_note(_C, {spec.name!r})")
        body(w, ind, spec)

    return emit


def _emit_dispatch(
    w: Writer,
    ind: int,
    branches: list[Branch],
    unknown: Callable[[Writer, int], None],
    lowest: bool,
    limit: int = _LEAF,
) -> None:
    """The branches by tag: a chain of tests, or past ``limit``, a binary tree of chains."""
    if len(branches) > limit:
        middle = len(branches) // 2
        w(ind, f"if tag < {branches[middle][0]}:")
        _emit_dispatch(w, ind + 1, branches[:middle], unknown, lowest)
        w(ind, "else:")
        _emit_dispatch(w, ind + 1, branches[middle:], unknown, False)
        return
    keyword = "if"
    for tag, emit in branches:
        w(ind, f"{keyword} tag == {tag}:")
        emit(w, ind + 1)
        keyword = "elif"
    if lowest:  # only the lowest range can hold field number 0
        w(ind, f'{keyword} tag < 8:\n    raise _DecodeError("field number 0 is not allowed", start)')
        keyword = "elif"
    w(ind, "else:")
    w(ind + 1, "pos = _skip(buf, tag, pos, end, depth)")
    unknown(w, ind + 1)


def _emit_order_check(w: Writer, ind: int, spec: FieldSpec, packed_form: bool) -> None:
    """Set ``nc`` unless this record is where, and in the form, the encoder would write it.

    ``lt`` is the lowest tag the next record may have: after a singular field (or the one
    packed run of a packed field) it is one past its tag, so a second occurrence fails;
    an unpacked repeated field's next element may share its tag. The encoder writes a
    repeated scalar packed exactly when it is declared packed, never the other form.
    """
    if spec.repeated and packed_form != spec.packed:
        w(ind, "nc = 1  # the encoder writes this field in its other form")
        return
    tag = spec.packed_tag if packed_form else spec.tag
    following = tag if spec.repeated and not spec.packed else tag + 1
    w(ind, f"if lt > {tag}:\n    nc = 1\nlt = {following}")
