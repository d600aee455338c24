"""ProtoJSON against protobuf's json_format: writing, reading back, and refusing.

``to_json`` equals ``json_format.MessageToJson`` on the onnx backend corpus, PyTorch
exports and generated messages; ``from_json`` reads it back to the identical bytes and
agrees with ``json_format.Parse`` there and on hand-written variants; malformed JSON
is a ParseError at the right line and column, where protobuf also refuses.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

pytest.importorskip("google.protobuf", reason="protobuf is the reference (test extra)")
from google.protobuf import json_format

import schema_dsl.onnx as onnx_schema
from schema_dsl import Message
from schema_dsl.onnx import ModelProto, TensorProto
from tests.differential.test_all_kinds_vs_protobuf import PB
from tests.support.exports import Export
from tests.support.reference import CorpusItem, message_class, pb_class
from tests.support.strategies import messages
from tests.support.unchecked import unchecked
from tests.unit.protobuf.test_codec import All
from tests.unit.protobuf.test_text_format import decoded_pair, extreme_messages, load_corpus, mutated
from wirecodec import EncodeError, ParseError, decode, encode, from_json, to_json
from wirecodec.protobuf.json_format import json_name

_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    return load_corpus(request.config)


def _pb_parse(cls: type[Message], text: str) -> bytes | None:
    """protobuf's reading of ``text``, re-serialized; None if it refuses."""
    try:
        return bytes(
            json_format.Parse(text, pb_class(cls)() if cls is not All else PB[All]()).SerializeToString()
        )
    except json_format.ParseError:
        return None


def test_json_names_are_protocs() -> None:
    classes = [
        c
        for c in vars(onnx_schema).values()
        if isinstance(c, type) and issubclass(c, Message) and c is not Message
    ]
    nested = [
        c for cls in classes for c in vars(cls).values() if isinstance(c, type) and issubclass(c, Message)
    ]
    checked = 0
    for cls in dict.fromkeys([*classes, *nested]):
        if cls.__schema__.full_name.startswith("onnx."):
            descriptor = pb_class(cls).DESCRIPTOR
            for spec in cls.__schema__.fields:
                assert json_name(spec) == descriptor.fields_by_name[spec.name].json_name, spec.full_name
                checked += 1
    for spec in All.__schema__.fields:
        assert json_name(spec) == PB[All].DESCRIPTOR.fields_by_name[spec.name].json_name
    assert checked > 150


def test_to_json_equals_protobuf_on_every_corpus_file(corpus: list[CorpusItem]) -> None:
    failures = []
    for item in corpus:
        ours, theirs = decoded_pair(item)
        if to_json(ours) != json_format.MessageToJson(theirs):
            failures.append(item.name)
    assert not failures, f"{len(failures)} of {len(corpus)} differ, e.g. {failures[:5]}"


def _check_json_round_trip(cls: type[Message], data: bytes, name: str) -> None:
    text = to_json(decode(cls, data))
    assert encode(from_json(cls, text)) == data, name
    assert _pb_parse(cls, text) == data, name


def test_from_json_reads_corpus_json_back_to_the_same_bytes(corpus: list[CorpusItem]) -> None:
    sample = corpus[2::5]  # a fixed stride, offset from the text test's sample
    assert {item.message for item in sample} == {item.message for item in corpus}
    for item in sample:
        _check_json_round_trip(message_class(item.message), item.data, item.name)


def test_pytorch_exports(pytorch_exports: list[Export]) -> None:
    assert pytorch_exports
    for export in pytorch_exports:
        theirs = pb_class(ModelProto)()
        theirs.ParseFromString(export.data)
        assert to_json(decode(ModelProto, export.data)) == json_format.MessageToJson(theirs), export.name
        _check_json_round_trip(ModelProto, export.data, export.name)


@_SETTINGS
@given(st.one_of(messages(All, depth=2), extreme_messages()))
@example(All(fl=_FLT_MAX, db=-0.0, by=bytes(range(256)), u64=2**64 - 1, i64=-(2**63), st="é\x00\u2028😀"))
def test_generated_messages_write_and_read_like_protobuf(msg: Message) -> None:
    theirs = PB[All]()
    data = encode(msg)
    theirs.ParseFromString(data)
    text = to_json(msg)
    assert text == json_format.MessageToJson(theirs)
    assert encode(from_json(All, text)) == data
    pb_data = _pb_parse(All, text)
    if pb_data is None:
        # protobuf's Parse refuses float32's extremes as printed by its own MessageToJson
        # (3.4028235e+38 is above FLT_MAX as a double); every other refusal would be a bug.
        assert _mentions_float_max(msg), text
    else:
        assert pb_data == data


