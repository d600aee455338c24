"""Generate a message's validator: the decoder's checks without building anything.

``validate_<Name>(buf, pos, end, depth) -> bool`` walks the same records as the decoder,
reads every tag, length, varint and fixed-width value with the same emitted code
(wirecodec.protobuf.gen.source, so the same inputs fail, at the same offsets, with the
same reasons) and recurses into sub-messages through ``_v_<field>``, but stores
nothing; it returns whether the bytes are canonical, as the decoder would have found
(wirecodec.protobuf.origin). Lazy decoding (wirecodec.protobuf.lazy) runs it on the
elements it does not decode yet, so that an invalid element is still rejected when its
owner is decoded, as protobuf would.
"""

from __future__ import annotations

from schema_dsl import FieldSpec, Kind, MessageSchema
from wirecodec.protobuf.gen.decode import function_name
from wirecodec.protobuf.gen.source import (
    FIXED_KINDS,
    VARINT_RANGE,
    Writer,
    emit_read_length,
    emit_read_varint,
    emit_record_loop,
)

__all__ = ["ValidatorSource"]


class ValidatorSource:
    """Builds the validator source for one message."""

    def __init__(self, schema: MessageSchema) -> None:
        self.schema = schema
        self.constants: dict[str, object] = {}

    def _enum_values(self, spec: FieldSpec) -> str:
        """The name of the constant holding enum field ``spec``'s values (as the decoder's)."""
        name = f"_E_{spec.number}"
        self.constants[name] = spec.enum_values
        return name

    def _single(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        kind = spec.kind
        if kind is Kind.MESSAGE:
            emit_read_length(w, ind)
            w(ind, f"if not _v_{spec.name}(buf, pos, p2, depth - 1):\n    nc = 1\npos = p2")
        elif kind in (Kind.STRING, Kind.BYTES):
            # Strings are not checked for UTF-8: the decoder keeps invalid ones losslessly.
            emit_read_length(w, ind)
            w(ind, "pos = p2")
        elif kind in FIXED_KINDS:
            size = FIXED_KINDS[kind].size
            w(
                ind,
                f"""
if end - pos < {size}:
    raise _trunc("fixed{size * 8}", {size}, pos, end)
pos += {size}""",
            )
        else:
            emit_read_varint(w, ind, kind, convert=False)
            if kind is Kind.ENUM:
                # A value the enum lacks goes to the unknown fields, written last: not canonical.
                w(ind, f"if _to_i32(v) not in {self._enum_values(spec)}:\n    nc = 1")
        if spec.oneof is not None:
            # Only the last member set survives decoding: an earlier one is not re-emitted.
            w(ind, f"if g_{spec.oneof}:\n    nc = 1\ng_{spec.oneof} = 1")

    def _packed(self, w: Writer, ind: int, spec: FieldSpec) -> None:
        emit_read_length(w, ind)
        if spec.kind in FIXED_KINDS:
            size = FIXED_KINDS[spec.kind].size
            w(
                ind,
                f"""
if n % {size}:
    raise _DecodeError(
        f"packed run of {size}-byte values has length {{n}}, not a multiple of {size}", pos
    )""",
            )
        else:  # reads (so checks) every varint of the run
            w(ind, f"if not _pcv(buf, pos, p2, {VARINT_RANGE.get(spec.kind, 0)}):\n    nc = 1")
            if spec.kind is Kind.ENUM:  # (values the enum lacks go to the unknown fields)
                valid = self._enum_values(spec)
                w(ind, f"elif not all(_to_i32(x) in {valid} for x in _rpv(buf, pos, p2, None)):\n    nc = 1")
        w(ind, "if n == 0:\n    nc = 1\npos = p2")

    def source(self) -> str:
        w = Writer()
        w(0, f"def {function_name('validate', self.schema)}(buf, pos, end, depth):")
        w(
            1,
            """
if depth < 0:
    raise _LimitError("nesting deeper than max_depth", pos)
begin = start = pos""",
        )
        for group in self.schema.oneofs:
            w(1, f"g_{group} = 0")
        # An unknown record is only skipped; the encoder would write it last.
        emit_record_loop(w, self.schema.fields, self._single, self._packed, lambda w, ind: w(ind, "nc = 1"))
        w(
            1,
            """
except _DecodeError as exc:
    _vwhere(exc, _C, buf, begin, start, tag)
    raise
return not nc""",
        )
        return w.text()
