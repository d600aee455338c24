"""Records: decoded elements kept as tuples of their values, read through views.

A repeated message field declared ``records=True`` (schema_dsl.fields.repeated) is
decoded by a *records decoder* (the ``+records`` kinds of wirecodec.protobuf.compile,
opted into with ``WIRECODEC_RECORDS=1`` or :func:`records_decoding`): each element
becomes a **record**, ``(has, start, end, value, ...)`` with one value per declared
field in field-number order (a nested message as its record or None, a repeated field
as a tuple), which CPython stops tracking the first time a young collection sees it.
Reads build views from records (schema_dsl.views); the first write pins one.

Both functions of a class are generated from its declaration, as its decoder is:

* ``record_<C>(buf, pos, end, depth)`` gives the record of the payload at
  ``buf[pos:end]``, or None whenever the element cannot be a record: a field of a type
  that cannot be one (a tensor, a subgraph with weights), an unknown field, anything
  not canonical (order, repeated singular fields, long varints), anything malformed.
  The decoder then decodes the element as a message, as without records, which raises
  the same errors at the same offsets and reports what is not canonical: a record is
  only ever made of bytes the encoder would write exactly so;
* ``build_<C>(record, src, extras)`` builds the message a record stands for: the same
  slots, spans (re-emit works on views) and containers the decoder would have made,
  each message sharing ``extras`` (its family link) and each container linked to it.

A class can be a record if all its fields can: scalars, strings, bytes that are not
views, repeated fields that are not packed, and messages (of a class that can be a
record; any other makes its element fall back when present).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, Final

from schema_dsl import FieldSpec, Kind, Message, MessageSchema
from schema_dsl.containers import container_class
from schema_dsl.views import record_container_class
from wirecodec.errors import DecodeError
from wirecodec.protobuf import origin
from wirecodec.protobuf import runtime as rt
from wirecodec.protobuf.gen.source import VARINT_RANGE, VARINT_SLOW, Writer
from wirecodec.protobuf.wire import encode_varint, read_varint, unpack_f32, unpack_f64

__all__ = ["enabled", "namespace_for", "record_functions", "records_decoding"]

_VARINT: Final = frozenset({Kind.INT32, Kind.INT64, Kind.UINT32, Kind.UINT64, Kind.ENUM, Kind.BOOL})
_LENGTH: Final = frozenset({Kind.STRING, Kind.BYTES, Kind.MESSAGE})
_FIXED: Final = {Kind.FLOAT: (5, 4, "_uf32"), Kind.DOUBLE: (1, 8, "_uf64")}
_ON: Final = contextvars.ContextVar("wirecodec_records", default=os.environ.get("WIRECODEC_RECORDS") == "1")
_LOCK: Final = threading.RLock()
_KEY: Final = "records"

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
}


def enabled() -> bool:
    """Whether decoders made now keep ``records=True`` fields as records."""
    return _ON.get()


@contextlib.contextmanager
def records_decoding(on: bool = True) -> Iterator[None]:
    """Within the block (this thread or task), lazy decodes keep records (or not)."""
    token = _ON.set(on)
    try:
        yield
    finally:
        _ON.reset(token)


def can_be_record(cls: type[Message]) -> bool:
    """Whether every field of ``cls`` can be held in a record (see the module docstring)."""
    for spec in cls.__schema__.fields:
        if spec.view or spec.packed:
            return False
        if spec.kind not in _VARINT and spec.kind not in _LENGTH and spec.kind not in _FIXED:
            return False
    return True


def _tag(spec: FieldSpec) -> int:
    wire = 0 if spec.kind in _VARINT else 2 if spec.kind in _LENGTH else _FIXED[spec.kind][0]
    return spec.number << 3 | wire


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
    """The source of ``record_<C>`` for one class (see the module docstring)."""
    w = Writer()
    name = _name("record", schema)
    w(0, f"def {name}(buf, pos, end, depth):")
    w(1, "if depth < 1:\n    return None\nstart = pos\nh = 0\nlt = 0")
    for i, spec in enumerate(schema.fields):
        if spec.repeated or spec.kind is Kind.MESSAGE:
            w(1, f"f{i} = None")
        else:
            w(1, f"f{i} = _Z{i}")
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
        return None
    pos += 2
else:
    return None""",
    )
    first = True
    for i, spec in enumerate(schema.fields):
        tag = _tag(spec)
        w(2, f"{'if' if first else 'elif'} tag == {tag}:")
        first = False
        ind = 3
        w(ind, f"if lt > {tag}:\n    return None\nlt = {tag if spec.repeated else tag + 1}")
        if spec.oneof is not None:
            w(ind, f"if g_{spec.oneof}:\n    return None\ng_{spec.oneof} = 1")
        kind = spec.kind
        if kind in _VARINT:
            _read_varint(w, ind, "v", VARINT_RANGE.get(kind, 0))
            slow = VARINT_SLOW.get(kind)
            if slow is not None:
                w(ind + 1, f"v = {slow}")  # inside the long varint branch
            if kind is Kind.BOOL:
                w(ind, "if v > 1:\n    return None\nv = v != 0")
            if kind is Kind.ENUM:
                w(ind, f"if v not in _E{i}:\n    return None")
        elif kind in _FIXED:
            _, size, unpack = _FIXED[kind]
            w(ind, f"if end - pos < {size}:\n    return None\nv = {unpack}(buf, pos)[0]")
            w(ind, f"if v != v:\n    return None  # NaN payloads: the decoder keeps them\npos += {size}")
        else:
            _read_varint(w, ind, "n", 0)
            w(ind, "p2 = pos + n\nif p2 > end:\n    return None")
            if kind is Kind.STRING:
                w(ind, "try:\n    v = buf[pos:p2].decode()\nexcept UnicodeDecodeError:\n    return None")
            elif kind is Kind.BYTES:
                w(ind, "v = bytes(buf[pos:p2])")
            elif can_be_record(spec.message_type):
                w(ind, f"v = _r{i}(buf, pos, p2, depth - 1)\nif v is None:\n    return None")
            else:
                w(ind, "return None  # a message of a class that cannot be a record")
            w(ind, "pos = p2")
        if spec.repeated:
            w(ind, f"if f{i} is None:\n    f{i} = [v]\n    h |= {schema.bit[spec.name]}\nelse:\n    f{i}.append(v)")
        else:
            w(ind, f"f{i} = v\nh |= {schema.bit[spec.name]}")
    if first:
        w(2, "return None")
    else:
        w(2, "else:\n    return None  # an unknown field, or a known one with another wire type")
    values = ", ".join(
        f"() if f{i} is None else tuple(f{i})" if spec.repeated else f"f{i}" for i, spec in enumerate(schema.fields)
    )
    w(1, f"return (h, start, end{', ' if values else ''}{values})")
    return "\n".join(w.lines) + "\n"


