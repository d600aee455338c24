"""Differential: wirecodec.parser against onnx.parser, byte for byte.

``encode(parse_model(text)) == onnx.parser.parse_model(text).SerializeToString()`` for
the printed form of every backend-corpus model and PyTorch export (and their graphs,
functions and nodes), for a table of hand-written texts covering every construct, for
number literals at the edges of float32/float64, and for randomly mutated texts. A
table of malformed texts pins where each ParseError points.
"""

from __future__ import annotations

import pathlib
import random
import struct
from decimal import Decimal
from typing import Any

import pytest

import wirecodec
from schema_dsl import Message
from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus
from tests.support.textual_cases import MALFORMED, VALID, Malformed
from wirecodec import ParseError
from wirecodec import parser as ours
from wirecodec.printer import to_text

onnx = pytest.importorskip("onnx", reason="onnx.parser is the reference (test extra)")
from onnx import parser as reference  # noqa: E402
from onnx import printer as reference_printer  # noqa: E402

_KINDS: dict[str, type[Message]] = {
    "model": ModelProto,
    "graph": GraphProto,
    "function": FunctionProto,
    "node": NodeProto,
}


def _theirs(kind: str, text: str) -> bytes | None:
    """onnx's parse of ``text`` serialized, or None when onnx refuses it."""
    try:
        result: Any = getattr(reference, f"parse_{kind}")(text)
    except Exception:  # ParseError, or a C++ exception surfacing as another type
        return None
    data: bytes = result.SerializeToString()
    return data


def _ours(kind: str, text: str) -> bytes:
    message: Message = getattr(ours, f"parse_{kind}")(text)
    return wirecodec.encode(message)


