"""protobuf's message methods on our classes, side by side with the onnx package's."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

import schema_dsl.onnx as ours
import wirecodec
from schema_dsl import Message
from tests.support.reference import backend_corpus, message_class, pb_class

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[Any]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    # Every tenth item, all kinds of message: the full corpus is covered by test_corpus.
    return backend_corpus(cache)[::10]


def _pair(item: Any) -> tuple[Message, Any]:
    cls = message_class(item.message)
    return cls.FromString(item.data), pb_class(cls).FromString(item.data)


def test_serialize_and_bytesize_agree_with_protobuf(corpus: list[Any]) -> None:
    assert len(corpus) > 100
    for item in corpus:
        mine, theirs = _pair(item)
        assert mine.SerializeToString() == theirs.SerializeToString() == item.data, item.name
        assert mine.SerializePartialToString(deterministic=True) == item.data
        assert mine.ByteSize() == theirs.ByteSize(), item.name
        assert mine.IsInitialized() and theirs.IsInitialized()


def test_merge_from_string_merges_like_protobuf(corpus: list[Any]) -> None:
    for item in corpus[:80]:
        cls = message_class(item.message)
        mine, theirs = cls(), pb_class(cls)()
        for _ in range(2):  # the second merge extends repeated fields and merges messages
            assert mine.MergeFromString(item.data) == theirs.MergeFromString(item.data)
        assert mine.SerializeToString() == theirs.SerializeToString(), item.name
        assert mine.ParseFromString(item.data) == theirs.ParseFromString(item.data)
        assert mine.SerializeToString() == theirs.SerializeToString() == item.data


def test_parse_into_a_detached_child_makes_it_present() -> None:
    data = ours.TypeProto(denotation="IMAGE").SerializeToString()
    mine, theirs = ours.ValueInfoProto(), onnx.ValueInfoProto()
    mine.type.ParseFromString(data)
    theirs.type.ParseFromString(data)
    assert mine.SerializeToString() == theirs.SerializeToString()
    mine, theirs = ours.ValueInfoProto(), onnx.ValueInfoProto()
    mine.type.SetInParent()
    theirs.type.SetInParent()
    assert mine.HasField("type") and mine.SerializeToString() == theirs.SerializeToString()
    mine, theirs = ours.ValueInfoProto(), onnx.ValueInfoProto()
    mine.type.Clear()
    theirs.type.Clear()
    assert mine.SerializeToString() == theirs.SerializeToString()


_STUBS_FIRST = """
import wirecodec
from tests.support.reference import all_message_classes
from schema_dsl import Kind
for cls in all_message_classes():  # the first codec a process makes is an empty child's
    for spec in cls.__schema__.fields:
        if spec.kind is Kind.MESSAGE and not spec.repeated:
            getattr(cls(), spec.name).ByteSize()
            type(getattr(cls(), spec.name)).FromString(b"")
for cls in all_message_classes():
    for spec in cls.__schema__.fields:
        if spec.kind is Kind.MESSAGE and not spec.repeated:
            parent = cls()
            getattr(parent, spec.name).SetInParent()
            data = parent.SerializeToString()
            assert type(cls.FromString(data)) is cls
            print(cls.__qualname__, spec.name, data.hex())
"""


def test_codecs_made_first_for_an_empty_child_serve_every_message() -> None:
    # The codecs are made on first use, once per process: a fresh one is needed to see
    # what an unset field's detached child (a subclass) leaves behind as the first user.
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[3]
    run = subprocess.run(
        [sys.executable, "-c", _STUBS_FIRST], cwd=root, capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert len(lines) > 10
    for line in lines:
        qualname, field, data = line.split(" ")
        cls: Any = ours
        for part in qualname.split("."):
            cls = getattr(cls, part)
        theirs = pb_class(cls)()
        getattr(theirs, field).SetInParent()
        assert bytes.fromhex(data) == theirs.SerializeToString(), line


def test_the_class_of_an_unset_field_makes_ordinary_messages() -> None:
    mine_class, theirs_class = type(ours.ModelProto().graph), type(onnx.ModelProto().graph)
    assert theirs_class is onnx.GraphProto
    made = mine_class(name="g", doc_string="d")
    assert type(made) is ours.GraphProto  # not a detached child that no parent would hear of
    assert made.SerializeToString() == theirs_class(name="g", doc_string="d").SerializeToString()
    parsed = mine_class.FromString(made.SerializeToString())
    assert type(parsed) is ours.GraphProto and parsed == made


def test_discard_unknown_fields_like_protobuf() -> None:
    unknown = b"\xa8\x1f\x05"  # field 501, varint 5: unknown to NodeProto and GraphProto
    node = ours.NodeProto(op_type="Relu").SerializeToString() + unknown
    graph = b"\x0a" + bytes([len(node)]) + node + unknown
    mine, theirs = ours.GraphProto.FromString(graph), onnx.GraphProto.FromString(graph)
    assert mine.SerializeToString() == theirs.SerializeToString() == graph
    mine.DiscardUnknownFields()
    theirs.DiscardUnknownFields()
    assert mine.SerializeToString() == theirs.SerializeToString()
    assert len(mine.SerializeToString()) == len(graph) - 2 * len(unknown)


def test_a_protobuf_message_given_to_encode_is_named_with_what_to_do() -> None:
    with pytest.raises(wirecodec.EncodeError, match=r"onnx\.onnx_ml_pb2\.ModelProto.*SerializeToString"):
        wirecodec.encode(onnx.ModelProto())  # type: ignore[arg-type]
    node = ours.NodeProto()
    # The container checks the element at once (protobuf too refuses it on append).
    with pytest.raises(TypeError, match=r"expected schema_dsl\.onnx\.AttributeProto, got onnx\..*FromString"):
        node.attribute.append(onnx.AttributeProto(name="a"))
    assert len(node.attribute) == 0
    list.append(node.attribute, onnx.AttributeProto(name="a"))  # past the container: the encoder names it
    with pytest.raises(wirecodec.EncodeError, match=r"expected schema_dsl\.onnx\.AttributeProto, got onnx\."):
        wirecodec.encode(node)
