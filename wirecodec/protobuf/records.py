"""Records: decoded elements of long graphs kept as tuples of their values, read through views.

A repeated message field declared ``records=True`` (schema_dsl.fields.repeated: a graph's
nodes and values, a function's nodes) is decoded by a *records decoder* (the
``decode+lazy+records`` kind of wirecodec.protobuf.compile, the default lazy decode of a
class that can meet one; ``decode(..., records=False)`` turns it off) when its owner has a
field of more than RECORDS_AFTER elements (:func:`keeps_records`). Each element then
becomes a **record**: a flat tuple of atoms, ``(has, start, length, value, ...)`` with one
value per present field in field-number order (a nested message inlined the same way or,
when small, as a fragment id and its start: wirecodec.protobuf.fragments; a repeated
field as a count and its values; a view field as its place), which CPython stops
tracking the first time a young collection sees it. Reads build views from records
(schema_dsl.views); the first write pins one.

Both functions of a class are generated from its declaration, as its decoder is:

* ``record_<C>(buf, pos, end, depth, out, memo)`` appends the atoms of the payload at
  ``buf[pos:end]`` to ``out`` and says whether it could: not when a field is of a type
  that cannot be one, a subgraph past MAX_HELD_GRAPH bytes, an unknown field, anything
  not canonical (order, repeated singular fields, long varints), anything malformed. The decoder then decodes
  the element as a message, as without records, which raises the same errors at the
  same offsets and reports what is not canonical: a record is only ever made of bytes
  the encoder would write exactly so;
* ``build_<C>(record, i, base, src, extras, fragments)`` builds the message whose atoms
  start at ``record[i]``: the same slots, spans (re-emit works on views) and containers
  the decoder would have made, each message sharing ``extras`` (its family link) and
  each container linked to it.

A class can be a record if all its fields can: scalars, strings, bytes, repeated fields
(packed runs up to MAX_COPIED bytes), and messages of a class that can be one. A class
holding records itself (a graph) can be one inside an element up to MAX_HELD_GRAPH bytes:
a view builds it whole, as a message (only the top graph's fields keep records).
"""

from __future__ import annotations

import struct
import threading
import weakref
from collections.abc import Callable
from typing import Any, Final

from schema_dsl import FieldSpec, Kind, Message, MessageSchema
from schema_dsl.containers import container_class
from schema_dsl.views import record_container_class
from wirecodec.errors import DecodeError
from wirecodec.protobuf import origin
from wirecodec.protobuf import runtime as rt
from wirecodec.protobuf.code_cache import code
from wirecodec.protobuf.fragments import RecordMemo
from wirecodec.protobuf.gen.source import VARINT_RANGE, VARINT_SLOW, Writer
from wirecodec.protobuf.wire import encode_varint, read_varint, skip_field, unpack_f32, unpack_f64

__all__ = [
    "install",
    "keeps_records",
    "reaches_records",
    "record_functions",
]

_VARINT: Final = frozenset({Kind.INT32, Kind.INT64, Kind.UINT32, Kind.UINT64, Kind.ENUM, Kind.BOOL})
_LENGTH: Final = frozenset({Kind.STRING, Kind.BYTES, Kind.MESSAGE})
_FIXED: Final = {Kind.FLOAT: (5, 4, "_uf32"), Kind.DOUBLE: (1, 8, "_uf64")}
_LOCK: Final = threading.RLock()
_KEY: Final = "records"


def can_be_record(cls: type[Message]) -> bool:
    """Whether every field of ``cls`` can be held in a record (see the module docstring)."""
    return all(
        spec.kind in _VARINT or spec.kind in _LENGTH or spec.kind in _FIXED for spec in cls.__schema__.fields
    )


def holds_records(cls: type[Message]) -> bool:
    """Whether ``cls`` has ``records`` fields of its own (a graph, a function)."""
    return any(spec.records for spec in cls.__schema__.fields)


