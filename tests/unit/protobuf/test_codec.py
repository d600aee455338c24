"""The codec on a small schema that uses every scalar kind: protobuf semantics, errors, views."""

from __future__ import annotations

import enum
import gc
import math
import pathlib
import struct
import weakref

import pytest
from hypothesis import given
from hypothesis import strategies as st

import wirecodec
from schema_dsl import (
    BOOL,
    BYTES,
    DOUBLE,
    ENUM,
    FIXED32,
    FIXED64,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    SFIXED32,
    SFIXED64,
    SINT32,
    SINT64,
    STRING,
    UINT32,
    UINT64,
    Message,
    optional,
    repeated,
)
from tests.support.unchecked import unchecked
from wirecodec import DecodeError, EncodeError, LimitError, decode, encode


class Color(enum.IntEnum):
    RED = 0
    GREEN = 1
    BLUE = 2


class Guide1(Message):
    a: int = optional(1, INT32)


class Guide2(Message):
    b: str = optional(2, STRING)


class Guide3(Message):
    c: Guide1 = optional(3, MESSAGE)


class Guide4(Message):
    d: str = optional(1, STRING)
    e: list[int] = repeated(6, INT32, packed=True)


class All(Message):
    i32: int = optional(1, INT32)
    i64: int = optional(2, INT64)
    u32: int = optional(3, UINT32)
    u64: int = optional(4, UINT64)
    s32: int = optional(5, SINT32)
    s64: int = optional(6, SINT64)
    f32: int = optional(7, FIXED32)
    f64: int = optional(8, FIXED64)
    sf32: int = optional(9, SFIXED32)
    sf64: int = optional(10, SFIXED64)
    fl: float = optional(11, FLOAT)
    db: float = optional(12, DOUBLE)
    bo: bool = optional(13, BOOL)
    st: str = optional(14, STRING)
    by: bytes | memoryview = optional(15, BYTES, view=True)
    color: int = optional(16, ENUM, enum=Color)
    child: All = optional(17, MESSAGE)
    r_i64: list[int] = repeated(18, INT64)
    r_i64p: list[int] = repeated(19, INT64, packed=True)
    r_fl: list[float] = repeated(20, FLOAT, packed=True)
    r_st: list[str] = repeated(21, STRING)
    r_child: list[All] = repeated(22, MESSAGE)
    r_color: list[int] = repeated(23, ENUM, enum=Color)
    r_by: list[bytes | memoryview] = repeated(24, BYTES)
    one_i: int = optional(25, INT64, oneof="choice")
    one_s: str = optional(26, STRING, oneof="choice")
    one_m: Guide1 = optional(27, MESSAGE, oneof="choice")
    r_db: list[float] = repeated(28, DOUBLE, packed=True)
    r_u32: list[int] = repeated(29, UINT32)
    r_bo: list[bool] = repeated(30, BOOL, packed=True)


# -- golden bytes from the protobuf encoding guide ---------------------------------------


def test_guide_examples() -> None:
    assert encode(Guide1(a=150)) == bytes.fromhex("089601")
    assert encode(Guide2(b="testing")) == bytes.fromhex("120774657374696e67")
    assert encode(Guide3(c=Guide1(a=150))) == bytes.fromhex("1a03089601")
    assert encode(Guide4(e=[3, 270, 86942])) == bytes.fromhex("3206038e029ea705")
    assert decode(Guide4, bytes.fromhex("3206038e029ea705")).e == [3, 270, 86942]


def test_negative_int32_is_sign_extended_to_ten_bytes() -> None:
    assert encode(Guide1(a=-2)) == bytes.fromhex("08feffffffffffffffff01")
    assert decode(Guide1, bytes.fromhex("08feffffffffffffffff01")).a == -2


def test_int32_read_from_a_five_byte_varint_truncates() -> None:
    # 0xFFFFFFFF as a 5-byte varint reads as -1, and protobuf writes it back sign-extended.
    msg = decode(Guide1, bytes.fromhex("08ffffffff0f"))
    assert msg.a == -1
    assert encode(msg) == bytes.fromhex("08ffffffffffffffffff01")


def test_sint_zigzag() -> None:
    assert encode(All(s32=-2)) == bytes.fromhex("2803")
    # zigzag(-2**63) = 2**64 - 1: nine 7-bit groups of ones, then the last bit
    # (tests/unit/protobuf/test_golden_bytes.py).
    assert encode(All(s64=-(2**63))) == bytes.fromhex("30" + "ff" * 9 + "01")


# -- round trips at every kind's extremes -------------------------------------------------

