"""Every rewrite kind and every invalid kind on the whole onnx backend corpus, against upb.

The metamorphic oracle of wirecodec.fuzz: a rewrite of a model must parse, under
protobuf (upb) and under wirecodec, to a message equal to the original's (compared by
canonical re-serialization; unknown fields dropped first when the kind inserts them);
an invalid encoding must be refused by both (``google.protobuf.message.DecodeError``
and ``wirecodec.DecodeError``).

Every kind runs on every model of the corpus; the data files (tensors, sequences, maps,
optionals) each get one kind in turn, so every kind meets every message class.
"""

from __future__ import annotations

import collections
import pathlib
from typing import Any

import pytest

from tests.support.reference import CorpusItem, backend_corpus, message_class, pb_class, require_onnx
from wirecodec.errors import DecodeError
from wirecodec.fuzz import INVALID, REWRITES, invalid, rewrite
from wirecodec.protobuf.codec import decode, encode

REWRITE_NAMES = list(REWRITES)
INVALID_NAMES = list(INVALID)


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    require_onnx()
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return backend_corpus(cache)


def _jobs(corpus: list[CorpusItem], names: list[str]) -> list[tuple[int, CorpusItem, str]]:
    """(seed, item, kind): every kind on every model, one kind in turn on each data file."""
    jobs: list[tuple[int, CorpusItem, str]] = []
    for i, item in enumerate(corpus):
        if item.message == "ModelProto":
            jobs.extend((i * 100 + k, item, name) for k, name in enumerate(names))
        else:
            jobs.append((i, item, names[i % len(names)]))
    return jobs


def _canonical_after_parse(pb: Any, data: bytes, drop_unknown: bool) -> bytes:
    message = pb.FromString(data)
    if drop_unknown:
        message.DiscardUnknownFields()
    result: bytes = message.SerializeToString()
    return result


def test_every_rewrite_kind_reads_back_equal_under_upb_and_wirecodec(corpus: list[CorpusItem]) -> None:
    changed: collections.Counter[str] = collections.Counter()
    classes: dict[str, set[str]] = collections.defaultdict(set)
    failures: list[str] = []
    for seed, item, name in _jobs(corpus, REWRITE_NAMES):
        cls = message_class(item.message)
        pb = pb_class(cls)
        original = pb.FromString(item.data).SerializeToString()
        out = rewrite(item.data, seed=seed, message=cls, kinds=[name])
        if out != item.data:
            changed[name] += 1
            classes[name].add(item.message)
        drop = name == "unknown_fields"
        if _canonical_after_parse(pb, out, drop) != original:
            failures.append(f"upb: {item.name} {name} seed={seed}")
        ours = decode(cls, out)
        if drop:
            ours.DiscardUnknownFields()
        if encode(ours) != original:
            failures.append(f"wirecodec: {item.name} {name} seed={seed}")
    assert not failures, failures[:20]
    # Each kind found something to rewrite in the corpus (else this test proved nothing of it).
    assert set(changed) == set(REWRITE_NAMES), changed
    assert all(changed[name] >= 20 for name in REWRITE_NAMES), changed


def test_unknown_fields_are_kept_alike_by_upb_and_wirecodec(corpus: list[CorpusItem]) -> None:
    """With the unknown fields kept, both parsers re-serialize a rewrite to the same bytes."""
    models = [item for item in corpus if item.message == "ModelProto"]
    failures = []
    for i, item in enumerate(models[::4]):
        out = rewrite(item.data, seed=i, kinds=["unknown_fields", "split_message", "reorder"])
        theirs = pb_class(message_class("ModelProto")).FromString(out).SerializeToString()
        if encode(decode(message_class("ModelProto"), out)) != theirs:
            failures.append(item.name)
    assert not failures, failures[:20]


def test_mixed_rewrites_read_back_equal(corpus: list[CorpusItem]) -> None:
    """kinds=None: a different mix of kinds for each seed, on every model."""
    failures = []
    for i, item in enumerate(corpus):
        if item.message != "ModelProto":
            continue
        cls = message_class(item.message)
        pb = pb_class(cls)
        out = rewrite(item.data, seed=i)
        assert out == rewrite(item.data, seed=i)  # deterministic for a seed
        original = pb.FromString(item.data).SerializeToString()
        ours = decode(cls, out)
        ours.DiscardUnknownFields()
        if _canonical_after_parse(pb, out, True) != original or encode(ours) != original:
            failures.append(f"{item.name} seed={i}")
    assert not failures, failures[:20]


def test_every_invalid_kind_is_refused_by_upb_and_wirecodec(corpus: list[CorpusItem]) -> None:
    from google.protobuf.message import DecodeError as ProtobufDecodeError

    failures: list[str] = []
    for seed, item, name in _jobs(corpus, INVALID_NAMES):
        cls = message_class(item.message)
        out = invalid(item.data, seed=seed, message=cls, kinds=[name])
        try:
            pb_class(cls).FromString(out)
            failures.append(f"upb accepted: {item.name} {name} seed={seed}")
        except ProtobufDecodeError:
            pass
        try:
            decode(cls, out)
            failures.append(f"wirecodec accepted: {item.name} {name} seed={seed}")
        except DecodeError:
            pass
    assert not failures, failures[:20]
