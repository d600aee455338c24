"""Protobuf text format against protobuf itself: printing, parsing, and refusing.

* ``to_text`` equals ``text_format.MessageToString`` and ``to_str`` equals upb's ``str()``
  on every file of the onnx backend corpus, on PyTorch exports and on generated
  messages of every scalar kind at its extremes;
* ``from_text`` reads that text back to the identical bytes, and agrees with
  ``text_format.Parse`` on it and on hand-written variants;
* malformed text is a ParseError at the right line and column, where protobuf also refuses.
"""

from __future__ import annotations

import functools
import math
import pathlib
import struct
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

pytest.importorskip("google.protobuf", reason="protobuf is the reference (test extra)")
from google.protobuf import text_format

from schema_dsl import Kind, Message
from schema_dsl.onnx import AttributeProto, ModelProto, TensorProto
from schema_dsl.text_format import format_double, format_float, quote_bytes, quote_string, to_str
from tests.differential.test_all_kinds_vs_protobuf import PB
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, message_class, pb_class
from tests.support.strategies import messages
from tests.support.unchecked import unchecked
from tests.unit.protobuf.test_codec import All
from wirecodec import ParseError, decode, encode, from_text, to_text
from wirecodec.protobuf.text_lexer import unescape

_SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_FLT_MAX = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
_FLT_TRUE_MIN = struct.unpack("<f", b"\x01\x00\x00\x00")[0]


# -- the corpus, shared with test_json_format ---------------------------------------------


@functools.cache
def _corpus(cache_dir: pathlib.Path | None) -> list[CorpusItem]:
    return backend_corpus(cache_dir)


def load_corpus(config: pytest.Config) -> list[CorpusItem]:
    """The onnx backend corpus, generated once per test run (cached across runs when pytest can)."""
    cache_plugin = getattr(config, "cache", None)  # absent under -p no:cacheprovider
    return _corpus(pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None)


def decoded_pair(item: CorpusItem) -> tuple[Message, Any]:
    """Our decoded message and protobuf's parse of the same bytes."""
    cls = message_class(item.message)
    theirs = pb_class(cls)()
    theirs.ParseFromString(item.data)
    return decode(cls, item.data), theirs


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    return load_corpus(request.config)


# -- printing --------------------------------------------------------------------------------


def test_to_text_and_to_str_equal_protobuf_on_every_corpus_file(corpus: list[CorpusItem]) -> None:
    failures = []
    for item in corpus:
        ours, theirs = decoded_pair(item)
        if to_text(ours) != text_format.MessageToString(theirs):
            failures.append(f"to_text {item.name}")
        if to_str(ours) != str(theirs) or str(ours) != str(theirs):
            failures.append(f"str {item.name}")
    assert not failures, f"{len(failures)} differ, e.g. {failures[:5]}"
    assert sum(item.message == "ModelProto" for item in corpus) > 1500  # every model file was printed


def _check_text_round_trip(cls: type[Message], data: bytes, name: str) -> None:
    """Print, parse back to the same bytes, and parse as protobuf does."""
    text = to_text(decode(cls, data))
    assert encode(from_text(cls, text)) == data, name
    assert text_format.Parse(text, pb_class(cls)()).SerializeToString() == data, name


def test_from_text_reads_corpus_text_back_to_the_same_bytes(corpus: list[CorpusItem]) -> None:
    # A fixed stride keeps the time down; every message type of the corpus is in the sample.
    sample = corpus[::5]
    assert {item.message for item in sample} == {item.message for item in corpus}
    for item in sample:
        _check_text_round_trip(message_class(item.message), item.data, item.name)


def test_pytorch_exports(pytorch_exports: list[Export]) -> None:
    assert pytorch_exports
    for export in pytorch_exports:
        theirs = pb_class(ModelProto)()
        theirs.ParseFromString(export.data)
        ours = decode(ModelProto, export.data)
        assert to_text(ours) == text_format.MessageToString(theirs), export.name
        assert to_str(ours) == str(theirs) == str(ours), export.name
        _check_text_round_trip(ModelProto, export.data, export.name)