def _mentions_float_max(msg: Message) -> bool:
    for spec, value in msg.ListFields():
        values = value if spec.repeated else [value]
        if spec.name in ("fl", "r_fl") and any(abs(v) == _FLT_MAX for v in values):
            return True
        if spec.name in ("child", "r_child", "one_m") and any(_mentions_float_max(v) for v in values):
            return True
    return False


def test_protobuf_refuses_its_own_float_max_and_we_do_not() -> None:
    text = to_json(All(fl=_FLT_MAX))
    assert text == json_format.MessageToJson(PB[All](fl=_FLT_MAX))
    assert _pb_parse(All, text) is None
    assert from_json(All, text).fl == _FLT_MAX


def test_indent_like_json_dumps() -> None:
    msg = All(i32=1, r_st=["a"], child=All())
    assert to_json(msg, indent=None) == json_format.MessageToJson(
        PB[All](i32=1, r_st=["a"], child={}), indent=None
    )
    assert json.loads(to_json(msg, indent=4)) == {"i32": 1, "rSt": ["a"], "child": {}}


def test_enum_numbers_outside_the_enum_are_refused_like_protobuf() -> None:
    with pytest.raises(EncodeError, match=r"7 is not a value of enum Color") as info:
        to_json(All(child=unchecked(All, r_color=[1, 7])))
    assert info.value.path == "All.child.r_color[1]"


_HAND_WRITTEN = [
    '{"i32": 1, "i64": "-2", "u64": "18446744073709551615", "s64": -9223372036854775808}',
    '{"f64": 18446744073709551615, "sf64": "9223372036854775807"}',
    '{"i32": "5", "u32": 1e3, "sf32": "1e2", "i64": 1.0, "sf64": "-0", "s32": -2.5e1}',
    '{"fl": "NaN", "db": "-Infinity", "rFl": [1, 1.5, "2.5", "Infinity", -0.0, 1e-50]}',
    '{"rDb": [5e-324, 1.7976931348623157e308, "1e308", 0]}',
    '{"by": "AP8=", "rBy": ["AP8", "-_8", "+/8=", "", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8g"]}',
    '{"color": "BLUE", "rColor": [0, "GREEN", 2]}',
    '{"child": {"child": {}}, "rChild": [{}, {"i32": 1}], "oneM": {"a": 2}}',
    '{"r_i64": [1, "2"], "r_i64p": [], "one_s": "x", "st": "\\u00e9\\ud83d\\ude00\\n\\"\\\\\\/\\b\\f\\r\\t"}',
    '{"i32": null, "child": null, "rI64": null, "oneI": null, "oneS": "y"}',
    '{"bo": true, "rBo": [false, true]}',
    " \n\t{\r\n}  ",
    '{"fl": 3.4028234663852886e38, "db": 1E+2}',
    '{"fl": 1e-46, "rFl": [16777217, 0.1]}',
    '{"st": "é😀 raw non-ASCII", "rSt": ["", "\\u0000"]}',
]


@pytest.mark.parametrize("text", _HAND_WRITTEN)
def test_hand_written_json_parses_like_protobuf(text: str) -> None:
    assert encode(from_json(All, text)) == _pb_parse(All, text)


def test_both_field_names_and_bytes_input() -> None:
    a = from_json(TensorProto, b'{"raw_data": "AQI=", "dataType": 1}')
    # data_type is an int32 in onnx.proto, so a numeric string is accepted too.
    b = from_json(TensorProto, '{"rawData": "AQI", "data_type": "1"}')
    assert a == b and bytes(a.raw_data) == b"\x01\x02" and a.data_type == 1


