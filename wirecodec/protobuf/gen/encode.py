"""Generate the Python source of one message's encoder from its declaration.

The generated function has the signature ``(o, out) -> int``: it appends the message's
fields (known ones in field-number order, then the unknown records verbatim) to the
chunk list ``out`` and returns how many bytes it appended. A sub-message's length
prefix goes into a slot reserved before its fields and filled once its size is known,
so each payload is referenced once and copied once, when the chunks are joined or
written out. A decoded message that nothing has changed since appends its source bytes
instead, and a long repeated field its records' (wirecodec.protobuf.origin).

A third argument ``w`` (None unless given) is for :func:`wirecodec.protobuf.origin.reuse_field`:
the origin's bytes, passed for an element that changed *itself* while nothing inside it
did (every change reported inside its span was its own). The encoder then skips the
re-emit check it would fail, writes the element's own fields, and appends each
sub-message decoded inside the element's span as its source record (tag, length and
payload: one slice, no check, no call): renaming a node encodes its strings and copies
its attributes.

Type errors are not checked here beyond what the operations themselves reject; when
anything raises, :mod:`wirecodec.protobuf.codec` re-walks the message to report which field.
"""

from __future__ import annotations

from typing import Final

from schema_dsl import FieldSpec, Kind, MessageSchema
from schema_dsl.containers import container_class
from wirecodec.protobuf.gen.decode import function_name
from wirecodec.protobuf.gen.source import FIXED_KINDS, Writer
from wirecodec.protobuf.origin import SPAN_SHIFT
from wirecodec.protobuf.wire import encode_varint

__all__ = ["EncoderSource"]

_VARINT_ENCODER: Final = {
    Kind.INT64: "_v_i64",
    Kind.INT32: "_v_i32",
    Kind.ENUM: "_v_i32",
    Kind.UINT64: "_v_u64",
    Kind.UINT32: "_v_u32",
    Kind.SINT64: "_v_s64",
    Kind.SINT32: "_v_s32",
    Kind.BOOL: "_v_bool",
}
# Kinds whose non-negative values below this encode as the plain base-128 number, written
# by runtime.varint_run in one call per packed run (negatives and the rest: per value).
_RUN_BELOW: Final = {
    Kind.INT64: "0x8000000000000000",
    Kind.INT32: "0x80000000",
    Kind.ENUM: "0x80000000",
    Kind.UINT64: "0x10000000000000000",
    Kind.UINT32: "0x100000000",
}
# wirecodec.protobuf.origin's span layout: serial << 80 | start << 40 | end
_SHIFT: Final = SPAN_SHIFT
_OFFSETS: Final = (1 << _SHIFT) - 1
# Kinds whose values 0..127 encode as that single byte, so a table can hold tag+value.
_SMALL_TABLE: Final = {Kind.INT64, Kind.INT32, Kind.ENUM, Kind.UINT64, Kind.UINT32}