# Values at the edges of every scalar kind; the generic strategy covers the rest.
_FLOATS = st.sampled_from(
    [
        math.nan,
        math.inf,
        -math.inf,
        -0.0,
        0.0,
        _FLT_MAX,
        -_FLT_MAX,
        _FLT_TRUE_MIN,
        2.0**-126,
        0.1,
        1e10,
        16777216.0,
        1.0000001,
        3.4028233e38,
        123456.7,
        1e-7,
    ]
).map(lambda v: struct.unpack("<f", struct.pack("<f", v))[0]) | st.floats(width=32, allow_nan=False)
_DOUBLES = st.sampled_from(
    [
        math.nan,
        math.inf,
        -math.inf,
        -0.0,
        5e-324,
        1.7976931348623157e308,
        2.2250738585072014e-308,
        0.1,
        1 / 3,
        1e15,
        1e16,
        1e17,
        123456789012345678.0,
        0.30000000000000004,
        2.0**60,
        1e-5,
    ]
) | st.floats(allow_nan=False)
_STRINGS = st.sampled_from(
    [
        "",
        "plain",
        "é中文😀",
        "\"quoted\" 'single'",
        "back\\slash",
        "\x00\x01\x1f\x7f\x80\x9f",
        "tab\tnew\nret\r",
        "\u2028\ufeff",
        "?\\?",
        "#not a comment",
    ]
) | st.text(max_size=20)
_BYTES = st.sampled_from(
    [bytes(range(256)), bytes(range(255, -1, -1)), b"", b"\\x41\"'", "é".encode()]
) | st.binary(max_size=40)
_EXTREMES: dict[str, st.SearchStrategy[Any]] = {
    "i32": st.sampled_from([-(2**31), 2**31 - 1, -1, 0]),
    "i64": st.sampled_from([-(2**63), 2**63 - 1, -1]),
    "u32": st.sampled_from([0, 2**32 - 1]),
    "u64": st.sampled_from([0, 2**64 - 1, 2**63]),
    "s32": st.sampled_from([-(2**31), 2**31 - 1]),
    "s64": st.sampled_from([-(2**63), 2**63 - 1]),
    "f32": st.sampled_from([0, 2**32 - 1]),
    "f64": st.sampled_from([0, 2**64 - 1]),
    "sf32": st.sampled_from([-(2**31), 2**31 - 1]),
    "sf64": st.sampled_from([-(2**63), 2**63 - 1]),
    "fl": _FLOATS,
    "db": _DOUBLES,
    "st": _STRINGS,
    "by": _BYTES,
    "r_fl": st.lists(_FLOATS, max_size=6),
    "r_db": st.lists(_DOUBLES, max_size=6),
    "r_st": st.lists(_STRINGS, max_size=4),
    "r_by": st.lists(_BYTES, max_size=4),
}


@st.composite
def extreme_messages(draw: st.DrawFn) -> Message:
    """A random All with some fields forced to the edges of their kinds."""
    msg = draw(messages(All, depth=1))
    for name, values in _EXTREMES.items():
        if draw(st.booleans()):
            setattr(msg, name, draw(values))
    return msg


def _pb(msg: Message) -> Any:
    theirs = PB[All]()
    theirs.ParseFromString(encode(msg))
    return theirs


@_SETTINGS
@given(st.one_of(messages(All, depth=2), extreme_messages()))
@example(All(fl=-0.0, db=-0.0, by=bytes(range(256)), st="é\x00\"'\\", u64=2**64 - 1, i64=-(2**63)))
def test_generated_messages_print_and_parse_like_protobuf(msg: Message) -> None:
    theirs = _pb(msg)
    text = to_text(msg)
    assert text == text_format.MessageToString(theirs)
    assert to_str(msg) == str(theirs)
    data = encode(msg)
    assert encode(from_text(All, text)) == data
    assert text_format.Parse(text, PB[All]()).SerializeToString() == data


