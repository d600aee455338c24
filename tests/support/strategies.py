"""Hypothesis strategies that build random messages of any declared class from its schema."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from schema_dsl import FieldSpec, Kind, Message

_INTS = {
    Kind.INT32: st.integers(-(2**31), 2**31 - 1),
    Kind.SINT32: st.integers(-(2**31), 2**31 - 1),
    Kind.SFIXED32: st.integers(-(2**31), 2**31 - 1),
    Kind.INT64: st.integers(-(2**63), 2**63 - 1),
    Kind.SINT64: st.integers(-(2**63), 2**63 - 1),
    Kind.SFIXED64: st.integers(-(2**63), 2**63 - 1),
    Kind.UINT32: st.integers(0, 2**32 - 1),
    Kind.FIXED32: st.integers(0, 2**32 - 1),
    Kind.UINT64: st.integers(0, 2**64 - 1),
    Kind.FIXED64: st.integers(0, 2**64 - 1),
}


def _scalar(spec: FieldSpec) -> st.SearchStrategy[Any]:
    kind = spec.kind
    if kind in _INTS:
        # Favour small values too: they take the one-byte fast paths.
        return st.one_of(st.integers(0, 130), _INTS[kind])
    if kind is Kind.FLOAT:
        return st.floats(width=32, allow_nan=False)
    if kind is Kind.DOUBLE:
        return st.floats(allow_nan=False)
    if kind is Kind.BOOL:
        return st.booleans()
    if kind is Kind.STRING:
        return st.text(max_size=12)
    if kind is Kind.BYTES:
        return st.binary(max_size=24)
    if kind is Kind.ENUM:
        assert spec.enum_type is not None
        return st.sampled_from(sorted(int(m) for m in spec.enum_type))
    raise AssertionError(kind)


def messages(cls: type[Message], depth: int = 3) -> st.SearchStrategy[Message]:
    """Random instances of ``cls``: any subset of fields, nested up to ``depth`` levels."""

    @st.composite
    def build(draw: st.DrawFn) -> Message:
        msg = cls()
        oneof_taken: set[str] = set()
        for spec in cls.__schema__.fields:
            if not draw(st.booleans()):
                continue
            if spec.oneof is not None:
                if spec.oneof in oneof_taken:
                    continue
                oneof_taken.add(spec.oneof)
            if spec.kind is Kind.MESSAGE:
                if depth <= 0:
                    continue
                child = messages(spec.message_type, depth - 1)
                value: Any = draw(st.lists(child, max_size=2)) if spec.repeated else draw(child)
            else:
                value = draw(st.lists(_scalar(spec), max_size=4)) if spec.repeated else draw(_scalar(spec))
            setattr(msg, spec.name, value)
        return msg

    return build()