def _tag(spec: FieldSpec) -> int:
    if spec.packed:
        return spec.number << 3 | 2
    wire = 0 if spec.kind in _VARINT else 2 if spec.kind in _LENGTH else _FIXED[spec.kind][0]
    return spec.number << 3 | wire


# A record holds the values of packed runs only when they are this short: a longer one
# makes its element a message. (A field the decoder keeps as a view of the input, a
# tensor's raw_data, is held as its place, and its view made by each build: no copy.)
MAX_COPIED: Final = 256
# A subgraph (a message with records fields of its own) is held in its element's record
# up to this many bytes: the bodies of If, Loop and Scan nodes as exporters write them.
# A larger one makes its element a message (built once, at decode, kept).
MAX_HELD_GRAPH: Final = 4096
# Sub-messages this short are looked up by their bytes in the decode's memo of records
# (their nesting, at most one level per two bytes, fits the depth checked before); the
# memo keeps this many.
MEMO_PAYLOAD: Final = 64

MEMO_ENTRIES: Final = 4096


def packed_values(buf: Any, pos: int, end: int, kind_range: int, convert: Any) -> list[Any] | None:
    """The values of a canonical packed run of varints, or None (not canonical, malformed)."""
    if not rt.canonical_packed_varints(buf, pos, end, kind_range):
        return None
    values = rt.read_packed_varints(buf, pos, end, convert)
    return [v != 0 for v in values] if kind_range == 3 else values


def packed_fixed(buf: Any, pos: int, end: int, fmt: str, size: int) -> tuple[Any, ...] | None:
    """The values of a packed run of fixed-width numbers, or None (NaN among them: the
    decoder keeps NaN payloads, a record does not)."""
    values = struct.unpack_from(f"<{(end - pos) // size}{fmt}", buf, pos)
    return None if any(v != v for v in values) else values


_HELPERS: Final[dict[str, Any]] = {
    "_new": object.__new__,
    "_newlist": list.__new__,
    "_lapp": list.append,
    "_lext": list.extend,
    "_rv": read_varint,
    "_cv": rt.canonical_varint,
    "_to_i64": rt.to_int64,
    "_to_i32": rt.to_int32,
    "_to_u32": rt.to_uint32,
    "_uf32": unpack_f32,
    "_uf64": unpack_f64,
    "_DecodeError": DecodeError,
    "_fspan": origin.field_span,
    "_pvar": packed_values,
    "_pfix": packed_fixed,
}


def _read_varint(w: Writer, ind: int, var: str, range_kind: int) -> None:
    """Read a canonical varint into ``var``; anything else gives up (returns None)."""
    w(
        ind,
        f"""
if pos >= end:
    return None
{var} = buf[pos]
if {var} < 128:
    pos += 1
elif pos + 1 < end and buf[pos + 1] < 128:
    {var} = ({var} & 127) | (buf[pos + 1] << 7)
    if {var} < 128:
        return None
    pos += 2
else:
    q = pos
    try:
        {var}, pos = _rv(buf, pos, end)
    except _DecodeError:
        return None
    if not _cv(buf, q, pos, {var}, {range_kind}):
        return None""",
    )