def test_numbers_are_spelled_like_each_printer() -> None:
    cases = [
        (1e10, "10000000000.0", "1e+10"),
        (-0.0, "-0.0", "-0"),
        (_FLT_MAX, "3.4028235e+38", "3.40282347e+38"),
        (math.nan, "nan", "nan"),
        (-math.inf, "-inf", "-inf"),
        (0.1, "0.1", "0.1"),
    ]
    for value, python, upb in cases:
        assert format_float(value) == python and format_float(value, style="upb") == upb, value
        theirs = pb_class(AttributeProto)(f=value)
        assert text_format.MessageToString(theirs) == f"f: {python}\n"
        assert str(theirs) == f"f: {upb}\n"
    assert format_double(1 / 3) == "0.3333333333333333"
    assert format_double(1 / 3, style="upb") == "0.33333333333333331"
    assert format_double(1e15) == "1000000000000000.0" and format_double(1e15, style="upb") == "1e+15"


def test_a_float_set_from_python_prints_as_the_float32_it_encodes_to() -> None:
    # protobuf rounds on assignment; we round when printing, so both show float32(0.1) as 0.1.
    assert to_text(AttributeProto(f=0.1)) == text_format.MessageToString(pb_class(AttributeProto)(f=0.1))
    assert to_text(AttributeProto(f=1e39)) == "f: inf\n"


def test_negative_nan_prints_as_nan_like_protobuf() -> None:
    negative_nan = struct.pack("<f", -math.nan)
    data = b"\x15" + negative_nan  # AttributeProto.f (field 2, fixed32)
    theirs = pb_class(AttributeProto)()
    theirs.ParseFromString(data)
    assert to_text(decode(AttributeProto, data)) == text_format.MessageToString(theirs) == "f: nan\n"


def test_enum_numbers_outside_the_enum_print_as_numbers() -> None:
    # protobuf refuses to hold them in a closed enum, and so does assignment here; one put
    # in by other means (a list mutated in place) prints as its number.
    with pytest.raises(ValueError):
        PB[All](color=7)
    with pytest.raises(ValueError):
        All(color=7)
    odd = unchecked(All, color=7)
    assert to_text(odd) == "color: 7\n" and to_str(odd) == "color: 7\n"
    assert to_text(All(color=2)) == "color: BLUE\n"


def test_unknown_fields_are_not_printed() -> None:
    data = b"\x08\x01" + b"\xf8\x3e\x05"  # dims: 1, then unknown field 999
    theirs = pb_class(TensorProto)()
    theirs.ParseFromString(data)
    assert to_text(decode(TensorProto, data)) == text_format.MessageToString(theirs) == "dims: 1\n"
    assert to_str(decode(TensorProto, data)) == str(theirs)


def test_invalid_utf8_in_a_string_field_prints_escaped_and_reads_back() -> None:
    data = b"\x42\x05\xffa\xc3\xa9\xc3"  # TensorProto.name: ff 'a' 'é' c3
    theirs = pb_class(TensorProto)()
    theirs.ParseFromString(data)
    ours = decode(TensorProto, data)
    assert to_text(ours) == text_format.MessageToString(theirs) == 'name: "\\377aé\\303"\n'
    assert to_str(ours) == str(theirs)
    # protobuf's parser refuses invalid UTF-8 in a string; we keep it, so nothing is lost.
    assert encode(from_text(TensorProto, to_text(ours))) == data


def test_quoting() -> None:
    assert quote_bytes(b"\x00\x7f\x80\xff\t\n\r\"'\\ a") == '"\\000\\177\\200\\377\\t\\n\\r\\"\\\'\\\\ a"'
    assert quote_string("é\x00\x7f\x80") == '"é\\000\\177\x80"'  # C1 controls are kept, as protobuf does
    assert quote_string("\ud800") == '"\\355\\240\\200"'  # a lone surrogate: its bytes, escaped


# -- parsing hand-written text ---------------------------------------------------------------

