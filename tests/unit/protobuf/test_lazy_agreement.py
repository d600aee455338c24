"""Lazy validation cannot drift from decoding: eager, lazy (then fully read) and upb agree.

Lazy decoding validates a small element of a repeated message field with a generated
validator and decodes it only on first read (wirecodec.protobuf.lazy). The validator must
reject exactly what the decoder rejects, at the same offset, with the same path
(docs/hostile-input.md). Here every message type of ``schema_dsl.onnx`` is made the
element type of a repeated field (tests/wire_gen.holder), its small elements written by
hand for every field kind (tests/wire_gen), and every truncation of an element and a
corruption at every byte position of the input is decoded

- eagerly (``decode(..., lazy=False)``),
- lazily with every element deferred (``Representation(every_element_waits=True)``) and with the default
  thresholds (the element placed past the first four), then read field by field,
- by upb, through a holder message declared the same way in protobuf's descriptor pool;

all must give the same verdict, and wirecodec's error type, offset, path and reason must
be the same eagerly and lazily.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schema_dsl import Kind, Message
from tests.support.decode_modes import EVERY_ELEMENT
from tests.support.reference import all_message_classes, pb_class
from tests.support.wire_gen import (
    corruptions,
    element_payloads,
    frame,
    holder,
    in_holder,
    small_elements,
    tag,
    truncations,
)
from wirecodec import DecodeError, decode, encode

pytest.importorskip("google.protobuf", reason="protobuf (upb) is the third reference (test extra)")

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError as PbDecodeError

from wirecodec.protobuf.lazy import waiting_record

CLASSES = all_message_classes()
# With every element deferred, the element sits second: see test_every_element_defers_the_first_one.
EVERY_LEAD = 1
# With the default thresholds, the first four elements of a field are decoded at once.
DEFAULT_LEAD = 4

Outcome = tuple[Any, ...]


# -- upb: the same holder, declared in protobuf's descriptor pool ------------------------------


def upb_holder(cls: type[Message]) -> Any:
    """protobuf's class for ``message Holder { repeated <cls> item = 1; }``."""
    if cls in _upb_holders:
        return _upb_holders[cls]
    element = pb_class(cls).DESCRIPTOR
    name = "Holder_" + element.full_name.replace(".", "_")
    file = descriptor_pb2.FileDescriptorProto(
        name=f"wirecodec_tests/{name}.proto",
        package="wirecodec_tests",
        syntax="proto2",
        dependency=[element.file.name],
    )
    message = file.message_type.add(name=name)
    message.field.add(
        name="item",
        number=1,
        label=descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
        type=descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
        type_name="." + element.full_name,
    )
    pool = descriptor_pool.Default()
    pool.Add(file)
    made = message_factory.GetMessageClass(pool.FindMessageTypeByName(f"wirecodec_tests.{name}"))
    _upb_holders[cls] = made
    return made


_upb_holders: dict[type[Message], Any] = {}


def upb_outcome(cls: type[Message], data: bytes) -> Outcome:
    try:
        parsed = upb_holder(cls).FromString(data)
    except PbDecodeError:
        return ("reject",)
    return ("accept", parsed.SerializeToString())


# -- wirecodec, three ways ---------------------------------------------------------------------


def read_all(message: Message) -> None:
    """Read every field of ``message`` and of every message in it (loads what waits)."""
    for spec in message.__schema__.fields:
        value = getattr(message, spec.name)
        if spec.kind is Kind.MESSAGE:
            for child in value if spec.repeated else [value] if message.HasField(spec.name) else []:
                read_all(child)


def _outcome(decoder: Callable[[], Message], lazy: bool) -> Outcome:
    try:
        message = decoder()
    except DecodeError as exc:
        return ("reject", type(exc).__name__, exc.offset, exc.path, exc.reason)
    if lazy:
        try:
            read_all(message)
        except Exception as exc:  # a deferred element must never fail after its owner decoded
            raise AssertionError(f"lazily accepted, then reading failed: {exc!r}") from exc
    return ("accept", encode(message))


def eager(cls: type[Message], data: bytes) -> Outcome:
    return _outcome(lambda: decode(holder(cls), data, lazy=False), lazy=False)


def lazy_every(cls: type[Message], data: bytes) -> Outcome:
    def run() -> Message:
        return decode(holder(cls), data, representation=EVERY_ELEMENT)

    return _outcome(run, lazy=True)


def lazy_default(cls: type[Message], data: bytes) -> Outcome:
    return _outcome(lambda: decode(holder(cls), data), lazy=True)


def assert_agree(cls: type[Message], data: bytes, what: str) -> Outcome:
    """Eager, both lazy decodings and upb give one verdict; wirecodec's three one error."""
    where = f"{cls.__qualname__} {what}, input {data.hex()}"
    first = eager(cls, data)
    for name, other in (("lazy (every element)", lazy_every), ("lazy (default)", lazy_default)):
        got = other(cls, data)
        assert got == first, f"{where}: eager {first[:4]} but {name} {got[:4]}"
    theirs = upb_outcome(cls, data)
    assert theirs[0] == first[0], f"{where}: upb {theirs[0]}s, wirecodec {first}"
    if first[0] == "accept":
        assert first[1] == theirs[1], f"{where}: re-encodings differ"
    return first


def _deferred_inputs(payload: bytes) -> list[bytes]:
    """The element, placed where each lazy mode defers it."""
    every = in_holder([b""] * EVERY_LEAD + [payload])
    default = in_holder([b""] * DEFAULT_LEAD + [payload])
    return [every, default]