def record_source(schema: MessageSchema) -> str:
    """The source of ``record_<C>``: appends the payload's values to ``out`` (see the
    module docstring), True if it could, False when the element cannot be a record."""
    w = Writer()
    name = _name("record", schema)
    w(0, f"def {name}(buf, pos, end, depth, out, m):")
    # The presence bits are known at the end: their place is kept. The head's start is
    # relative to the parent's (its caller writes it), so that equal bytes make equal
    # atoms wherever they are (the memo below reuses them).
    w(1, "if depth < 1:\n    return False\nps = pos\nbase = len(out)\nout += (0, 0, end - pos)")
    w(1, "h = 0\nlt = 0")
    for group in schema.oneofs:
        w(1, f"g_{group} = 0")
    w(1, "while pos < end:")
    w(
        2,
        """
tag = buf[pos]
if tag < 128:
    pos += 1
elif pos + 1 < end and buf[pos + 1] < 128:
    tag = (tag & 127) | (buf[pos + 1] << 7)
    if tag < 128:
        return False
    pos += 2
else:
    return False""",
    )
    first = True
    for i, spec in enumerate(schema.fields):
        tag = _tag(spec)
        w(2, f"{'if' if first else 'elif'} tag == {tag}:")
        first = False
        ind = 3
        # Canonical bytes hold the fields in number order, a repeated field's elements
        # together: so the values land in ``out`` in declaration order.
        w(ind, f"if lt > {tag}:\n    return False\nlt = {tag if spec.repeated else tag + 1}")
        if spec.noted:  # the decode must report it (wirecodec.protobuf.notes): a message does
            w(ind, "return False")
            continue
        if spec.oneof is not None:
            w(ind, f"if g_{spec.oneof}:\n    return False\ng_{spec.oneof} = 1")
        bit = schema.bit[spec.name]
        if spec.packed:  # one run (a second one is not canonical): its count, then its values
            w(ind, f"if h & {bit}:\n    return False\nh |= {bit}\nc{i} = len(out)\nout.append(0)")
        elif spec.repeated and spec.kind is Kind.MESSAGE:
            # A count, then the field's own span (its first record's start + 1, its last
            # payload's end: wirecodec.protobuf.origin.field_span), then the elements.
            first_record = f"pos - {len(encode_varint(tag))} + 1 - ps"  # (pos is past the tag)
            w(ind, f"if h & {bit}:\n    out[c{i}] += 1\nelse:\n    h |= {bit}\n    c{i} = len(out)")
            w(ind + 1, f"out += (1, {first_record}, 0)")
        elif spec.repeated:  # a count before the elements, kept up to date
            w(ind, f"if h & {bit}:\n    out[c{i}] += 1\nelse:\n    h |= {bit}\n    c{i} = len(out)")
            w(ind + 1, "out.append(1)")
        else:
            w(ind, f"h |= {bit}")
        kind = spec.kind
        if spec.packed:
            _read_varint(w, ind, "n", 0)
            w(ind, f"p2 = pos + n\nif p2 > end or n == 0 or n > {MAX_COPIED}:\n    return False")
            if kind in _FIXED:
                _, size, _ = _FIXED[kind]
                fmt = "f" if kind is Kind.FLOAT else "d"
                w(ind, f"if n % {size}:\n    return False\nvs = _pfix(buf, pos, p2, {fmt!r}, {size})")
            else:
                convert = VARINT_SLOW.get(kind, "None").replace("(v)", "")
                w(ind, f"vs = _pvar(buf, pos, p2, {VARINT_RANGE.get(kind, 0)}, {convert})")
            if kind is Kind.ENUM:
                w(ind, f"if vs is not None and not all(v in _E{i} for v in vs):\n    return False")
            # The count the branch head wrote becomes the run's length.
            w(ind, f"if vs is None:\n    return False\nout[c{i}] = len(vs)\nout += vs\npos = p2")
        elif kind in _VARINT:
            _read_varint(w, ind, "v", VARINT_RANGE.get(kind, 0))
            slow = VARINT_SLOW.get(kind)
            if slow is not None:
                w(ind + 1, f"v = {slow}")  # inside the long varint branch
            if kind is Kind.BOOL:
                w(ind, "if v > 1:\n    return False\nv = v != 0")
            if kind is Kind.ENUM:
                w(ind, f"if v not in _E{i}:\n    return False")
            w(ind, "out.append(v)")
        elif kind in _FIXED:
            _, size, unpack = _FIXED[kind]
            w(ind, f"if end - pos < {size}:\n    return False\nv = {unpack}(buf, pos)[0]")
            w(ind, f"if v != v:\n    return False  # NaN payloads: the decoder keeps them\npos += {size}")
            w(ind, "out.append(v)")
        else:
            _read_varint(w, ind, "n", 0)
            w(ind, "p2 = pos + n\nif p2 > end:\n    return False")
            if kind is Kind.STRING:
                w(ind, "try:\n    out.append(buf[pos:p2].decode())")
                w(ind, "except UnicodeDecodeError:\n    return False")
            elif kind is Kind.BYTES and spec.view:
                w(ind, "out += (pos - ps, n)  # its place: a build views the input there")
            elif kind is Kind.BYTES:
                w(ind, "out.append(bytes(buf[pos:p2]))")
            elif can_be_record(spec.message_type):
                if holds_records(spec.message_type):
                    # A subgraph in an element (an If's branches) is built with its view, on
                    # every read: kept in the record only while that stays cheap.
                    w(ind, f"if n > {MAX_HELD_GRAPH}:\n    return False")
                _nested_record(w, ind, i)
                if spec.repeated:
                    w(ind, f"out[c{i} + 2] = p2 - ps")
            else:
                w(ind, "return False  # a message of a class that cannot be a record")
            w(ind, "pos = p2")
    if first:
        w(2, "return False")
    else:
        w(2, "else:\n    return False  # an unknown field, or a known one with another wire type")
    w(1, "out[base] = h\nreturn True")
    return "\n".join(w.lines) + "\n"