_HAND_WRITTEN = [
    "i32: 1 # a comment\n# a whole-line comment\ni64: -2",
    "child < i32: 1 > r_child [{i32: 1}, <i64: 2>] r_child {}",
    "child: { i32: 1 }",
    "r_i64: [1, 2, 0x10, 010, -0x7fffffffffffffff] r_i64: 3 r_i64p: []",
    "r_fl: [1.5, .5, 1e3, 2f, inf, -inf, nan, -Infinity, NaN, 1.5F, 1E-3f, 16777217]",
    'st: "a" \'b\' "c\\"d" by: "\\a\\b\\f\\n\\r\\t\\v\\\\\\\'\\""',
    "r_by: \"\\x41\\x4\\101\\1\\12\\0\" r_by: ''",
    'st: "\\u00e9\\U0001F600 é 😀"',
    "bo: t r_bo: [True, true, 1, f, False, false, 0]",
    "color: BLUE r_color: [0, 1, RED, 0x2]",
    "i32: 1; i64: 2, u32: 3\nu64: 18446744073709551615 s32: -2147483648 s64: -9223372036854775808",
    "f32: 4294967295 f64: 0xffffffffffffffff sf32: -0x80000000 sf64: 0 r_u32: [037777777777, 0XFF]",
    "db: 1.7976931348623157e308 fl: 3.4028235e38 r_db: [5e-324, -0.0, -0, 0, 1e400, -1e400, 10]",
    "fl: 1e39 r_fl: [-1e39, 1e-50, 3.40282357e38, 3.4028235677973366e38]",
    "one_m { a: 1 }",
    "one_i: 5,",
    "child { child { child { st: 'deep' } } }",
    "",
    "  \n\t# only a comment\n",
    "r_st: ['a', \"b\"] r_st: 'c' 'd' r_st: []",
    "i32: 00 i64: -0 db: -infinity",
]


@pytest.mark.parametrize("text", _HAND_WRITTEN)
def test_hand_written_text_parses_like_protobuf(text: str) -> None:
    assert encode(from_text(All, text)) == text_format.Parse(text, PB[All]()).SerializeToString()


def test_hand_written_values() -> None:
    msg = from_text(All, "st: 'a' \"b\" 'c' by: '\\101\\x42C\\n' r_i64: [010, 0x10, -0] fl: 0.1 db: .5")
    assert (msg.st, bytes(msg.by), msg.r_i64) == ("abc", b"ABC\n", [8, 16, 0])
    assert msg.fl == struct.unpack("<f", struct.pack("<f", 0.1))[0] and msg.db == 0.5


def test_what_the_specification_allows_and_python_protobuf_does_not() -> None:
    # "\?" is '?', a sign may stand apart from its number, \u surrogate pairs make one code point.
    msg = from_text(All, 'st: "\\?" i32: - 5 fl: -\n  # comment\n  inf r_st: "\\ud83d\\ude00"')
    assert (msg.st, msg.i32, msg.fl, msg.r_st) == ("?", -5, -math.inf, ["😀"])
    assert encode(from_text(All, 'st: "\\377"')) == b"\x72\x01\xff"  # invalid UTF-8 kept as written
    for text in ("i32: - 5", 'st: "\\ud83d\\ude00"', 'st: "\\377"'):
        assert _pb_text_parse(text) is None, text


@pytest.mark.parametrize(
    "text", ["i32: +5", "i32: 1_000", "i32: 0b101", "i32: 0o17", "fl: 1.5ff", "fl: inff", "i32:\u00a01"]
)
def test_python_protobufs_leniencies_are_refused(text: str) -> None:
    # docs/text-format.md lists these: Python's parser accepts them, the specification does not.
    assert _pb_text_parse(text) is not None
    with pytest.raises(ParseError):
        from_text(All, text)


def test_bytes_input_and_unicode() -> None:
    assert from_text(All, "st: 'é'".encode()).st == "é"
    with pytest.raises(ParseError) as info:
        from_text(All, b"i32: 1\nst: '\xff'")
    assert (info.value.line, info.value.column) == (2, 6)
    with pytest.raises(ParseError) as info:
        from_text(All, "st: '\ud800'")
    assert (info.value.line, info.value.column) == (1, 6)


