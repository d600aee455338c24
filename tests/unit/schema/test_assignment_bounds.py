"""Every integer field kind at the edges of its range, assigned here and in upb: one verdict.

ONNX's schema has no uint32, sint, or fixed fields, so the ONNX tests never reach most
of these bounds; the small test schema (``tests.unit.protobuf.test_codec.All``) has one field of
every kind, and its upb twin (``tests.support.pb_twins``) says what protobuf accepts. Each value
is tried as a singular field, appended to a repeated one where the schema has it, and
in the keyword constructor.
"""

from __future__ import annotations

from typing import Any

import pytest

from schema_dsl import Kind
from tests.support.pb_twins import pb_twins
from tests.unit.protobuf.test_codec import All
from wirecodec import decode, encode

pytest.importorskip("google.protobuf", reason="protobuf (upb) is the reference (test extra)")

FIELDS = {
    Kind.INT32: "i32",
    Kind.INT64: "i64",
    Kind.UINT32: "u32",
    Kind.UINT64: "u64",
    Kind.SINT32: "s32",
    Kind.SINT64: "s64",
    Kind.FIXED32: "f32",
    Kind.FIXED64: "f64",
    Kind.SFIXED32: "sf32",
    Kind.SFIXED64: "sf64",
}
REPEATED = {Kind.INT64: "r_i64", Kind.UINT32: "r_u32"}
EDGES = sorted({s * (1 << b) + d for b in (31, 32, 63, 64) for s in (1, -1) for d in (-1, 0, 1)} | {0, 1, -1})


def _verdict(assign: Any, *args: Any, **kwargs: Any) -> str:
    try:
        assign(*args, **kwargs)
    except (ValueError, TypeError) as exc:  # protobuf: ValueError (range), TypeError (type)
        return type(exc).__name__ if isinstance(exc, TypeError) else "ValueError"
    return "ok"


@pytest.mark.parametrize("kind", list(FIELDS), ids=lambda k: k.name)
def test_integer_edges_are_accepted_and_refused_as_protobuf_does(kind: Kind) -> None:
    name = FIELDS[kind]
    theirs_cls = pb_twins()[All]
    checked = {"ok": 0, "ValueError": 0}
    for value in EDGES:
        mine, theirs = All(), theirs_cls()
        verdict = _verdict(setattr, theirs, name, value)
        assert _verdict(setattr, mine, name, value) == verdict, (kind, value)
        assert _verdict(All, **{name: value}) == verdict, (kind, value)
        checked[verdict] += 1
        if verdict == "ok":  # and the value survives the wire both ways
            assert encode(mine) == theirs.SerializeToString(), (kind, value)
            assert getattr(decode(All, theirs.SerializeToString()), name) == value
        repeated = REPEATED.get(kind)
        if repeated is not None:
            mine_list, theirs_list = getattr(All(), repeated), getattr(theirs_cls(), repeated)
            assert _verdict(mine_list.append, value) == _verdict(theirs_list.append, value)
    # Both sides of every bound were tried.
    assert checked["ok"] >= 3 and checked["ValueError"] >= 2, checked
