"""Exact error offsets and paths: wirecodec against the plain interpreter in tests/support/oracle.py.

The oracle walks the schema at run time and states the error contract by itself (see
``tests.support.oracle.OracleError``); it shares no code with the generated decoders or
validators. For every malformed input below, wirecodec's DecodeError must carry exactly
the oracle's offset and path (and be a LimitError exactly when the oracle says the
nesting limit was hit), eagerly and lazily; for every input the oracle accepts,
wirecodec must accept too. The inputs: the families of tests/unit/protobuf/test_malformed.py, the
hand-built elements of tests/support/wire_gen.py with every truncation and byte corruption,
nesting around the depth limit, and the fuzz seeds (fuzz/make_seeds.py: the onnx backend
corpus) unchanged and mutated by fuzz/differential.py's mutator.
"""

from __future__ import annotations

import pathlib
import random
from collections.abc import Iterator

import pytest

from schema_dsl import Message
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
from tests.support.decode_modes import EVERY_ELEMENT
from tests.support.oracle import first_error
from tests.support.reference import TOP_LEVEL, all_message_classes, backend_corpus, message_class
from tests.support.wire_gen import (
    corruptions,
    frame,
    holder,
    in_holder,
    small_elements,
    tag,
    truncations,
    varint,
)
from wirecodec import DecodeError, LimitError, decode, encode
from wirecodec.protobuf.representation import Representation

Verdict = tuple[int, str, bool] | None  # (offset, path, is a limit error), None if accepted
Seeds = list[tuple[type[Message], bytes]]


def wirecodec_verdict(
    cls: type[Message],
    data: bytes,
    *,
    lazy: bool,
    max_depth: int = 100,
    representation: Representation | None = None,
) -> Verdict:
    try:
        decode(cls, data, lazy=lazy, max_depth=max_depth, representation=representation)
    except DecodeError as exc:
        return (exc.offset, exc.path, isinstance(exc, LimitError))
    return None


def oracle_verdict(cls: type[Message], data: bytes, max_depth: int = 100) -> Verdict:
    error = first_error(cls, data, max_depth)
    return None if error is None else (error.offset, error.path, error.limit)


def assert_exact(cls: type[Message], data: bytes, max_depth: int = 100) -> Verdict:
    """wirecodec (eager, lazy, every element deferred) reports the oracle's first error exactly."""
    expected = oracle_verdict(cls, data, max_depth)
    eager = wirecodec_verdict(cls, data, lazy=False, max_depth=max_depth)
    assert eager == expected, f"{cls.__qualname__} {data.hex()}: wirecodec {eager}, oracle {expected}"
    assert wirecodec_verdict(cls, data, lazy=True, max_depth=max_depth) == expected, "lazy"
    every = wirecodec_verdict(cls, data, lazy=True, max_depth=max_depth, representation=EVERY_ELEMENT)
    assert every == expected, "every element lazy"
    return expected


# -- the families of tests/unit/protobuf/test_malformed.py, every one exactly ----------------------

NODE = NodeProto(op_type="Relu", input=["x"], output=["y"], attribute=[AttributeProto(name="a", i=5, type=2)])
MODEL = ModelProto(ir_version=9, graph=GraphProto(name="g", node=[NODE]))
TENSOR = TensorProto(name="t", dims=[2, 3], data_type=1, float_data=[1.0, 2.0, 3.0], int64_data=[1, 300])