def test_nesting_limit() -> None:
    def nested(levels: int) -> str:
        return "child { " * (levels - 1) + "}" * (levels - 1)

    msg, levels = from_text(All, nested(100)), 1  # the root and 99 children
    while msg.HasField("child"):
        msg, levels = msg.child, levels + 1
    assert levels == 100
    with pytest.raises(ParseError, match="nesting deeper than 100") as info:
        from_text(All, nested(101))
    assert (info.value.line, info.value.column) == (1, 7 + 8 * 99)  # the 100th child's '{'
    assert from_text(All, nested(101), max_depth=101).HasField("child")


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\\?", b"\a\b\f\n\r\t\v\\'\"?"),
        ("\\0\\7\\08\\101\\377\\1234", b"\x00\x07\x008A\xff\x534"),
        ("\\x0\\xf\\x41\\x414\\xFF", b"\x00\x0fAA4\xff"),
        ("\\u00e9\\U0001F600\\u20AC", "é😀€".encode()),
        ("\\uD83D\\uDE00", "😀".encode()),
        ("é\\\\x41", "é\\x41".encode()),
    ],
)
def test_every_escape(body: str, expected: bytes) -> None:
    assert unescape(body, 1, 1) == expected


@pytest.mark.parametrize(
    ("body", "column"),
    [
        ("ab\\q", 3),
        ("\\400", 1),
        ("\\x", 1),
        ("\\ud800", 1),
        ("\\ude00", 1),
        ("\\U00110000", 1),
        ("\\u12", 1),
        ("\\", 1),
    ],
)
def test_bad_escapes(body: str, column: int) -> None:
    with pytest.raises(ParseError) as info:
        unescape(body, 4, 1)
    assert (info.value.line, info.value.column) == (4, column)


# -- malformed text --------------------------------------------------------------------------

# (text, line, column, words the reason must contain); protobuf refuses every one.
_MALFORMED = [
    ("nope: 1", 1, 1, "no field named 'nope'"),
    ("i32 1", 1, 5, "expected ':'"),
    ("i32: 2147483648", 1, 6, "out of range for int32"),
    ("i32: -2147483649", 1, 6, "out of range for int32"),
    ("u32: 4294967296", 1, 6, "out of range for uint32"),
    ("u64: -1", 1, 6, "out of range for uint64"),
    ("u64: 18446744073709551616", 1, 6, "out of range for uint64"),
    ("i64: 9223372036854775808", 1, 6, "out of range for int64"),
    ("i32: 1.5", 1, 6, "expected an integer"),
    ("i32: abc", 1, 6, "expected an integer"),
    ("st: 5", 1, 5, "expected a string"),
    ("i32 { }", 1, 5, "takes a value, not a message"),
    ("i32: {}", 1, 6, "takes a value, not a message"),
    ("child: 5", 1, 8, "expected '{' or '<'"),
    ("child { i32: 1 >", 1, 16, "expected a field name"),
    ("child: < i32: 1 }", 1, 17, "expected a field name"),
    ("child {\n  i32: 1\n", 3, 1, "expected '}' to close the '{' of line 1, column 7"),
    ("i32: 1 i32: 2", 1, 8, "given only once"),
    ("child {} child {}", 1, 10, "given only once"),
    ("one_i: 1 one_s: 'x'", 1, 10, "another member of oneof 'choice'"),
    ("one_m { a: 1 } one_i: 2", 1, 16, "another member of oneof 'choice'"),
    ("st: 'abc", 1, 5, "not closed"),
    ('st: "a\nb"', 1, 5, "not closed"),
    ("st: 'a' 'b", 1, 9, "not closed"),
    ("color: PURPLE", 1, 8, "no value named 'PURPLE'"),
    ("color: 7", 1, 8, "no value 7"),
    ("color: -1", 1, 8, "no value -1"),
    ("bo: yes", 1, 5, "expected true or false"),
    ("bo: 2", 1, 5, "expected true or false"),
    ("fl: 0x10", 1, 5, "hex"),
    ("fl: 012", 1, 5, "octal"),
    ("fl: abc", 1, 5, "expected a number"),
    ("db: 1.2.3", 1, 5, "invalid number"),
    ("i32: 10bar", 1, 6, "invalid number '10bar'"),
    ("i32: 09", 1, 6, "invalid octal"),
    ("i32: 0x", 1, 6, "invalid number"),
    ("r_i64: [1, 2", 1, 13, "expected ',' or ']'"),
    ("r_i64: [1 2]", 1, 11, "expected ',' or ']'"),
    ("r_i64: [1,]", 1, 11, "expected an integer"),
    ("i32: [1]", 1, 6, "needs a repeated field"),
    ("[ext.foo]: 1", 1, 1, "no extensions"),
    ("1: 5", 1, 1, "expected a field name"),
    ("i32: 1;;", 1, 8, "expected a field name"),
    ("i32: 1 }", 1, 8, "expected a field name"),
    ("r_child: [{i32: 1}, 5]", 1, 21, "expected '{' or '<'"),
    ('st: "\\x"', 1, 6, "invalid escape"),
    ('st: "\\ud800"', 1, 6, "unpaired surrogate"),
    ("i32: 1\nchild {\n  i64: x\n}", 3, 8, "All.child.i64: expected an integer"),
    ("r_child { child { nope: 1 } }", 1, 19, "All.r_child[0].child: All has no field named 'nope'"),
]