def _is_waiting(cls: type[Message], data: bytes, every: bool) -> bool:
    message = decode(holder(cls), data, representation=EVERY_ELEMENT) if every else decode(holder(cls), data)
    return waiting_record(message, "item") is not None


# -- the exhaustive sweep -------------------------------------------------------------------------


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__qualname__)
def test_truncations_and_corruptions_of_small_elements_agree(cls: type[Message]) -> None:
    verdicts: dict[str, int] = {"accept": 0, "reject": 0}
    for payload in small_elements(cls):
        every, default = _deferred_inputs(payload)
        assert assert_agree(cls, every, "valid element")[0] == "accept"
        assert _is_waiting(cls, every, every=True), "the element must take the deferred path"
        if len(payload) < 32:
            assert _is_waiting(cls, default, every=False)
        assert_agree(cls, default, "valid element")
        for cut in truncations(payload):
            for data in _deferred_inputs(cut):
                verdicts[assert_agree(cls, data, f"truncated to {len(cut)} bytes")[0]] += 1
        # Every byte of the input: the holder's records (tags, lengths) and the element's.
        for whole in (every, default):
            for pos, data in corruptions(whole):
                verdicts[assert_agree(cls, data, f"corrupted at byte {pos}")[0]] += 1
    # Both verdicts occur: the sweep is not all one outcome.
    assert verdicts["accept"] > 0 and verdicts["reject"] > 0, verdicts


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_random_elements_with_a_corruption_agree(data: st.DataObject) -> None:
    cls = data.draw(st.sampled_from(CLASSES), label="class")
    payload = data.draw(element_payloads(cls), label="payload")
    inputs = _deferred_inputs(payload)
    for whole in inputs:
        assert_agree(cls, whole, "generated element")
    whole = inputs[0]
    pos = data.draw(st.integers(0, len(whole) - 1), label="position")
    byte = data.draw(st.integers(0, 255), label="byte")
    assert_agree(cls, whole[:pos] + bytes([byte]) + whole[pos + 1 :], f"byte {pos} set to {byte}")


# -- the cases the sweep exists for, named ----------------------------------------------------------


@pytest.mark.parametrize(
    ("cls_name", "record", "field"),
    [
        ("AttributeProto", tag(2, 5) + b"\x00\x00\xc0\x3f", "f"),  # a float (fixed32)
        ("TensorProto", tag(10, 1) + b"\x00" * 7 + b"\x40", "double_data"),  # unpacked, fixed64
    ],
)
def test_a_deferred_fixed_value_one_byte_short_is_rejected_as_eagerly(
    cls_name: str, record: bytes, field: str
) -> None:
    cls = next(c for c in CLASSES if c.__qualname__ == cls_name)
    data = in_holder([b"", record[:-1]])
    outcome = assert_agree(cls, data, "one byte short")
    assert outcome[0] == "reject"
    assert outcome[3] == f"{holder(cls).__qualname__}.item[1].{field}"
    assert outcome[2] == len(data) - (len(record) - 2)  # the value's first byte (after a 1-byte tag)


def test_an_element_one_byte_short_inside_a_real_graph() -> None:
    """The same drift inside an ONNX message: node[1]'s attribute float is a byte short."""
    from schema_dsl.onnx import GraphProto

    attribute = frame(5, tag(2, 5) + b"\x00\x00\xc0")  # NodeProto.attribute: f, 3 of 4 bytes
    data = frame(1, b"") + frame(1, attribute)  # GraphProto.node[0] (empty), node[1]
    with pytest.raises(DecodeError) as eager:
        decode(GraphProto, data, lazy=False)
    with pytest.raises(DecodeError) as lazy:
        decode(GraphProto, data, representation=EVERY_ELEMENT)
    assert (lazy.value.offset, lazy.value.path) == (eager.value.offset, eager.value.path)
    assert eager.value.path == "GraphProto.node[1].attribute[0].f"
    assert eager.value.offset == len(data) - 3
    with pytest.raises(PbDecodeError):
        pb_class(GraphProto).FromString(data)


@pytest.mark.parametrize(
    ("before", "payload", "waits"),
    [(4, 31, True), (4, 32, False), (3, 31, False), (10, 0, True), (4, 100, False)],
)
def test_the_deferred_path_is_taken_where_the_docs_say(before: int, payload: int, waits: bool) -> None:
    """docs/format.md: an element waits if its payload is under 32 bytes and it comes
    past the first four of its field. (The sweep above relies on it.)"""
    from schema_dsl.onnx import GraphProto, NodeProto

    element = NodeProto(name="x" * (payload - 2)) if payload else NodeProto()
    assert len(encode(element)) == payload
    data = encode(GraphProto(node=[NodeProto()] * before + [element]))
    graph = decode(GraphProto, data)
    assert (waiting_record(graph, "node") is not None) is waits
    assert graph == decode(GraphProto, data, lazy=False)


# -- a bug found on the way: with eager_first=0 the first element was still decoded at once -----


def test_every_element_defers_the_first_one() -> None:
    from schema_dsl.onnx import GraphProto, NodeProto

    data = encode(GraphProto(node=[NodeProto(name="a")]))
    assert _is_waiting_graph(data)


def _is_waiting_graph(data: bytes) -> bool:
    from schema_dsl.onnx import GraphProto

    graph = decode(GraphProto, data, representation=EVERY_ELEMENT)
    return waiting_record(graph, "node") is not None