MALFORMED: list[tuple[type[Message], bytes]] = [
    (TensorProto, b"\x80"),  # end of input inside a tag
    (TensorProto, b"\x10\x80\x80"),  # ... inside a varint value
    (TensorProto, b"\x42\x80"),  # ... inside a length
    (AttributeProto, b"\x15\x00\x00\x80"),  # ... inside a fixed32
    (TensorProto, b"\x51" + b"\x00" * 7),  # ... inside a fixed64
    (TensorProto, b"\x3a\x03\x01\x80\x80"),  # ... inside a packed varint run
    (TensorProto, b"\x22\x08" + b"\x00" * 7),  # ... inside a packed fixed32 run
    (TensorProto, b"\x22\x03" + b"\x00" * 3),  # packed fixed32 run of 3 bytes
    (ModelProto, encode(MODEL)[:-2]),  # inside nested sub-messages
    (ModelProto, b"\x3a\x06\x0a\x04\x2a\x02\x18\x80"),  # deepest message's varint
    (TensorProto, b"\x80" * 10 + b"\x01"),  # over-long tag
    (TensorProto, b"\x10" + b"\x80" * 10 + b"\x01"),  # over-long value
    (TensorProto, b"\x42" + b"\x80" * 10 + b"\x01"),  # over-long length
    (TensorProto, b"\xfb\x01\x08\x01"),  # unterminated group
    (TensorProto, b"\xfb\x01\x08\x01\x84\x02"),  # mismatched end group
    (TensorProto, b"\xfc\x01"),  # end group without start
    (TensorProto, b"\x0c"),  # end group without start, on a declared field number
    (TensorProto, b"\x0e\x00"),  # wire type 6
    (TensorProto, b"\x0f\x00"),  # wire type 7
    (TensorProto, b"\x00\x00"),  # field number 0
    (TensorProto, b"\x80\x00\x00"),  # field number 0, two-byte tag
    (TensorProto, varint((1 << 29) << 3) + b"\x00"),  # field number 2^29
    (TensorProto, varint(1 << 32) + b"\x00"),  # tag of 33 bits
    (TensorProto, b"\x42\x05abc"),  # length past the end
    (TensorProto, b"\x4a" + varint((1 << 64) - 5)),  # length -5 as int64
    (ModelProto, b"\x3a\x03\x0a\x0a\x00" + b"\x00" * 10),  # length past the enclosing message
    (NodeProto, frame(5, b"") + frame(5, b"\x18\x80")),  # attribute[1]
    (NodeProto, frame(1, b"x") + frame(1, b"y") + b"\x0a\x05"),  # input[2]
    (TensorProto, b"\x52\x03" + b"\x00" * 3),  # packed double run of 3 bytes
    (TensorProto, b"\x2a\x01\x01" + b"\x2a\x02\x01"),  # packed int32 run past the end
    (TensorProto, tag(31, 3) + tag(32, 3) + tag(32, 4)),  # a group inside an unterminated group
    (TensorProto, tag(31, 3) + tag(32, 3) + tag(31, 4)),  # inner group closed by the outer's end
    (TensorProto, tag(31, 3) + b"\x0e\x00" + tag(31, 4)),  # wire type 6 inside a group
]


@pytest.mark.parametrize(("cls", "data"), MALFORMED, ids=lambda v: v.hex() if isinstance(v, bytes) else None)
def test_malformed_families_have_the_oracles_offset_and_path(cls: type[Message], data: bytes) -> None:
    assert assert_exact(cls, data) is not None, "each of these is malformed"


@pytest.mark.parametrize("message", [MODEL, TENSOR, NODE], ids=lambda m: type(m).__qualname__)
def test_every_truncation_has_the_oracles_offset_and_path(message: Message) -> None:
    data = encode(message)
    rejected = sum(assert_exact(type(message), data[:cut]) is not None for cut in range(len(data)))
    assert rejected > len(data) // 2