def _nested_record(w: Writer, ind: int, i: int) -> None:
    """The atoms of the sub-message at ``buf[pos:p2]``, appended to ``out``; a payload of
    up to MEMO_PAYLOAD bytes is kept once per decode as a fragment (a graph repeats its
    value types and attributes: wirecodec.protobuf.fragments), and ``out`` gets its id."""
    w(
        ind,
        f"""
b0 = len(out)
if m is not None and n <= {MEMO_PAYLOAD} and depth > {MEMO_PAYLOAD // 2 + 1}:
    k = buf[pos:p2]
    e = m.get(k)
    if e is not None and e[0] is _T{i}:
        out += (~e[1], 0)
    elif not _r{i}(buf, pos, p2, depth - 1, out, m):
        return False
    elif e is None and len(m) < {MEMO_ENTRIES}:
        f = m.table.add(_T{i}, _b{i}, k, tuple(out[b0:]))
        m[k] = (_T{i}, f)
        del out[b0:]
        out += (~f, 0)
elif not _r{i}(buf, pos, p2, depth - 1, out, m):
    return False
out[b0 + 1] = pos - ps""",
    )


def build_source(schema: MessageSchema) -> str:
    """The source of ``build_<C>(r, i, src, x)``: the message whose values start at
    ``r[i]``, and where the next values start."""
    w = Writer()
    w(0, f"def {_name('build', schema)}(r, i, base, src, x, t):")
    w(1, "h = r[i]\nif h < 0:  # a fragment (wirecodec.protobuf.fragments)")
    w(2, "return t.build(~h, base + r[i + 1], src, x), i + 2")
    w(1, "o = _new(_H)\na = base + r[i + 1]")
    w(1, f"sp = None if src is None else src | a << {origin.SPAN_SHIFT} | (a + r[i + 2])")
    w(1, "o._span = sp\no._x = x\no._has = h\ni += 3")
    for i, spec in enumerate(schema.fields):
        bit = schema.bit[spec.name]
        if not spec.repeated and spec.kind is not Kind.MESSAGE:
            if spec.view:  # a view of the input where the record says
                w(1, f"if h & {bit}:\n    p = a + r[i]")
                w(2, f"o.{spec.name} = t.mv[p : p + r[i + 1]]\ni += 2")
            else:
                w(1, f"if h & {bit}:\n    o.{spec.name} = r[i]\n    i += 1")
            w(1, f"else:\n    o.{spec.name} = _Z{i}")
        elif not spec.repeated:
            w(1, f"if h & {bit}:\n    o.{spec.name}, i = _b{i}(r, i, a, src, x, t)")
        else:
            w(1, f"if h & {bit}:\n    n = r[i]\n    c = _newlist(_R{i})\n    c._span = sp\n    c._home = x")
            if spec.kind is Kind.MESSAGE:
                own = f"src | (a + r[i + 1]) << {origin.SPAN_SHIFT} | (a + r[i + 2])"
                w(2, f"if sp is not None and n > 1:\n    c._span = c._records = {own}")
                w(2, f"i += 3\nb = _b{i}\nfor _ in range(n):")
                w(3, "v, i = b(r, i, a, src, x, t)\n_lapp(c, v)")
            else:
                # One value (a node's usual input or output): no slice to extend from.
                w(2, "if n == 1:\n    _lapp(c, r[i + 1])\nelse:")
                w(3, "_lext(c, r[i + 1 : i + 1 + n])")
                w(2, "i += 1 + n")
            w(2, f"o.{spec.name} = c")
    w(1, "o.__class__ = _C\nreturn o, i")
    return "\n".join(w.lines) + "\n"


