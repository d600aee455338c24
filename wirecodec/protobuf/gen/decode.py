"""Generate the Python source of one message's decoder from its declaration.

The generated function has the signature ``(buf, mv, pos, end, depth, src) -> message``:
``buf`` is indexed for bytes and sliced for strings, ``mv`` (a memoryview of the same
bytes) is sliced for ``bytes`` fields so they stay views, ``depth`` is how many more
levels of nesting are allowed, ``src`` is the ``base`` of the input's
:class:`~wirecodec.protobuf.origin.Origin` (None when its bytes may change): every
message gets its span from it, and its repeated fields the same span, so that changing
them is noticed; a message whose records are not all canonical reports itself changed.

It dispatches on the whole tag, so a known field that arrives with the wrong wire type
falls through to the unknown-field branch, as in protobuf.

Names in the generated code are local to the message's own namespace (see
wirecodec.protobuf.compile): ``_C`` is the class, ``_d_<field>`` the decoder of a
message field's type, ``_v_<field>`` its validator, ``_E_<number>`` an enum's values.
"""

from __future__ import annotations

from typing import Final

from schema_dsl import FieldSpec, Kind, MessageSchema
from schema_dsl.containers import container_class
from schema_dsl.views import CHUNK
from wirecodec.protobuf.gen.source import (
    FIXED_KINDS,
    VARINT_RANGE,
    Writer,
    emit_read_length,
    emit_read_varint,
    emit_record_loop,
)
from wirecodec.protobuf.lazy import Thresholds
from wirecodec.protobuf.origin import SPAN_SHIFT
from wirecodec.protobuf.records import uses_records
from wirecodec.protobuf.wire import encode_varint

__all__ = ["DecoderSource", "function_name"]

# A repeated message field with more elements than this gets a span of its own
# (wirecodec.protobuf.origin): a renamed node then re-emits its attributes as one slice
# instead of asking each whether it changed (bench/run.py's edit-rename-all row). A lone
# element's own span does as well.
_OWN_SPAN_FROM: Final = 1

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


def function_name(prefix: str, schema: MessageSchema) -> str:
    """A readable, stable name for a generated function (it shows in tracebacks)."""
    return prefix + "_" + "".join(ch if ch.isalnum() else "_" for ch in schema.cls.__qualname__)


