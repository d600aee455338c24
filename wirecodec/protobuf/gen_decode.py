"""Generate the Python source of one message's decoder from its declaration.

The generated function has the signature ``(buf, mv, pos, end, depth) -> message``:
``buf`` is indexed for bytes and sliced for strings, ``mv`` (a memoryview of the same
bytes) is sliced for ``bytes`` fields so they stay views, ``depth`` is how many more
levels of nesting are allowed. It dispatches on the whole tag, so a known field that
arrives with the wrong wire type falls through to the unknown-field branch, as in
protobuf.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from schema_dsl import FieldSpec, Kind, MessageSchema

# How each varint kind turns the raw 64-bit value into its Python value. ``slow`` is
# applied only when the varint took more than one byte (one-byte values are already
# right); ``always`` is applied to every value.
_VARINT_SLOW: Final = {
    Kind.INT64: "_to_i64(v)",
    Kind.INT32: "_to_i32(v)",
    Kind.ENUM: "_to_i32(v)",
    Kind.UINT32: "_to_u32(v)",
    Kind.UINT64: "v",
}
_VARINT_ALWAYS: Final = {
    Kind.BOOL: "v != 0",
    Kind.SINT32: "_to_sint(v & 0xFFFFFFFF)",
    Kind.SINT64: "_to_sint(v)",
}
_PACKED_ALWAYS: Final = {
    Kind.BOOL: "x != 0",
    Kind.SINT32: "_to_sint(x & 0xFFFFFFFF)",
    Kind.SINT64: "_to_sint(x)",
}
_PACKED_CONVERTER: Final = {
    Kind.INT64: "_to_i64",
    Kind.INT32: "_to_i32",
    Kind.ENUM: "_to_i32",
    Kind.UINT32: "_to_u32",
    Kind.UINT64: "None",
}
# Fixed-width kinds: (struct format letter, size in bytes, single-value unpacker name).
FIXED_KINDS: Final = {
    Kind.FLOAT: ("f", 4, "_uf32"),
    Kind.FIXED32: ("I", 4, "_uu32"),
    Kind.SFIXED32: ("i", 4, "_ui32"),
    Kind.DOUBLE: ("d", 8, "_uf64"),
    Kind.FIXED64: ("Q", 8, "_uu64"),
    Kind.SFIXED64: ("q", 8, "_ui64"),
}


class Writer:
    """Collects indented lines of generated source."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, indent: int, text: str) -> None:
        for line in text.strip("\n").split("\n"):
            self.lines.append("    " * indent + line)


def emit_read_length(w: Writer, ind: int) -> None:
    # Leaves the payload at buf[pos:p2].
    w(
        ind,
        """
if pos >= end:
    raise _trunc("length", 1, pos, end)
n = buf[pos]
if n < 128:
    pos += 1
else:
    n, pos = _rv(buf, pos, end)
p2 = pos + n
if p2 > end:
    raise _lenerr(buf, start, n, end)""",
    )


def emit_read_varint(w: Writer, ind: int, kind: Kind | None) -> None:
    # ``kind=None`` only checks the varint (for validators).
    w(
        ind,
        """
if pos >= end:
    raise _trunc("varint", 1, pos, end)
v = buf[pos]
if v < 128:
    pos += 1
else:
    v, pos = _rv(buf, pos, end)""",
    )
    if kind is None:
        return
    if kind in _VARINT_SLOW and _VARINT_SLOW[kind] != "v":
        w(ind + 1, f"v = {_VARINT_SLOW[kind]}")
    if kind in _VARINT_ALWAYS:
        w(ind, f"v = {_VARINT_ALWAYS[kind]}")


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