@pytest.fixture(scope="module")
def corpus_models(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


def _round_trips(name: str, data: bytes) -> tuple[int, list[str]]:
    """Parse onnx's printed model, graph, functions and nodes; return (compared, refused)."""
    model = onnx.ModelProto.FromString(data)
    texts = [("model", reference_printer.to_text(model)), ("graph", reference_printer.to_text(model.graph))]
    texts += [("function", reference_printer.to_text(f)) for f in model.functions]
    texts += [("node", reference_printer.to_text(n)) for n in model.graph.node]
    compared, refused = 0, []
    for kind, text in texts:
        theirs = _theirs(kind, text)
        if theirs is None:
            refused.append(f"{name} ({kind})")
            with pytest.raises(ParseError):
                _ours(kind, text)
            continue
        assert _ours(kind, text) == theirs, f"{name}: the {kind}"
        compared += 1
    return compared, refused


def test_printed_backend_corpus_parses_as_onnx_does(corpus_models: list[CorpusItem]) -> None:
    compared, refused = 0, []
    for item in corpus_models:
        n, r = _round_trips(item.name, item.data)
        compared += n
        refused += r
    # onnx 1.23 reads back every printed corpus model; a refusal would also have to be ours.
    assert compared > 2 * len(corpus_models) and not refused, refused[:5]


def test_printed_pytorch_exports_parse_as_onnx_does(pytorch_exports: list[Export]) -> None:
    assert pytorch_exports
    for export in pytorch_exports:
        compared, refused = _round_trips(export.name, export.data)
        assert compared and not refused, refused
        # and our printer's text is the same text, so the whole loop closes without onnx
        model = wirecodec.decode(ModelProto, export.data)
        assert wirecodec.encode(ours.parse_model(to_text(model))) == _theirs("model", to_text(model))


# -- hand-written texts ------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "text"), [(k, t) for _, k, t in VALID], ids=[i for i, _, _ in VALID])
def test_hand_written_text_parses_as_onnx_does(kind: str, text: str) -> None:
    theirs = _theirs(kind, text)
    assert theirs is not None, "onnx refuses a text in the VALID table"
    assert _ours(kind, text) == theirs


def test_hand_written_texts_cover_the_grammar() -> None:
    everything = "\n".join(text for _, _, text in VALID)
    for construct in (
        ": tensors", ": graphs", "@", "= [", "sparse_tensor(", "seq(", "map(", "optional(", "opaque(",
        "metadata_props", "doc_string", "overload", '\\"', "e-", "e+", "E-", "-inf", "nan", "uint64", "=>",
        "#", '"location"', "[first]", "com.example.deep.Op:v1", "type_proto", "?",
    ):  # fmt: skip
        assert construct in everything, construct
    assert len(VALID) >= 20 and len(MALFORMED) >= 20


def test_parsed_values() -> None:
    """Spot checks that do not lean on onnx: what the hand-written texts mean."""
    node = ours.parse_node('[n] Y = com.ex.Op:o <f = 1.5, i = -3, s = "a\\"b", ints = [1, 2]> (X, "")')
    assert (node.name, node.domain, node.op_type, node.overload) == ("n", "com.ex", "Op", "o")
    assert list(node.input) == ["X", ""] and list(node.output) == ["Y"]
    f, i, s, ints = node.attribute
    assert (f.f, i.i, bytes(s.s), list(ints.ints)) == (1.5, -3, b'a"b', [1, 2])
    graph = ours.parse_graph("g (float[N, ?] X, int64[2] S = {3, -4}) => (float[N] Y) {}")
    dims = graph.input[0].type.tensor_type.shape.dim
    assert (
        dims[0].dim_param == "N" and not dims[1].HasField("dim_value") and not dims[1].HasField("dim_param")
    )
    assert graph.initializer[0].name == "S" and list(graph.initializer[0].int64_data) == [3, -4]
    # float literals are read at float32 precision, without double rounding
    (f,) = ours.parse_node("Y = Op <f = 1.00000005960464477539062500001> ()").attribute
    assert f.f == struct.unpack("<f", struct.pack("<I", 0x3F800001))[0]


# -- malformed texts ---------------------------------------------------------------------


@pytest.mark.parametrize("case", MALFORMED, ids=[m.id for m in MALFORMED])
def test_malformed_text_raises_parse_error_where_expected(case: Malformed) -> None:
    with pytest.raises(ParseError) as caught:
        getattr(ours, f"parse_{case.parse}")(case.text)
    error = caught.value
    assert (error.line, error.column) == (case.line, case.column), error
    assert f"(line {case.line}, column {case.column})" in str(error)
    assert isinstance(error, ValueError) and error.reason
    refused = _theirs(case.parse, case.text) is None
    assert refused == case.onnx_refuses


def test_parse_error_column_counts_characters() -> None:
    # The end of the text: 20 characters in (onnx, counting UTF-8 bytes, says column 23).
    with pytest.raises(ParseError) as caught:
        ours.parse_node('Y = Op <s = "\u00e9\u00e9"> (X')
    assert (caught.value.line, caught.value.column) == (1, 21)


def test_parse_rejects_non_text() -> None:
    with pytest.raises(TypeError):
        ours.parse_node(b"Y = Relu(X)")  # type: ignore[arg-type]


# -- numbers -----------------------------------------------------------------------------


def _float32_midpoint_literals(count: int, seed: int) -> list[str]:
    """Decimals at, just above and just below the midpoint of two neighbouring float32s."""
    rng = random.Random(seed)
    literals = []
    for _ in range(count):
        bits = rng.getrandbits(31) % 0x7F7FFFFF  # finite, positive
        low, high = (struct.unpack("<f", struct.pack("<I", b))[0] for b in (bits, bits + 1))
        mid = (Decimal(low) + Decimal(high)) / 2
        nudge = Decimal(rng.choice((-1, 0, 1))) * Decimal(10) ** (mid.adjusted() - rng.randint(17, 30))
        literals.append(format(mid + nudge, "e" if rng.random() < 0.5 else "f"))
    return literals


def test_float_literals_round_as_onnx_does() -> None:
    literals = _float32_midpoint_literals(300, seed=3)
    literals += [
        "3.4028235e38",
        "3.40282356779733661637539395458142568448e38",
        "-3.40282356779733661637539395458142568447e38",
        "1e-46",
        "7.006e-46",
        "-0",
    ]
    literals += ["1.7976931348623157e308", "1.7976931348623159e308", "2.4703282292062328e-324", "1e-400"]
    for literal in literals:
        for template in (
            "Y = Op <f = {}> ()",
            "Y = Op <t = double[1] {{{}}}> ()",
            "Y = Op <t = float[1] {{{}}}> ()",
        ):
            text = template.format(literal)
            theirs = _theirs("node", text)
            if theirs is None:
                with pytest.raises(ParseError):
                    _ours("node", text)
            else:
                assert _ours("node", text) == theirs, text


def test_integer_literals_as_onnx_reads_them() -> None:
    for text in (
        "Y = Op <t = uint64[3] {0, -1, 18446744073709551615}> ()",  # -1 wraps, as strtoull does
        "Y = Op <t = uint32[1] {4294967296}> ()",  # no uint32 range check in the reference
        "Y = Op <t = uint8[2] {300, -1}> ()",  # small types only check the int32 range
        "Y = Op <t = int64[2] {-9223372036854775808, 9223372036854775807}, i = 007> ()",
    ):
        assert _ours("node", text) == _theirs("node", text), text


# -- mutated texts -----------------------------------------------------------------------

_PIECES = [
    *'()[]{}<>,=:."@-?#\\ \n',
    *("float", "int64", "seq", "map", "x", "1", "2.5", "e", "inf", "=>", '""', "ints", "[]", "0", "-1"),
    "g () => () {}",
]


def _mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(text) + 1)
        roll = rng.random()
        if roll < 0.35:
            text = text[:i] + text[i + 1 :]
        elif roll < 0.7:
            text = text[:i] + rng.choice(_PIECES) + text[i:]
        else:
            j = rng.randrange(len(text) + 1)
            text = text[:i] + text[j : j + rng.randint(1, 8)] + text[i:]
    return text


def test_mutated_texts_parse_or_fail_as_onnx_does() -> None:
    """Where onnx accepts a mutated text we produce its bytes; where it refuses, so do we.

    Our documented strictness is the only allowed difference: text after a node, graph
    or function, and errors inside a function's attribute defaults, which onnx ignores.
    """
    rng = random.Random(7)
    agreed = 0
    for _ in range(1500):
        _, kind, text = rng.choice(VALID)
        text = _mutate(text, rng)
        theirs = _theirs(kind, text)
        try:
            mine: bytes | None = _ours(kind, text)
        except ParseError as error:
            mine = None
            if theirs is not None:
                documented = error.reason.startswith("unexpected text after") or any(
                    f.attribute_proto for f in _functions(kind, theirs)
                )
                assert documented, (text, error)
                continue
        assert mine == theirs, text
        agreed += 1
    assert agreed > 1400


def _functions(kind: str, data: bytes) -> list[Any]:
    if kind == "function":
        return [onnx.FunctionProto.FromString(data)]
    if kind == "model":
        return list(onnx.ModelProto.FromString(data).functions)
    return []