def _name(prefix: str, schema: MessageSchema) -> str:
    return prefix + "_" + "".join(ch if ch.isalnum() else "_" for ch in schema.cls.__qualname__)


def element_functions(cls: type[Message]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """What a records decoder and a records container call for an element of class ``cls``:
    ``record(buf, pos, end, depth)`` -> the record (a flat tuple) or None, and
    ``build(record, 0, 0, src, extras, fragments)`` -> (the message, the record's length)."""
    record_into, build_at = record_functions(cls)

    def record(buf: Any, pos: int, end: int, depth: int, memo: RecordMemo | None) -> tuple[Any, ...] | None:
        out: list[Any] = []
        if not record_into(buf, pos, end, depth, out, memo):
            return None
        out[1] = pos  # the element's start, relative to the input's (every other one is to its parent's)
        return tuple(out)

    return record, build_at


def record_functions(cls: type[Message]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """``cls``'s record and build functions, generated on first use (``cls`` can be a record)."""
    schema = cls.__schema__
    found: dict[str, Any] | None = schema.codecs.get(_KEY)
    if found is None:
        with _LOCK:
            found = schema.codecs.get(_KEY)
            if found is None:
                found = _generate(schema)
    return found[_name("record", schema)], found[_name("build", schema)]


def _generate(schema: MessageSchema) -> dict[str, Any]:
    namespace = dict(_HELPERS)
    namespace.update(_H=schema.holder, _C=schema.cls)
    for i, spec in enumerate(schema.fields):
        if not spec.repeated and spec.kind is not Kind.MESSAGE:
            namespace[f"_Z{i}"] = spec.default
        if spec.kind is Kind.ENUM:
            namespace[f"_E{i}"] = frozenset(spec.enum_values)
        if spec.kind is Kind.MESSAGE:
            namespace[f"_T{i}"] = spec.message_type
        if spec.repeated:
            namespace[f"_R{i}"] = container_class(spec)
    text = record_source(schema) + "\n" + build_source(schema)
    exec(code(text, f"<wirecodec records {schema.full_name}>"), namespace)  # cached, as codecs are
    schema.codecs[_KEY] = namespace  # before the nested classes: a recursive type finds it
    for i, spec in enumerate(schema.fields):
        if spec.kind is Kind.MESSAGE and can_be_record(spec.message_type):
            namespace[f"_r{i}"], namespace[f"_b{i}"] = record_functions(spec.message_type)
        elif spec.kind is Kind.MESSAGE:
            namespace[f"_b{i}"] = None  # never called: no record holds such a field
    return namespace


def install(namespace: dict[str, Any], cls: type[Message]) -> None:
    """Put what a records decoder of ``cls`` calls into its ``namespace``, by name: for each
    ``records`` field, the element's record and build functions (generated on the first
    record: a model without a long field never needs them) and the field's container."""
    kept = [spec for spec in cls.__schema__.fields if uses_records(spec)]
    for spec in kept:
        namespace[f"_rr_{spec.name}"] = _record_stub(namespace, spec)
        namespace[f"_rb_{spec.name}"] = None  # set with the record function
        namespace[f"_RC_{spec.name}"] = record_container_class(spec)
    if kept:
        namespace.update(_RecordMemo=RecordMemo, _keeps_records=keeps_records)


def _record_stub(namespace: dict[str, Any], spec: FieldSpec) -> Callable[..., Any]:
    """Stands in for the record function of ``spec``'s elements: generates both of the
    element's functions on its first call, then steps aside."""

    def first_call(buf: Any, pos: int, end: int, depth: int, memo: Any) -> tuple[Any, ...] | None:
        record, build = element_functions(spec.message_type)
        namespace[f"_rb_{spec.name}"] = build
        namespace[f"_rr_{spec.name}"] = record
        made: tuple[Any, ...] | None = record(buf, pos, end, depth, memo)
        return made

    return first_call


# A message keeps records only when one of its ``records`` fields has more elements than
# this: a graph of the size of most models people have (a few hundred nodes) costs its
# host's collector little, and views would cost it every read.
RECORDS_AFTER: Final = 1024
# ... and when those elements average at least this many bytes: a record is a tuple, a
# pointer and more per element, where a waiting element costs 4 bytes (wirecodec.protobuf.lazy);
# inputs of tiny elements (hostile ones: empty nodes) keep the lazy decoder's bound.
RECORD_MIN_AVERAGE: Final = 16


def keeps_records(buf: Any, pos: int, end: int, tags: frozenset[int]) -> bool:
    """Whether the message at ``buf[pos:end]`` has more than ``after`` elements in one of
    the fields whose tags are ``tags`` (length-delimited), of RECORD_MIN_AVERAGE bytes
    or more on average (the first field past the count decides): a scan of its
    records' tags and lengths that stops at the answer. Malformed bytes answer False
    (the decoder then says what is wrong)."""
    if end - pos < RECORDS_AFTER * RECORD_MIN_AVERAGE:
        return False  # too short to hold that many such elements: no need to look
    counts = dict.fromkeys(tags, 0)
    sizes = dict.fromkeys(tags, 0)
    try:
        while pos < end:
            tag = buf[pos]
            if tag < 128:  # the one-byte tags and lengths of most records, read inline
                pos += 1
            else:
                tag, pos = read_varint(buf, pos, end)
            wire = tag & 7
            if wire == 2:
                n = buf[pos]
                if n < 128:
                    pos += 1
                else:
                    n, pos = read_varint(buf, pos, end)
                pos += n
                if tag in counts:
                    sizes[tag] += n
                    seen = counts[tag] = counts[tag] + 1
                    if seen > RECORDS_AFTER:
                        return sizes[tag] >= seen * RECORD_MIN_AVERAGE
            else:  # (groups too: the decoder then says what is wrong with them, if anything)
                pos = skip_field(buf, tag, pos, end, 64)
    except (DecodeError, IndexError):
        return False
    return False


def reaches_records(cls: type[Message]) -> bool:
    """Whether a decode of ``cls`` can meet a ``records`` field (its own or a nested
    message's): only then does it need the records decoders (a schema without any, a
    user's own, decodes with the same codecs as before records)."""
    found = _REACHES.get(cls)
    if found is None:
        seen: set[type[Message]] = set()
        todo = [cls]
        found = False
        while todo and not found:
            at = todo.pop()
            if at in seen:
                continue
            seen.add(at)
            for spec in at.__schema__.fields:
                found = found or uses_records(spec)
                if spec.kind is Kind.MESSAGE:
                    todo.append(spec.message_type)
        _REACHES[cls] = found
    return found


_REACHES: Final[weakref.WeakKeyDictionary[type[Message], bool]] = weakref.WeakKeyDictionary()


def uses_records(spec: FieldSpec) -> bool:
    """Whether a records decoder keeps field ``spec``'s elements as records."""
    return spec.records and spec.repeated and spec.kind is Kind.MESSAGE and can_be_record(spec.message_type)