_EXTREMES = {
    "i32": [-(2**31), -1, 0, 2**31 - 1],
    "i64": [-(2**63), -1, 0, 2**63 - 1],
    "u32": [0, 2**32 - 1],
    "u64": [0, 2**64 - 1],
    "s32": [-(2**31), 2**31 - 1],
    "s64": [-(2**63), 2**63 - 1],
    "f32": [0, 2**32 - 1],
    "f64": [0, 2**64 - 1],
    "sf32": [-(2**31), 2**31 - 1],
    "sf64": [-(2**63), 2**63 - 1],
    "fl": [0.0, -0.0, 3.5, math.inf, -math.inf],
    "db": [0.0, -0.0, 1e308, -math.inf, 5e-324],
    "bo": [True, False],
    "st": ["", "héllo", "\U0001f600"],
    "color": [0, 2],
}


@pytest.mark.parametrize(("name", "value"), [(k, v) for k, vs in _EXTREMES.items() for v in vs])
def test_extremes_round_trip(name: str, value: object) -> None:
    msg = All(**{name: value})
    again = decode(All, encode(msg))
    assert again.HasField(name)
    assert getattr(again, name) == value
    assert encode(again) == encode(msg)


@pytest.mark.parametrize(
    ("name", "value"),
    [("i32", 2**31), ("i64", 2**63), ("u32", -1), ("u64", 2**64), ("sf32", 2**31), ("f64", -1)],
)
def test_out_of_range_values_are_encode_errors(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=f"All.{name}"):  # refused on assignment, as protobuf does
        All(**{name: value})
    with pytest.raises(EncodeError) as info:  # and by the encoder if it got in anyway
        encode(unchecked(All, **{name: value}))
    assert info.value.path == f"All.{name}"


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("st", b"bytes", "All.st"),
        ("i64", 1.5, "All.i64"),
        ("i64", "7", "All.i64"),
        ("by", "text", "All.by"),
        ("child", Guide1(), "All.child"),
        ("r_st", "abc", "All.r_st"),
        ("r_i64p", [1, "x"], "All.r_i64p[1]"),
        ("st", "\ud800", "All.st"),
    ],
)
def test_wrong_types_are_encode_errors_with_paths(field: str, value: object, path: str) -> None:
    # Assignment takes UTF-8 bytes for a string (as protobuf does), and a lone surrogate
    # is a str: only the encoder can tell.
    if value not in ("\ud800", b"bytes"):
        with pytest.raises((TypeError, ValueError), match=f"All.{field}"):  # refused on assignment
            setattr(All(), field, value)
    with pytest.raises(EncodeError) as info:  # and by the encoder if it got in anyway
        encode(unchecked(All, **{field: value}))
    assert info.value.path == path


def test_nested_encode_error_path() -> None:
    msg = All(r_child=[All(), All(child=unchecked(All, r_i64=[1, 2, None]))])
    with pytest.raises(EncodeError) as info:
        encode(msg)
    assert info.value.path == "All.r_child[1].child.r_i64[2]"


def test_cycle_is_an_encode_error() -> None:
    msg = All(i32=1)
    msg.child = msg  # assignment copies: the child is a snapshot, not the message itself
    assert msg.child is not msg and msg.child == All(i32=1)
    object.__setattr__(msg, "child", msg)  # a real cycle can only be made past the checks
    with pytest.raises(EncodeError, match="cycle"):
        encode(msg)


@given(
    st.builds(
        All,
        i64=st.integers(-(2**63), 2**63 - 1),
        u64=st.integers(0, 2**64 - 1),
        s32=st.integers(-(2**31), 2**31 - 1),
        fl=st.floats(width=32, allow_nan=False),
        db=st.floats(allow_nan=False),
        st=st.text(),
        by=st.binary(),
        r_i64p=st.lists(st.integers(-(2**63), 2**63 - 1)),
        r_fl=st.lists(st.floats(width=32, allow_nan=False)),
        r_db=st.lists(st.floats(allow_nan=False)),
        r_st=st.lists(st.text(max_size=5)),
        r_u32=st.lists(st.integers(0, 2**32 - 1)),
        r_bo=st.lists(st.booleans()),
    )
)
def test_random_messages_round_trip(msg: All) -> None:
    data = encode(msg)
    again = decode(All, data)
    assert again == msg
    assert encode(again) == data


# -- protobuf's parsing semantics -------------------------------------------------------


def test_last_scalar_wins() -> None:
    assert decode(Guide1, bytes.fromhex("08010802")).a == 2