class EncoderSource:
    """Builds the source for one message; ``constants`` are tag tables it refers to."""

    def __init__(self, schema: MessageSchema) -> None:
        self.schema = schema
        self.constants: dict[str, object] = {}

    def _tag(self, spec: FieldSpec, tag: int) -> str:
        name = f"_t_{tag}"
        self.constants[name] = encode_varint(tag)
        return name

    def _headers(self, spec: FieldSpec, tag: int) -> tuple[str, str, int]:
        """Names of the tag bytes and of the table 'tag + one-byte length', and tag size."""
        tag_name = self._tag(spec, tag)
        table = f"_h_{tag}"
        raw = encode_varint(tag)
        self.constants[table] = tuple(raw + bytes((i,)) for i in range(128))
        return tag_name, table, len(raw)

    def _length_delimited(self, w: Writer, ind: int, spec: FieldSpec, body: str) -> None:
        """Append tag, length and ``body`` (a bytes-like expression already in ``b``)."""
        tag_name, table, size = self._headers(spec, spec.tag if not spec.packed else spec.packed_tag)
        w(
            ind,
            f"""
ln = len({body})
if ln < 128:
    out.append({table}[ln])
    n += {size + 1} + ln
else:
    h = {tag_name} + _ev(ln)
    out.append(h)
    n += len(h) + ln
out.append({body})""",
        )

    def _inside(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        """Own-fields mode (``w`` given): a sub-message decoded inside the element's span is
        appended as its source record when that record's tag and length are canonical (an
        element not canonical itself reports a change at decode); the line after this goes
        on otherwise (``else``)."""
        tag_name, table, _ = self._headers(spec, spec.tag)
        w(
            ind,
            f"""
cs = None if w is None else {value}._span
if cs is not None and lb < cs <= hb and cs & {_OFFSETS} <= hi:
    a = cs >> {_SHIFT} & {_OFFSETS}
    b = cs & {_OFFSETS}
    ln = b - a
    h = {table}[ln] if ln < 128 else {tag_name} + _ev(ln)
    a -= len(h)
    if w[a : a + len(h)] != h:
        cs = None
if cs is not None:
    out.append(w[a:b])
    n += b - a""",
        )

    def _message(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        tag_name, table, size = self._headers(spec, spec.tag)
        fn = f"_e_{spec.name}"
        w(
            ind,
            f"""
i = len(out)
out.append(b"")
ln = {fn}({value}, out)
if ln < 128:
    out[i] = {table}[ln]
    n += {size + 1} + ln
else:
    h = {tag_name} + _ev(ln)
    out[i] = h
    n += len(h) + ln""",
        )

    def _scalar(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        """One unpacked value with its tag."""
        kind = spec.kind
        if kind is Kind.STRING:
            w(ind, f"b = {value}.encode('utf-8', 'surrogateescape')")
            self._length_delimited(w, ind, spec, "b")
        elif kind is Kind.BYTES:
            w(ind, f"b = {value} if type({value}) is bytes else _bview({value})")
            self._length_delimited(w, ind, spec, "b")
        elif kind is Kind.MESSAGE:
            self._message(w, ind, spec, value)
        elif kind in FIXED_KINDS:
            size, pack = FIXED_KINDS[kind].size, FIXED_KINDS[kind].pack
            tag_name = self._tag(spec, spec.tag)
            w(ind, f"out.append({tag_name} + {pack}({value}))\nn += {len(encode_varint(spec.tag)) + size}")
        else:
            tag_name = self._tag(spec, spec.tag)
            if kind in _SMALL_TABLE:
                table = f"_s_{spec.number}"
                raw = encode_varint(spec.tag)
                self.constants[table] = tuple(raw + bytes((i,)) for i in range(128))
                w(
                    ind,
                    f"""
if type({value}) is int and 0 <= {value} < 128:
    out.append({table}[{value}])
    n += {len(raw) + 1}
else:
    _chk_int({value})
    h = {tag_name} + {_VARINT_ENCODER[kind]}({value})
    out.append(h)
    n += len(h)""",
                )
            else:
                if kind is not Kind.BOOL:
                    w(ind, f"_chk_int({value})")
                w(ind, f"h = {tag_name} + {_VARINT_ENCODER[kind]}({value})\nout.append(h)\nn += len(h)")

    def _packed(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        kind = spec.kind
        if kind is Kind.FLOAT:
            w(ind, "b = _f32pack(v)")
        elif kind in FIXED_KINDS:
            fmt = FIXED_KINDS[kind].fmt
            w(ind, f"b = _pack(f'<{{len(v)}}{fmt}', *v)")
        elif kind in _RUN_BELOW:
            # one call per run: the plain base-128 numbers written there, the rest by value
            w(ind, f"b = _vrun(v, {_RUN_BELOW[kind]}, {_VARINT_ENCODER[kind]})")
        else:
            if kind is not Kind.BOOL:
                w(ind, "for x in v:\n    _chk_int(x)")
            w(ind, f"b = b''.join(map({_VARINT_ENCODER[kind]}, v))")
        self._length_delimited(w, ind, spec, "b")

    def _field(self, w: Writer, spec: FieldSpec) -> None:
        w(1, f"if present & {self.schema.bit[spec.name]}:\n    v = o.{spec.name}")
        if spec.repeated:
            # (the field's own container class first: a decoded or built message's, no call)
            ours = f"_R_{spec.name}"
            self.constants[ours] = container_class(spec)
            w(
                2,
                f"if type(v) is not {ours} and type(v) is not list and not isinstance(v, (list, tuple)):"
                "\n    _not_a_list(v)",
            )
            if spec.packed:
                w(2, "if v:")
                self._packed(w, 3, spec)
            elif spec.kind is Kind.MESSAGE:
                # A long field decoded whole has a span of its own (wirecodec.protobuf.origin).
                # In own-fields mode a field span inside the element's is its source records.
                w(
                    2,
                    f"""
cs = getattr(v, '_records', None)
if w is not None and cs is not None and lb < cs <= hb and cs & {_OFFSETS} <= hi:
    a = (cs >> {_SHIFT} & {_OFFSETS}) - 1
    b = cs & {_OFFSETS}
    out.append(w[a:b])
    n += b - a
else:
    k = None if cs is None else _reuse_field(v, cs, {self._tag(spec, spec.tag)}, _e_{spec.name}, out)
    if k is not None:
        n += k
    else:
        for x in v:""",
                )
                self._inside(w, 5, spec, "x")
                w(5, "else:")
                self._scalar(w, 6, spec, "x")
            else:
                w(2, "for x in v:")
                self._scalar(w, 3, spec, "x")
        elif spec.kind is Kind.MESSAGE:
            self._inside(w, 2, spec, "v")
            w(2, "else:")
            self._message(w, 3, spec, "v")
        else:
            self._scalar(w, 2, spec, "v")

    def source(self) -> str:
        w = Writer()
        w(0, f"def {function_name('encode', self.schema)}(o, out, w=None):")
        w(
            1,
            f"""
if type(o) is not _C:
    _wrong_type(o, _C)
if w is None:
    sp = o._span
    if sp is not None:
        # decoded from canonical bytes that cannot change: re-emit them if still unchanged
        b = _reuse(sp)
        if b is not None:
            out.append(b)
            return len(b)
else:
    # o changed itself, nothing inside it did (origin.reuse_field): a span cs of the same
    # origin starting after o's and ending within it (lb < cs <= hb, its end <= hi) is
    # still its source bytes in w
    sp = o._span
    hi = sp & {_OFFSETS}
    lb = sp | {_OFFSETS}
    hb = sp >> {2 * _SHIFT} << {2 * _SHIFT} | hi << {_SHIFT} | hi
x = o._x
if x is not None and x.lazy:
    o._load_lazy()
present = o._has
n = 0""",
        )
        for spec in self.schema.fields:
            self._field(w, spec)
        w(
            1,
            """
x = o._x
v = () if x is None else x.unknown
if v:
    for x in v:
        out.append(x)
        n += len(x)
return n""",
        )
        return w.text()
