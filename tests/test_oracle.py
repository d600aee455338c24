"""The compiled codec against the plain interpreter in tests/oracle.py."""

from __future__ import annotations

import pathlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schema_dsl.onnx as onnx_schema
from tests.oracle import OracleError, interpret
from tests.reference import CorpusItem, backend_corpus, message_class
from tests.test_codec import All
from wirecodec import DecodeError, decode, encode


def _agree(cls: type, data: bytes) -> None:
    try:
        expected = interpret(cls, data)
    except OracleError:
        with pytest.raises(DecodeError):
            decode(cls, data)
        return
    got = decode(cls, data)
    assert got == expected
    assert encode(got) == encode(expected)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=64))
def test_random_bytes_agree_on_small_schema(data: bytes) -> None:
    _agree(All, data)


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