def test_repeated_submessage_occurrences_merge() -> None:
    first = encode(All(child=All(i32=1, r_i64=[1])))
    second = encode(All(child=All(i64=2, r_i64=[2])))
    merged = decode(All, first + second)
    assert merged.child.i32 == 1
    assert merged.child.i64 == 2
    assert merged.child.r_i64 == [1, 2]
    assert encode(merged) == encode(All(child=All(i32=1, i64=2, r_i64=[1, 2])))


def test_packed_and_unpacked_both_accepted() -> None:
    unpacked = b"".join(b"\x98\x01" + wirecodec.protobuf.wire.encode_varint(v) for v in (1, 2, 300))
    assert decode(All, unpacked).r_i64p == [1, 2, 300]
    packed = b"\x92\x01\x04\x01\x02\xac\x02"
    assert decode(All, packed).r_i64 == [1, 2, 300]
    # Each re-encodes the way the schema declares it.
    expected = b"\x90\x01\x01" + b"\x90\x01\x02" + b"\x90\x01\xac\x02"
    assert encode(decode(All, packed)) == expected


def test_wrong_wire_type_goes_to_unknown_fields() -> None:
    data = b"\x0d\x01\x02\x03\x04"  # field 1 (int32) as fixed32
    msg = decode(Guide1, data)
    assert not msg.HasField("a")
    assert [bytes(u) for u in msg.UnknownFields()] == [data]
    assert encode(msg) == data


def test_unknown_fields_of_every_wire_type_kept_after_known() -> None:
    unknown = (
        b"\xf8\x01\x05"  # field 31 varint
        b"\xf9\x01" + b"8bytes!!"  # field 31 fixed64
        b"\xfa\x01\x02hi"  # field 31 length-delimited
        b"\xfb\x01\x08\x01\xfc\x01"  # field 31 group holding a varint
        b"\xfd\x01abcd"  # field 31 fixed32
    )
    data = unknown + encode(Guide1(a=7))
    msg = decode(Guide1, data)
    assert msg.a == 7
    assert encode(msg) == encode(Guide1(a=7)) + unknown


def test_closed_enum_out_of_range_goes_to_unknown() -> None:
    msg = decode(All, b"\x80\x01\x05" + b"\x80\x01\x01")
    assert msg.color == Color.GREEN
    assert [bytes(u) for u in msg.UnknownFields()] == [b"\x80\x01\x05"]
    packed = decode(All, b"\xba\x01\x03\x01\x07\x02")  # field 23 packed: 1, 7, 2
    assert packed.r_color == [1, 2]
    assert [bytes(u) for u in packed.UnknownFields()] == [b"\xb8\x01\x07"]


def test_invalid_utf8_round_trips_exactly() -> None:
    data = b"\x72\x04\xff\xfe\xed\xa0"  # field 14 (string) holding invalid UTF-8
    msg = decode(All, data)
    assert isinstance(msg.st, str)
    assert encode(msg) == data


def test_signalling_nan_payload_survives() -> None:
    snan = struct.pack("<I", 0x7F800001)
    single = b"\x5d" + snan  # field 11 (float)
    assert encode(decode(All, single)) == single
    packed = b"\xa2\x01\x08" + struct.pack("<f", 1.0) + snan  # field 20 packed floats
    msg = decode(All, packed)
    assert math.isnan(msg.r_fl[1])
    assert encode(msg) == packed


def test_oneof_last_member_wins_on_the_wire_and_in_python() -> None:
    data = encode(All(one_i=5)) + encode(All(one_s="x"))
    msg = decode(All, data)
    assert msg.WhichOneof("choice") == "one_s"
    assert not msg.HasField("one_i")
    msg.one_m = Guide1(a=1)
    assert msg.WhichOneof("choice") == "one_m"
    assert encode(msg) == encode(All(one_m=Guide1(a=1)))


# -- presence and defaults ------------------------------------------------------------------


def test_unset_fields_read_as_defaults_without_becoming_present() -> None:
    msg = All()
    assert (msg.i64, msg.st, msg.bo, msg.fl, msg.r_i64) == (0, "", False, 0.0, [])
    assert msg.child.child.i32 == 0
    assert not msg.HasField("child")
    assert encode(msg) == b""


def test_writing_into_an_implicit_child_makes_it_present() -> None:
    msg = All()
    msg.child.child.st = "deep"
    assert msg.HasField("child")
    assert encode(msg) == encode(All(child=All(child=All(st="deep"))))


def test_explicit_empty_child_is_present() -> None:
    msg = All(child=All())
    assert msg.HasField("child")
    assert encode(msg) == b"\x8a\x01\x00"