class DecoderSource:
    """Builds the decoder source for one message; with ``thresholds``, a lazy decoder
    (small elements of repeated message fields wait, see wirecodec.protobuf.lazy)."""

    def __init__(
        self, schema: MessageSchema, flavor: str, thresholds: Thresholds | None = None, records: bool = False
    ) -> None:
        self.schema = schema
        self.records = records  # ``records`` fields keep records (wirecodec.protobuf.records)
        self.flavor = flavor
        self.thresholds = thresholds  # None: decode every element at once
        self.constants: dict[str, object] = {}

    # A message is built on its class's slotted holder (``_H``, schema_dsl.message) with
    # plain attribute stores, and given the declared class (``_C``) once complete: the
    # declared class checks user assignments in its own __setattr__, which decoded
    # values do not need. ``h`` collects the bits of the stored fields (``_has``).

    def _bit(self, spec: FieldSpec) -> int:
        return self.schema.bit[spec.name]

    def _store(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        """Set a singular field; a oneof member first clears the member set before it."""
        if spec.oneof is not None:
            g = f"g_{spec.oneof}"
            w(
                ind,
                f"""
if {g} is not None and {g} != {spec.name!r}:
    h = _dropped(o, {g}, h)
    nc = 1  # the encoder writes only the last member
{g} = {spec.name!r}""",
            )
        w(ind, f"o.{spec.name} = {value}\nh |= {self._bit(spec)}")

    # A repeated field's value is its container class (schema_dsl.containers), filled
    # through the unbound list methods ``_lapp``/``_lext``: the container's own append
    # converts and copies, which decoded values do not need.

    def _container(self, spec: FieldSpec) -> str:
        name = f"_R_{spec.name}"
        self.constants[name] = container_class(spec)
        return name

    def _append(self, w: Writer, ind: int, spec: FieldSpec, value: str) -> None:
        if self._runs_wait(spec):
            # An unpacked element after a waiting run joins the run's record, in order.
            w(ind, f"if z_{spec.name} is not None:\n    z_{spec.name}.add_value({value})\nelse:")
            ind += 1
        self._ensure_list(w, ind, spec)
        w(ind, f"_lapp(r_{spec.name}, {value})")

    def _runs_wait(self, spec: FieldSpec) -> bool:
        """Whether long packed runs of ``spec`` wait as offsets (wirecodec.protobuf.lazy.PendingRun)."""
        return self.thresholds is not None and spec.repeated and spec.kind in FIXED_KINDS

    def _ensure_list(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        r = f"r_{spec.name}"
        w(
            ind,
            f"""
if {r} is None:
    {r} = _newlist({self._container(spec)})
    {r}._span = sp
    o.{spec.name} = {r}
    h |= {self._bit(spec)}""",
        )

    @staticmethod
    def _child_call(spec: FieldSpec) -> str:
        """Parsing the sub-message at ``buf[pos:p2]`` with its type's decoder."""
        return f"_d_{spec.name}(buf, mv, pos, p2, depth - 1, src)"

    def _unknown(self, w: Writer, ind: int, record: str) -> None:
        """Keep an unknown record; the encoder writes it after the known fields, so the
        message's bytes are not canonical."""
        w(ind, f"if unk is None:\n    unk = _extras(o).unknown = []\nunk.append({record})\nnc = 1")

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
            # Only a field declared as a view stays one; the others read as bytes, as in protobuf.
            w(ind, "v = mv[pos:p2]" if spec.view else "v = mv[pos:p2].tobytes()")
            w(ind, "pos = p2")
            self._finish(w, ind, spec)
        elif kind is Kind.MESSAGE and spec.repeated and self.records and uses_records(spec):
            emit_read_length(w, ind)
            w(ind, "if kr:")  # this owner keeps records (see source())
            self._record_element(w, ind + 1, spec)
            w(ind, "else:")
            self._lazy_element(w, ind + 1, spec)
        elif kind is Kind.MESSAGE and spec.repeated and self.thresholds is not None:
            emit_read_length(w, ind)
            self._lazy_element(w, ind, spec)
        elif kind is Kind.MESSAGE:
            emit_read_length(w, ind)
            call = self._child_call(spec)
            if spec.repeated:
                w(ind, f"v = {call}\npos = p2")
                self._append(w, ind, spec, "v")
            elif spec.oneof is not None:
                # A repeated occurrence merges, unless another member took the oneof since.
                m = f"m_{spec.name}"
                w(ind, f"v = {call}\npos = p2")
                merge = f"if g_{spec.oneof} == {spec.name!r}:\n    {m}.MergeFrom(v)"
                w(ind, f"{merge}\nelse:\n    {m} = v")
                self._store(w, ind + 1, spec, "v")
            else:
                m = f"m_{spec.name}"
                w(ind, f"if {m} is None:\n    v = {call}")
                w(ind, f"    pos = p2\n    {m} = v\n    o.{spec.name} = v\n    h |= {self._bit(spec)}")
                w(ind, f"else:\n    v = {call}\n    pos = p2\n    {m}.MergeFrom(v)")
        elif kind in FIXED_KINDS:
            size, unpack = FIXED_KINDS[kind].size, FIXED_KINDS[kind].unpack
            w(
                ind,
                f"""
if end - pos < {size}:
    raise _trunc("fixed{size * 8}", {size}, pos, end)
v = {unpack}(buf, pos)[0]""",
            )
            if kind is Kind.FLOAT:
                w(ind, "if v != v:\n    v = _nan32(buf, pos)")
            w(ind, f"pos += {size}")
            self._finish(w, ind, spec)
        else:
            emit_read_varint(w, ind, kind)
            if kind is Kind.ENUM:
                valid = f"_E_{spec.number}"
                self.constants[valid] = spec.enum_values
                w(ind, f"if v in {valid}:")
                self._finish(w, ind + 1, spec)
                w(ind, "else:")
                # protobuf keeps the record exactly as it arrived (tag bytes included).
                self._unknown(w, ind + 1, "mv[start:pos]")
            else:
                self._finish(w, ind, spec)

    def _record_tags(self) -> str:
        """The tag of each ``records`` field, as a literal frozenset."""
        tags = sorted(f.number << 3 | 2 for f in self.schema.fields if uses_records(f))
        return "frozenset({" + ", ".join(map(str, tags)) + "})"

    def _record_element(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        """One element of a ``records`` field: its record, or (when it cannot be one) the
        message the decoder would build (wirecodec.protobuf.records, schema_dsl.views).
        """
        r = f"r_{spec.name}"
        w(
            ind,
            f"""
v = _rr_{spec.name}(buf, pos, p2, depth - 1, rm)
if v is None:
    v = {self._child_call(spec)}
pos = p2
if {r} is None:
    {r} = _newlist(_RC_{spec.name})
    {r}._span = sp
    {r}._src = src
    {r}._build = _rb_{spec.name}
    {r}._table = rm.table
    {r}._pins = {{}}
    o.{spec.name} = {r}
    h |= {self._bit(spec)}
_lapp({r}, v)
if not len({r}) & {CHUNK - 1}:  # a chunk of records is full: sealed now (schema_dsl.views)
    {r}._seal_chunk(len({r}) - {CHUNK}, len({r}))""",
        )

    def _lazy_element(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        """One element of a repeated message field: decoded now if big, else validated and
        recorded by offset (see wirecodec.protobuf.lazy)."""
        assert self.thresholds is not None
        small, first, checked = self.thresholds.small, self.thresholds.eager_first, self.thresholds.checked
        r, s, a, q = (f"{x}_{spec.name}" for x in "rsaq")
        fn = f"_d_{spec.name}"
        if spec.rarely_read:  # every element waits, whatever its size (schema_dsl.fields.repeated)
            w(ind, "if False:")
        elif first > 0:
            w(ind, f"if n >= {small} or ({s} is None and ({r} is None or len({r}) < {first})):")
        else:  # every element may wait, the first one included
            w(ind, f"if n >= {small}:")
        w(ind + 1, f"v = {self._child_call(spec)}\nif {s} is None:")
        self._append(w, ind + 2, spec, "v")
        w(
            ind,
            f"""
    elif {q} is not None:
        {q}.append(v)
    else:
        {q} = {s}.add_decoded(v)
else:
    if depth >= {checked} or not _v_{spec.name}(buf, pos, p2, depth - 1):
        if src is not None:  # not canonical (or, validated with its owner, not known to be)
            _touch(src | pos << {SPAN_SHIFT} | p2)
    if {s} is None:
        {s} = _pending(o, {spec.name!r}, buf, mv, src, {fn}, {r})
        h |= {self._bit(spec)}  # present: its container holds the elements, waiting
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
        outer = ind  # the waiting-run branch indents what follows it
        emit_read_length(w, ind)
        if not self._runs_wait(spec):
            self._ensure_list(w, ind, spec)
        r = f"r_{spec.name}"
        if kind not in FIXED_KINDS:
            w(ind, f"if not _pcv(buf, pos, p2, {VARINT_RANGE.get(kind, 0)}):\n    nc = 1")
        w(ind, "if n == 0:\n    nc = 1  # the encoder writes no record for an empty run")
        if kind in FIXED_KINDS:
            fmt, size = FIXED_KINDS[kind].fmt, FIXED_KINDS[kind].size
            w(
                ind,
                f"""
if n % {size}:
    raise _DecodeError(
        f"packed run of {size}-byte values has length {{n}}, not a multiple of {size}", pos
    )""",
            )
            if self._runs_wait(spec):
                # Validated now (the length above); the values are read on first use.
                assert self.thresholds is not None
                z = f"z_{spec.name}"
                w(
                    ind,
                    f"""
if {z} is not None or ({r} is None and n >= {self.thresholds.run_small}):
    if {z} is None:
        {z} = _pending_run(o, {spec.name!r}, buf, {self._container(spec)}, {fmt!r})
        h |= {self._bit(spec)}
    {z}.add_run(pos, n // {size})
else:""",
                )
                ind += 1
                self._ensure_list(w, ind, spec)
            if kind is Kind.FLOAT:
                w(ind, f"_lext({r}, _f32run(buf, pos, n // 4))")
            else:
                w(ind, f"_lext({r}, _run({fmt!r}, buf, pos, n // {size}))")
        elif kind is Kind.ENUM:
            valid = f"_E_{spec.number}"
            self.constants[valid] = spec.enum_values
            w(
                ind,
                f"""
for raw in _rpv(buf, pos, p2, None):
    v = _to_i32(raw)
    if v in {valid}:
        _lapp({r}, v)
    else:""",
            )
            # A packed value has no record of its own: protobuf writes tag + raw varint.
            self._unknown(w, ind + 2, f"_enum_unknown({spec.number}, raw)")
        elif kind in _PACKED_ALWAYS:
            w(ind, f"_lext({r}, [{_PACKED_ALWAYS[kind]} for x in _rpv(buf, pos, p2, None)])")
        else:
            w(ind, f"_lext({r}, _rpv(buf, pos, p2, {_PACKED_CONVERTER[kind]}))")
        w(outer, "pos = p2")

    # -- the whole function ----------------------------------------------------------------

    def source(self) -> str:
        w = Writer()
        w(0, f"def {function_name('decode', self.schema)}(buf, mv, pos, end, depth, src):")
        w(
            1,
            """
if depth < 0:
    raise _LimitError("nesting deeper than max_depth", pos)
o = _new(_H)
sp = None if src is None else src | pos << SPAN_SHIFT | end
o._span = sp
o._x = None
h = 0""".replace("SPAN_SHIFT", str(SPAN_SHIFT)),
        )
        for name, value in self.schema.defaults:
            constant = f"_Z_{name}"
            self.constants[constant] = value
            w(1, f"o.{name} = {constant}")
        for group in self.schema.oneofs:
            w(1, f"g_{group} = None")
        w(1, "unk = None")
        if self.records and any(uses_records(f) for f in self.schema.fields):
            # this decode's memo of records, keyed by bytes (wirecodec.protobuf.fragments)
            # Records only where a field is long (wirecodec.protobuf.records.keeps_records):
            # a shorter one decodes as without them.
            w(1, f"kr = _keeps_records(buf, pos, end, {self._record_tags()})")
            w(1, "rm = _RecordMemo(mv) if kr else None")
        for spec in self.schema.fields:
            if spec.repeated:
                w(1, f"r_{spec.name} = None")
                if self._runs_wait(spec):
                    w(1, f"z_{spec.name} = None")
                if self.thresholds is not None and spec.kind is Kind.MESSAGE:
                    w(1, f"s_{spec.name} = None")  # a_ and q_ are set with it
            elif spec.kind is Kind.MESSAGE and spec.oneof is None:
                w(1, f"m_{spec.name} = None")
        # One handler per message adds this level's step to the error path as it unwinds.
        emit_record_loop(
            w,
            self.schema.fields,
            self._branch_single,
            self._branch_packed,
            lambda w, ind: self._unknown(w, ind, "mv[start:pos]"),
        )
        w(1, "except _DecodeError as exc:\n    _where(exc, o, tag)\n    raise")
        if self.records:  # records move out of the list's storage, or become messages (schema_dsl.views)
            for f in self.schema.fields:
                if uses_records(f):
                    w(1, f"if kr and r_{f.name} is not None:\n    r_{f.name}._seal()")
        # A message that is not canonical marks itself changed, so that every message
        # around it is encoded field by field too (wirecodec.protobuf.origin).
        w(1, "if sp is not None:\n    if nc:\n        _touch(sp)")
        # Long repeated message fields get a span of their own, to be re-emitted whole.
        spans = [
            f"if r_{f.name} is not None and len(r_{f.name}) > {_OWN_SPAN_FROM}"
            + (f" and s_{f.name} is None" if self.thresholds is not None else "")
            + f":\n    r_{f.name}._span = r_{f.name}._records = "
            + f"_fspan(r_{f.name}, {len(encode_varint(f.tag))})"
            for f in self.schema.fields
            if f.repeated and f.kind is Kind.MESSAGE
        ]
        if spans:
            w(2, "else:")
            for text in spans:
                w(3, text)
        w(1, "o._has = h\no.__class__ = _C\nreturn o")
        return w.text()