class DecoderSource:
    """Builds the source for one message; ``names`` maps classes to generated names."""

    def __init__(
        self, schema: MessageSchema, names: dict[type, str], flavor: str, lazy: bool = False
    ) -> None:
        self.schema = schema
        self.names = names
        self.flavor = flavor
        self.lazy = lazy
        self.uses_dict = bool(schema.oneofs)
        self.constants: dict[str, object] = {}

    def _fn(self, cls: type) -> str:
        return f"_d_{self.names[cls]}"

    def _store(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        """Set a singular field, clearing the other members of its oneof."""
        if spec.oneof is not None:
            for other in self.schema.oneofs[spec.oneof]:
                if other is not spec:
                    w(ind, f"d.pop({other.name!r}, None)")
        if self.uses_dict:
            w(ind, f"d[{spec.name!r}] = {value}")
        else:
            w(ind, f"o.{spec.name} = {value}")

    def _append(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        r = f"r_{spec.name}"
        target = f"d[{spec.name!r}]" if self.uses_dict else f"o.{spec.name}"
        w(
            ind,
            f"""
if {r} is None:
    {r} = {target} = [{value}]
else:
    {r}.append({value})""",
        )

    def _ensure_list(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        r = f"r_{spec.name}"
        target = f"d[{spec.name!r}]" if self.uses_dict else f"o.{spec.name}"
        w(ind, f"if {r} is None:\n    {r} = {target} = []")

    def _unknown(self, w: Writer, ind: int, record: str) -> None:
        target = "d['_unknown']" if self.uses_dict else "o._unknown"
        w(ind, f"if unk is None:\n    unk = {target} = []\nunk.append({record})")

    def _nan_flag(self, w: Writer, ind: int) -> None:
        w(ind, "d['_nan32'] = True" if self.uses_dict else "o._nan32 = True")

    # -- one branch per accepted tag -------------------------------------------------------

    def _branch_single(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        """The value of one occurrence (a whole element for repeated fields)."""
        kind = spec.kind
        if kind is Kind.STRING:
            emit_read_length(w, ind)
            if self.flavor == "decode":
                # Strict decoding is the fast path; invalid UTF-8 (rare) is kept losslessly.
                w(
                    ind,
                    """
try:
    v = buf[pos:p2].decode()
except UnicodeDecodeError:
    v = buf[pos:p2].decode('utf-8', 'surrogateescape')""",
                )
            else:
                w(ind, "v = str(buf[pos:p2], 'utf-8', 'surrogateescape')")
            w(ind, "pos = p2")
            self._finish(w, ind, spec)
        elif kind is Kind.BYTES:
            emit_read_length(w, ind)
            w(ind, "v = mv[pos:p2]\npos = p2")
            self._finish(w, ind, spec)
        elif kind is Kind.MESSAGE and spec.repeated and self.lazy:
            emit_read_length(w, ind)
            self._lazy_element(w, ind, spec)
        elif kind is Kind.MESSAGE:
            emit_read_length(w, ind)
            w(ind, f"v = {self._fn(spec.message_type)}(buf, mv, pos, p2, depth - 1)\npos = p2")
            if spec.repeated:
                self._append(w, ind, spec, "v")
            elif spec.oneof is not None:
                # A repeated occurrence merges, unless another member took the oneof since.
                w(ind, f"cur = d.get({spec.name!r})\nif cur is None:")
                self._store(w, ind + 1, spec, "v")
                w(ind, "else:\n    cur.MergeFrom(v)")
            else:
                m = f"m_{spec.name}"
                target = f"d[{spec.name!r}]" if self.uses_dict else f"o.{spec.name}"
                w(ind, f"if {m} is None:\n    {m} = {target} = v\nelse:\n    {m}.MergeFrom(v)")
        elif kind in FIXED_KINDS:
            _, size, unpack = FIXED_KINDS[kind]
            w(
                ind,
                f"""
if end - pos < {size}:
    raise _trunc("fixed{size * 8}", {size}, pos, end)
v = {unpack}(buf, pos)[0]""",
            )
            if kind is Kind.FLOAT:
                w(ind, "if v != v:\n    v = _nan32(buf, pos)")
                if spec.repeated:
                    self._nan_flag(w, ind + 1)
            w(ind, f"pos += {size}")
            self._finish(w, ind, spec)
        else:
            emit_read_varint(w, ind, kind)
            if kind is Kind.ENUM:
                valid = f"_E_{self.names[self.schema.cls]}_{spec.number}"
                self.constants[valid] = spec.enum_values
                w(ind, f"if v in {valid}:")
                self._finish(w, ind + 1, spec)
                w(ind, "else:")
                # protobuf keeps the record exactly as it arrived (tag bytes included).
                self._unknown(w, ind + 1, "mv[start:pos]")
            else:
                self._finish(w, ind, spec)

    def _lazy_element(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        """One element of a repeated message field: decoded now if big, else validated and
        recorded by offset (see wirecodec.protobuf.lazy)."""
        r, s, a, q = (f"{x}_{spec.name}" for x in "rsaq")
        fn = self._fn(spec.message_type)
        w(ind, f"if n >= _SMALL or ({s} is None and ({r} is None or len({r}) < _EAGER_FIRST)):")
        w(ind + 1, f"v = {fn}(buf, mv, pos, p2, depth - 1)\nif {s} is None:")
        self._append(w, ind + 2, spec, "v")
        w(
            ind,
            f"""
    elif {q} is not None:
        {q}.append(v)
    else:
        {q} = {s}.add_decoded(v)
else:
    if depth < _CHECKED:
        _v_{self.names[spec.message_type]}(buf, pos, p2, depth - 1)
    if {s} is None:
        {s} = _pending(o, {spec.name!r}, buf, mv, {fn}, {r})
        {a} = {s}.starts
        {q} = None
    if {q} is None:
        {a}.append(start)
    else:
        {s}.add_waiting(start)
pos = p2""",
        )

    def _finish(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        if spec.repeated:
            self._append(w, ind, spec, "v")
        else:
            self._store(w, ind, spec, "v")

    def _branch_packed(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        kind = spec.kind
        emit_read_length(w, ind)
        self._ensure_list(w, ind, spec)
        r = f"r_{spec.name}"
        if kind in FIXED_KINDS:
            fmt, size, _ = FIXED_KINDS[kind]
            w(
                ind,
                f"""
if n % {size}:
    raise _DecodeError(
        f"packed run of {size}-byte values has length {{n}}, not a multiple of {size}", pos
    )""",
            )
            if kind is Kind.FLOAT:
                w(ind, f"vals, has_nan = _f32run(buf, pos, n // 4)\n{r}.extend(vals)")
                w(ind, "if has_nan:")
                self._nan_flag(w, ind + 1)
            else:
                w(ind, f"{r}.extend(_run({fmt!r}, {size}, buf, pos, n // {size}))")
        elif kind is Kind.ENUM:
            valid = f"_E_{self.names[self.schema.cls]}_{spec.number}"
            self.constants[valid] = spec.enum_values
            w(
                ind,
                f"""
for raw in _rpv(buf, pos, p2, None):
    v = _to_i32(raw)
    if v in {valid}:
        {r}.append(v)
    else:""",
            )
            # A packed value has no record of its own: protobuf writes tag + raw varint.
            self._unknown(w, ind + 2, f"_enum_unknown({spec.number}, raw)")
        elif kind in _PACKED_ALWAYS:
            w(ind, f"{r}.extend([{_PACKED_ALWAYS[kind]} for x in _rpv(buf, pos, p2, None)])")
        else:
            w(ind, f"{r}.extend(_rpv(buf, pos, p2, {_PACKED_CONVERTER[kind]}))")
        w(ind, "pos = p2")

    # -- the whole function ----------------------------------------------------------------

    def source(self) -> str:
        w = Writer()
        name = self.names[self.schema.cls]
        w(0, f"def _d_{name}(buf, mv, pos, end, depth):")
        w(
            1,
            f"""
if depth < 0:
    raise _LimitError("nesting deeper than max_depth", pos)
o = _new(_C_{name})""",
        )
        if self.uses_dict:
            w(1, "d = o.__dict__")
        w(1, "unk = None")
        for spec in self.schema.fields:
            if spec.repeated:
                w(1, f"r_{spec.name} = None")
                if self.lazy and spec.kind is Kind.MESSAGE:
                    w(1, f"s_{spec.name} = None")  # a_ and q_ are set with it
            elif spec.kind is Kind.MESSAGE and spec.oneof is None:
                w(1, f"m_{spec.name} = None")
        # One handler per message adds this level's step to the error path as it unwinds.
        emit_record_loop(w, self.schema.fields, self._branch_single, self._branch_packed)
        self._unknown(w, 4, "mv[start:pos]")
        w(1, "except _DecodeError as exc:\n    _where(exc, o, tag)\n    raise\nreturn o")
        return "\n".join(w.lines) + "\n"

