"""Differential: every model and data file of onnx's backend test corpus, generated at test time.

For each file protobuf wrote: our decode → encode gives the identical bytes, and our
decoded tree equals protobuf's parse field by field (presence included), in every
decode mode (``tests/support/decode_modes.py``).
"""

from __future__ import annotations

import collections
import pathlib

import pytest

from tests.support.decode_modes import DecodeMode
from tests.support.reference import CorpusItem, assert_same, backend_corpus, message_class, pb_class


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return backend_corpus(cache)


def test_corpus_is_the_real_thing(corpus: list[CorpusItem]) -> None:
    kinds = collections.Counter(item.message for item in corpus)
    # onnx 1.17+ ships well over a thousand node tests, each with a model and data sets.
    assert kinds["ModelProto"] > 1500, kinds
    assert kinds["TensorProto"] > 3000, kinds
    assert kinds["SequenceProto"] > 0 and kinds["OptionalProto"] > 0, kinds


def test_every_file_round_trips_byte_identically(corpus: list[CorpusItem], decode_mode: DecodeMode) -> None:
    failures = []
    for item in corpus:
        cls = message_class(item.message)
        if decode_mode.encode(decode_mode.decode(cls, item.data)) != item.data:
            failures.append(item.name)
    assert not failures, f"{len(failures)} of {len(corpus)} differ, e.g. {failures[:5]}"


def test_every_file_matches_protobufs_parse(corpus: list[CorpusItem], decode_mode: DecodeMode) -> None:
    for item in corpus:
        cls = message_class(item.message)
        theirs = pb_class(cls)()
        theirs.ParseFromString(item.data)
        assert_same(decode_mode.decode(cls, item.data), theirs, item.name)


def test_bytes_fields_stay_views(corpus: list[CorpusItem], decode_mode: DecodeMode) -> None:
    checked = 0
    for item in corpus:
        if item.message != "TensorProto":
            continue
        data = bytearray(item.data)
        tensor = decode_mode.decode(message_class("TensorProto"), data)
        if tensor.HasField("raw_data"):
            assert isinstance(tensor.raw_data, memoryview)
            assert tensor.raw_data.obj is data
            checked += 1
    assert checked > 1000