# (text, line, column, words the reason must contain); protobuf refuses every one.
_MALFORMED = [
    ('{"nope": 1}', 1, 2, "no field named 'nope'"),
    ('{"i32": 1.5}', 1, 9, "expected an integer"),
    ('{"i32": 2147483648}', 1, 9, "out of range for int32"),
    ('{"i32": "abc"}', 1, 9, "expected an integer"),
    ('{"i32": true}', 1, 9, "expected an integer"),
    ('{"u32": -1}', 1, 9, "out of range for uint32"),
    ('{"i64": "9223372036854775808"}', 1, 9, "out of range for int64"),
    ('{"i32": "1 "}', 1, 9, "expected an integer"),
    ('{"st": 5}', 1, 8, "expected a string"),
    ('{"st": "\\ud800"}', 1, 8, "unpaired surrogate"),
    ('{"bo": "true"}', 1, 8, "expected true or false"),
    ('{"by": "A"}', 1, 8, "expected base64"),
    ('{"color": "PURPLE"}', 1, 11, "no value named 'PURPLE'"),
    ('{"color": 7}', 1, 11, "no value 7"),
    ('{"child": 5}', 1, 11, "expected an object"),
    ('{"rI64": 5}', 1, 10, "needs an array"),
    ('{"rI64": [1, null]}', 1, 14, "null is not allowed"),
    ('{"oneI": 1, "oneS": "x"}', 1, 13, "another member of oneof 'choice'"),
    ('{"i32": 1, "i32": 2}', 1, 12, "duplicate key 'i32'"),
    ('{"i32": 1,}', 1, 11, "expected a string key"),
    ('{"i32": NaN}', 1, 9, "expected a JSON value"),
    ('{"fl": "nan"}', 1, 8, "expected a number"),
    ('{"fl": "1.5f"}', 1, 8, "expected a number"),
    ('{"fl": 1e39}', 1, 8, "out of range for a float"),
    ('{"db": 1e400}', 1, 8, "out of range for a double"),
    ('{"i32": 01}', 1, 9, "invalid number"),
    ("{'i32': 1}", 1, 2, "expected a string key"),
    ('{"i32": 1} x', 1, 12, "unexpected text"),
    ('{"st": "a\tb"}', 1, 10, "control character"),
    ('{"st": "\\q"}', 1, 9, "invalid escape"),
    ('{"i32" 1}', 1, 8, "expected ':'"),
    ("{", 1, 2, "expected a string key"),
    ('{"i32": 1', 1, 10, "expected ',' or '}'"),
    ('{"i32": 1\n, "child": {"i64": "x"}}', 2, 20, "All.child.i64: expected an integer"),
    ('{\n  "rChild": [\n    {"i32": "x"}\n  ]\n}', 3, 13, "All.r_child[0].i32: expected an integer"),
    ('{"child": {"nope": 1}}', 1, 12, "All.child: All has no field named 'nope'"),
]


@pytest.mark.parametrize(("text", "line", "column", "words"), _MALFORMED)
def test_malformed_json(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(ParseError) as info:
        from_json(All, text)
    assert (info.value.line, info.value.column) == (line, column), info.value
    assert words in info.value.reason
    assert _pb_parse(All, text) is None


def test_what_protobuf_accepts_and_we_do_not() -> None:
    # json_format's leniencies beyond the ProtoJSON mapping, which we refuse: a JSON array
    # as a message, '+' signs and '_' in numeric strings, characters outside base64.
    cases = [("[]", 1, 1), ('{"i32": "+1"}', 1, 9), ('{"i32": "1_0"}', 1, 9), ('{"by": "AP8*"}', 1, 8)]
    for text, line, column in cases:
        assert _pb_parse(All, text) is not None
        with pytest.raises(ParseError) as info:
            from_json(All, text)
        assert (info.value.line, info.value.column) == (line, column)


def test_nesting_limit() -> None:
    def nested(levels: int) -> str:
        return '{"child": ' * (levels - 1) + "{}" + "}" * (levels - 1)

    msg: Any = from_json(All, nested(100))
    levels = 1
    while msg.HasField("child"):
        msg, levels = msg.child, levels + 1
    assert levels == 100
    with pytest.raises(ParseError, match="deeper than 100"):
        from_json(All, nested(101))
    assert _pb_parse(All, nested(101)) is None


def test_special_floats() -> None:
    text = to_json(All(fl=math.inf, db=math.nan, r_db=[-math.inf, -0.0]))
    assert json.loads(text) == {"fl": "Infinity", "db": "NaN", "rDb": ["-Infinity", -0.0]}
    back = from_json(All, text)
    assert back.fl == math.inf and math.isnan(back.db) and back.r_db[0] == -math.inf
    assert math.copysign(1.0, back.r_db[1]) == -1.0


@_SETTINGS
@given(mutated(messages(All, depth=2).map(lambda m: to_json(m, indent=None)), '{}[]:,"\\-+.0e1 nul'))
def test_mutated_json_parses_or_fails_cleanly(text: str) -> None:
    try:
        mine = encode(from_json(All, text))
    except ParseError as exc:
        assert exc.line >= 1 and exc.column >= 1
        return
    try:
        theirs = _pb_parse(All, text)
    except Exception:  # protobuf lets other exception types out on odd input; a refusal too
        return
    if theirs is not None:
        assert mine == theirs