def build_source(schema: MessageSchema) -> str:
    """The source of ``build_<C>`` for one class (see the module docstring)."""
    w = Writer()
    w(0, f"def {_name('build', schema)}(r, src, x):")
    w(1, f"o = _new(_H)\nsp = None if src is None else src | r[1] << {origin.SPAN_SHIFT} | r[2]")
    w(1, "o._span = sp\no._x = x\no._has = r[0]")
    for i, spec in enumerate(schema.fields):
        at = i + 3
        if not spec.repeated and spec.kind is not Kind.MESSAGE:
            w(1, f"o.{spec.name} = r[{at}]")
        elif not spec.repeated:
            w(1, f"v = r[{at}]\nif v is not None:\n    o.{spec.name} = _b{i}(v, src, x)")
        else:
            w(1, f"v = r[{at}]\nif v:\n    c = _newlist(_R{i})\n    c._span = sp\n    c._home = x")
            if spec.kind is Kind.MESSAGE:
                size = len(encode_varint(_tag(spec)))
                w(2, f"b = _b{i}\nfor e in v:\n    _lapp(c, b(e, src, x))")
                w(2, f"if sp is not None and len(v) > 1:\n    c._span = c._records = _fspan(c, {size})")
            else:
                w(2, "_lext(c, v)")
            w(2, f"o.{spec.name} = c")
    w(1, "o.__class__ = _C\nreturn o")
    return "\n".join(w.lines) + "\n"


def _name(prefix: str, schema: MessageSchema) -> str:
    return prefix + "_" + "".join(ch if ch.isalnum() else "_" for ch in schema.cls.__qualname__)


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
        if spec.repeated:
            namespace[f"_R{i}"] = container_class(spec)
    text = record_source(schema) + "\n" + build_source(schema)
    exec(compile(text, f"<wirecodec records {schema.full_name}>", "exec"), namespace)
    schema.codecs[_KEY] = namespace  # before the nested classes: a recursive type finds it
    for i, spec in enumerate(schema.fields):
        if spec.kind is Kind.MESSAGE and can_be_record(spec.message_type):
            namespace[f"_r{i}"], namespace[f"_b{i}"] = record_functions(spec.message_type)
        elif spec.kind is Kind.MESSAGE:
            namespace[f"_b{i}"] = None  # never called: no record holds such a field
    return namespace


def namespace_for(cls: type[Message]) -> dict[str, Any]:
    """What a records decoder of ``cls`` calls, by name: for each ``records`` field, the
    element's record and build functions and the field's records container."""
    names: dict[str, Any] = {}
    for spec in cls.__schema__.fields:
        if uses_records(spec):
            names[f"_rr_{spec.name}"], names[f"_rb_{spec.name}"] = record_functions(spec.message_type)
            names[f"_RC_{spec.name}"] = record_container_class(spec)
    return names


def uses_records(spec: FieldSpec) -> bool:
    """Whether a records decoder keeps field ``spec``'s elements as records."""
    return spec.records and spec.repeated and spec.kind is Kind.MESSAGE and can_be_record(spec.message_type)