def test_default_valued_optional_is_still_present() -> None:
    assert encode(All(i64=0)) == b"\x10\x00"
    assert decode(All, b"\x10\x00").HasField("i64")


def test_unknown_constructor_argument() -> None:
    with pytest.raises(TypeError, match="no field 'nope'"):
        All(nope=1)


# -- zero copy ---------------------------------------------------------------------------------


def test_bytes_fields_are_views_of_the_input() -> None:
    data = bytearray(encode(All(by=b"payload", r_by=[b"a", b"bc"])))
    msg = decode(All, data)
    assert isinstance(msg.by, memoryview)
    assert msg.by.obj is data
    assert bytes(msg.by) == b"payload"
    # A field not declared as a view reads as bytes, as protobuf's does.
    assert msg.r_by == [b"a", b"bc"] and all(type(x) is bytes for x in msg.r_by)


def test_views_keep_the_buffer_alive() -> None:
    class Owned(bytearray):  # bytes itself cannot be weakly referenced
        pass

    data = Owned(encode(All(by=b"x" * 100)))
    ref = weakref.ref(data)
    msg = decode(All, data)
    del data
    gc.collect()
    assert ref() is not None
    payload = msg.by
    del msg
    gc.collect()
    assert ref() is not None
    assert bytes(payload) == b"x" * 100
    del payload
    gc.collect()
    assert ref() is None


@pytest.mark.parametrize("wrap", [bytes, bytearray, memoryview, lambda b: memoryview(b"zz" + b)[2:]])
def test_any_buffer_decodes_the_same(wrap: object) -> None:
    msg = All(st="hé", by=b"\x00\x01", r_child=[All(i32=-1)])
    data = encode(msg)
    assert decode(All, wrap(data)) == msg  # type: ignore[operator]


# -- malformed input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "path", "reason"),
    [
        (b"\x08", "All.i32", "truncated varint"),
        (b"\x8a\x01\x05\x08\x01", "All.child", "runs past the end"),
        (b"\x8a\x01\x02\x08\x80", "All.child.i32", "truncated varint"),
        (b"\xb2\x01\x00\xb2\x01\x02\x18\xff", "All.r_child[1].u32", "truncated varint"),
        (b"\x3d\x01\x02", "All.f32", "truncated fixed32"),
        (b"\xa2\x01\x03\x00\x00\x00", "All.r_fl", "multiple of"),
        (b"\x07", "All", "field number 0"),
        (b"\x0e\x00", "All.i32", "invalid wire type 6"),
        (b"\x0c", "All.i32", "without a matching start"),
        (b"\x0b\x08\x01", "All.i32", "not terminated"),
        (b"\x0a\xff\xff\xff\xff\xff\xff\xff\xff\x3f", "All.i32", "runs past the end"),
    ],
)
def test_malformed_input_gives_decode_error_with_path(data: bytes, path: str, reason: str) -> None:
    with pytest.raises(DecodeError) as info:
        decode(All, data)
    assert info.value.path == path
    assert reason in str(info.value)
    assert 0 <= info.value.offset <= len(data)


def _nested(depth: int) -> bytes:
    data = b""
    for _ in range(depth):
        data = b"\x8a\x01" + wirecodec.protobuf.wire.encode_varint(len(data)) + data
    return data


def test_depth_limit_boundary() -> None:
    decode(All, _nested(100))  # the top message holding 100 nested ones
    with pytest.raises(LimitError):
        decode(All, _nested(101))
    decode(All, _nested(101), max_depth=101)
    with pytest.raises(LimitError):
        decode(All, _nested(3), max_depth=1)


def test_decode_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        decode(All, b"\x08")


def test_non_buffer_input_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="bytes-like"):
        decode(All, "text")


def test_generated_source_is_inspectable() -> None:
    text = wirecodec.source(All)
    assert text.startswith("def decode_All(")
    assert "tag == 8" in text
    assert "def encode_All(" in wirecodec.source(All, "encode")


def test_decode_restores_the_collectors_state() -> None:
    import gc

    assert gc.isenabled()
    decode(All, encode(All(r_child=[All()] * 3)))
    assert gc.isenabled()
    with pytest.raises(DecodeError):
        decode(All, b"\x08")
    assert gc.isenabled()
    gc.disable()
    try:
        decode(All, encode(All(i32=1)))
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_failed_decode_does_not_pin_an_mmap(tmp_path: pathlib.Path) -> None:
    import mmap

    path = tmp_path / "bad.bin"
    path.write_bytes(encode(All(by=b"x" * 64)) + b"\x08")
    with (
        path.open("rb") as file,
        mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
        pytest.raises(DecodeError),
    ):
        decode(All, mapped)
    # Leaving the with-block closed the map: no view of it survived in the traceback.
    assert mapped.closed


