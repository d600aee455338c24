"""The compiled codec against the plain interpreter in tests/support/oracle.py, and both against upb.

The interpreter shares the schema and this project's notion of equality with the codec, so
each input is also parsed by protobuf (upb): same verdict, the same field values read
through protobuf's own accessors, and our re-encoding equal to its ``SerializeToString``.
"""

from __future__ import annotations

import pathlib
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schema_dsl.onnx as onnx_schema
from schema_dsl import Message
from tests.support.oracle import OracleError, interpret
from tests.support.pb_twins import pb_twins
from tests.support.reference import CorpusItem, assert_same, backend_corpus, message_class, pb_class
from tests.support.strategies import messages
from tests.unit.protobuf.test_codec import All
from wirecodec import DecodeError, decode, encode


def _upb_twin(cls: type[Message]) -> Any:
    """protobuf's class for ``cls``: onnx's generated one, or the test schema's run-time twin."""
    pytest.importorskip("google.protobuf", reason="protobuf (upb) is the reference not ours (test extra)")
    return pb_twins()[All] if cls is All else pb_class(cls)


def _agree(cls: type[Message], data: bytes) -> None:
    from google.protobuf.message import DecodeError as PbDecodeError

    theirs = _upb_twin(cls)()
    try:
        theirs.ParseFromString(data)
    except PbDecodeError:
        theirs = None
    try:
        expected = interpret(cls, data)
    except OracleError:
        with pytest.raises(DecodeError):
            decode(cls, data)
        assert theirs is None, "the oracle and we reject what upb accepts"
        return
    got = decode(cls, data)
    assert got == expected
    assert encode(got) == encode(expected)
    assert theirs is not None, "the oracle and we accept what upb rejects"
    assert_same(got, theirs)
    assert encode(got) == theirs.SerializeToString()


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_agree_on_small_schema(data: bytes) -> None:
    _agree(All, data)


@settings(max_examples=200, deadline=None)
@given(messages(All, depth=2))
def test_what_upb_writes_agrees_on_small_schema(message: Message) -> None:
    """Valid bytes written by upb (random values at every kind's extremes), not by us."""
    theirs = pb_twins()[All]()
    theirs.ParseFromString(encode(message))
    _agree(All, theirs.SerializeToString())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_agree_on_tensor_proto(data: bytes) -> None:
    _agree(onnx_schema.TensorProto, data)


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return backend_corpus(cache)


def test_corpus_and_its_mutations_agree(corpus: list[CorpusItem]) -> None:
    rng = random.Random(1234)
    sample = rng.sample(corpus, 300)
    for item in sample:
        cls = message_class(item.message)
        _agree(cls, item.data)
        for _ in range(10):
            data = bytearray(item.data)
            if not data:
                continue
            i = rng.randrange(len(data))
            choice = rng.randrange(3)
            if choice == 0:
                data[i] ^= 1 << rng.randrange(8)
            elif choice == 1:
                del data[i:]
            else:
                data.insert(i, rng.randrange(256))
            _agree(cls, bytes(data))