@pytest.mark.parametrize(("text", "line", "column", "words"), _MALFORMED)
def test_malformed_text(text: str, line: int, column: int, words: str) -> None:
    with pytest.raises(ParseError) as info:
        from_text(All, text)
    assert (info.value.line, info.value.column) == (line, column), info.value
    assert words in info.value.reason
    with pytest.raises(text_format.ParseError):
        text_format.Parse(text, PB[All]())


def test_the_table_is_large_enough() -> None:
    assert len(_MALFORMED) >= 25


def test_errors_in_onnx_messages_name_the_path() -> None:
    with pytest.raises(ParseError) as info:
        from_text(ModelProto, "graph {\n  node { input: 'x' }\n  node { attribute { type: NOPE } }\n}")
    where, reason = info.value.reason.split(": ", 1)
    assert where == "ModelProto.graph.node[1].attribute[0].type"
    assert reason == "AttributeProto.AttributeType has no value named 'NOPE'"
    assert (info.value.line, info.value.column) == (3, 28)


def test_every_kind_is_exercised_by_the_test_schema() -> None:
    assert {spec.kind for spec in All.__schema__.fields} == set(Kind)


# -- mutated text: only ParseError escapes, and wherever both parsers accept, they agree -----


@st.composite
def mutated(draw: st.DrawFn, printed: st.SearchStrategy[str], alphabet: str) -> str:
    """Valid printed text with a few characters deleted, inserted or duplicated."""
    chars = list(draw(printed))
    for _ in range(draw(st.integers(1, 3))):
        if not chars:
            break
        at = draw(st.integers(0, len(chars) - 1))
        action = draw(st.sampled_from(["delete", "insert", "duplicate"]))
        if action == "delete":
            del chars[at]
        elif action == "insert":
            chars.insert(at, draw(st.sampled_from(alphabet)))
        else:
            chars[at:at] = chars[at : at + draw(st.integers(1, 6))]
    return "".join(chars)


def _pb_text_parse(text: str) -> bytes | None:
    try:
        return bytes(text_format.Parse(text, PB[All]()).SerializeToString())
    except Exception:  # protobuf's parser lets several exception types out; any is a refusal
        return None


@_SETTINGS
@given(mutated(messages(All, depth=2).map(to_text), "{}<>[]:;,#\"'\\-+.0x1eEfn \n"))
def test_mutated_text_parses_or_fails_cleanly(text: str) -> None:
    try:
        mine = encode(from_text(All, text))
    except ParseError as exc:
        assert exc.line >= 1 and exc.column >= 1
        return
    theirs = _pb_text_parse(text)
    if theirs is not None:
        assert mine == theirs