def test_deepcopy_and_pickle_detach_views() -> None:
    import copy
    import pickle

    data = bytearray(encode(All(by=b"payload", r_child=[All(st="x")], child=All(i32=3))))
    msg = decode(All, data)
    clone = copy.deepcopy(msg)
    assert clone == msg
    assert isinstance(clone.by, bytes)
    clone.r_child[0].st = "changed"
    assert msg.r_child[0].st == "x"
    again = pickle.loads(pickle.dumps(msg))
    assert again == msg
    assert encode(again) == bytes(data)


def test_copy_from_and_merge_from() -> None:
    a = All(i32=1, r_i64=[1], child=All(st="a"))
    b = All(i64=2, r_i64=[2], child=All(i32=5))
    a.MergeFrom(b)
    assert (a.i32, a.i64, a.r_i64, a.child.st, a.child.i32) == (1, 2, [1, 2], "a", 5)
    c = All()
    c.CopyFrom(a)
    assert c == a and c.child is not a.child
    with pytest.raises(TypeError):
        a.MergeFrom(Guide1())  # type: ignore[arg-type]


def test_clear_field_and_list_fields() -> None:
    msg = All(i32=0, st="s", r_i64=[])
    assert [spec.name for spec, _ in msg.ListFields()] == ["i32", "st"]
    msg.ClearField("st")
    assert not msg.HasField("st") and msg.st == ""
    with pytest.raises(ValueError):
        msg.HasField("r_i64")
    with pytest.raises(ValueError):
        msg.HasField("nope")


def test_repr_shows_set_fields() -> None:
    # The text format, as protobuf's repr() (issue 34).
    assert repr(All(i32=1, by=b"ab")) == str(All(i32=1, by=b"ab")) == 'i32: 1\nby: "ab"\n'
    assert repr(All()) == ""


# -- detached defaults: reads store nothing, the first write attaches --------------------------


def test_reading_unset_fields_makes_nothing_present() -> None:
    msg = All()
    _ = (msg.child.child.r_i64, msg.r_child, msg.one_m.a, msg.r_st)
    assert msg.ListFields() == [] and not msg.HasField("child") and msg.WhichOneof("choice") is None
    assert encode(msg) == b""
    # As in protobuf, every read hands out the same objects, so every reference sees every write.
    assert msg.r_child is msg.r_child
    assert msg.child is msg.child and msg.child.child is msg.child.child


def test_a_list_taken_before_the_write_is_the_field_afterwards() -> None:
    msg = All()
    items = msg.r_i64
    items.append(1)
    items.extend([2, 3])
    assert msg.r_i64 is items
    assert msg.r_i64 == [1, 2, 3]
    assert encode(msg) == encode(All(r_i64=[1, 2, 3]))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda xs: xs.append(7),
        lambda xs: xs.extend([7]),
        lambda xs: xs.insert(0, 7),
        lambda xs: xs.__setitem__(slice(None), [7]),
        lambda xs: xs.__iadd__([7]),
    ],
)
def test_every_list_mutation_attaches(mutate: object) -> None:
    msg = All()
    mutate(msg.child.r_i64)  # type: ignore[operator]
    assert msg.HasField("child")
    assert msg.child.r_i64 == [7]


def test_deep_write_attaches_the_whole_chain() -> None:
    msg = All()
    leaf = msg.r_child  # not attached: a list read on a present message
    deep = msg.child.child.child
    deep.st = "x"
    assert msg.child.child.child.st == "x"
    assert leaf == [] and not msg.r_child
    assert type(msg.child) is All  # attached children are ordinary instances


def test_writing_into_a_oneof_child_takes_the_oneof() -> None:
    msg = All(one_s="text")
    msg.one_m.a = 5
    assert msg.WhichOneof("choice") == "one_m"
    assert not msg.HasField("one_s")


def test_copies_of_a_detached_child_belong_to_nobody() -> None:
    import copy

    msg = All()
    clone = copy.deepcopy(msg.child)
    clone.st = "copy"
    assert not msg.HasField("child")
    assert type(clone) is All
    shallow = copy.copy(msg.child)
    shallow.i32 = 1
    assert not msg.HasField("child")


def test_a_detached_child_assigned_elsewhere_is_present_there() -> None:
    source, target = All(), All()
    target.child = source.child
    assert target.HasField("child")
    assert encode(target) == encode(All(child=All()))
    assert not source.HasField("child")