def test_the_oracle_names_offsets_by_itself() -> None:
    """A few answers worked out by hand, so the oracle is not only checked against wirecodec."""
    cases = [
        (TensorProto, b"\x10\x80\x80", 1, "TensorProto.data_type"),
        (AttributeProto, b"\x15\x00\x00\x80", 1, "AttributeProto.f"),
        (TensorProto, b"\x22\x03" + b"\x00" * 3, 2, "TensorProto.float_data"),
        (TensorProto, b"\xfb\x01\x08\x01", 4, "TensorProto.#31"),
        (TensorProto, b"\x0e\x00", 1, "TensorProto.dims"),
        (NodeProto, frame(5, b"") + frame(5, b"\x18\x80"), 5, "NodeProto.attribute[1].i"),
        (ModelProto, b"\x3a\x03\x0a\x0a\x00" + b"\x00" * 10, 3, "ModelProto.graph.node[0]"),
    ]
    for cls, data, offset, path in cases:
        error = first_error(cls, data)
        assert error is not None and (error.offset, error.path) == (offset, path), (data.hex(), error)


# -- hand-built elements of every message type, truncated and corrupted ------------------------------


def _element_inputs(cls: type[Message]) -> Iterator[tuple[type[Message], bytes]]:
    for payload in small_elements(cls):
        for cut in truncations(payload):
            yield cls, cut
            yield holder(cls), in_holder([b"", cut])
        for _, data in corruptions(payload):
            yield cls, data
        for _, data in corruptions(in_holder([b"", payload])):
            yield holder(cls), data


@pytest.mark.parametrize("cls", all_message_classes(), ids=lambda c: c.__qualname__)
def test_every_field_kind_truncated_and_corrupted(cls: type[Message]) -> None:
    outcomes = [assert_exact(owner, data) for owner, data in _element_inputs(cls)]
    assert any(o is None for o in outcomes) and any(o is not None for o in outcomes)


# -- nesting at the limit --------------------------------------------------------------------------------


def _nested_graphs(levels: int) -> bytes:
    """GraphProto -> node -> attribute -> g -> ... ``levels`` graphs deep, innermost cut short.

    The path runs through second elements (node[1].attribute[1]), which lazy decoding
    defers, so the depth limit is checked by the validators too.
    """
    data = b"\x22\x80"  # GraphProto.doc_string: a truncated length
    for _ in range(levels - 1):
        attributes = frame(5, b"") + frame(5, frame(6, data))
        data = frame(1, b"") + frame(1, attributes)
    return data


@pytest.mark.parametrize("max_depth", [0, 1, 2, 3, 5, 8, 9, 12])
def test_nesting_limit_offsets(max_depth: int) -> None:
    error = assert_exact(GraphProto, _nested_graphs(4), max_depth)
    assert error is not None and error[2] == (max_depth < 9)  # 4 graphs, 3 nodes, 3 attributes: 9 levels
    group = tag(40, 3) * 4 + tag(40, 4) * 4  # unknown groups nested four deep
    assert_exact(TensorProto, group, max_depth)
    assert_exact(TensorProto, frame(4, group), max_depth)  # inside segment


# -- the fuzz seeds, unchanged and mutated -----------------------------------------------------------------


@pytest.fixture(scope="module")
def seeds(request: pytest.FixtureRequest) -> Seeds:
    """What fuzz/make_seeds.py writes: corpus files of the top-level types up to 16 KiB."""
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    names = {cls.__qualname__ for cls in TOP_LEVEL}
    return [
        (message_class(item.message), item.data)
        for item in backend_corpus(cache)
        if item.message in names and len(item.data) <= 16_384
    ]


def test_fuzz_seeds_are_accepted_by_both(seeds: Seeds) -> None:
    for cls, data in random.Random(5).sample(seeds, 500):
        assert oracle_verdict(cls, data) is None
        assert wirecodec_verdict(cls, data, lazy=True) is None


def test_mutated_fuzz_seeds_have_the_oracles_offset_and_path(seeds: Seeds) -> None:
    from fuzz.differential import mutate

    rng = random.Random(2024)
    rejected = 0
    for _ in range(15_000):
        cls, data = rng.choice(seeds)
        rejected += assert_exact(cls, mutate(data, rng)) is not None
    assert 3000 < rejected < 14_000  # both verdicts, in numbers
