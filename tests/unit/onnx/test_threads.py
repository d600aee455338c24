"""A decoded message shared by threads gives every reader the same values.

Lazy decoding leaves small elements of repeated message fields pending
(wirecodec.protobuf.lazy): their first read decodes them and stores the list. Here one
model is decoded lazily per round and several threads walk it at once, from a barrier,
with the interpreter switching threads every microsecond, so first reads of the same
pending fields (and of the same unset fields) race. Every thread's walk must equal the
walk of an eager decode, and the message must still encode to its input afterwards
(a stored field whose presence bit was lost would be dropped by the encoder).
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from schema_dsl import Kind, Message
from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from tests.support.exports import Export
from wirecodec import decode, encode
from wirecodec.protobuf.lazy import peek

THREADS = 4
ROUNDS = 200


def graph_model(nodes: int = 36) -> bytes:
    """A model whose graph has pending nodes, pending attributes and pending dims."""
    graph = GraphProto(name="g")
    for i in range(nodes):
        if i % 3:
            # Many small int attributes: past the first four, they wait.
            attributes = [AttributeProto(name=f"a{k}", type=AttributeProto.INT, i=i * k) for k in range(9)]
            node = NodeProto(op_type="Conv", name=f"n{i}", input=[f"t{i}"], output=[f"t{i + 1}"])
            node.attribute.extend(attributes)
            graph.node.append(node)
        else:
            # Under 32 bytes: the node itself waits.
            graph.node.append(NodeProto(op_type="Relu", input=[f"t{i}"], output=[f"t{i + 1}"]))
    for i in range(nodes // 6):
        dims = [TensorShapeProto.Dimension(dim_value=d + i) for d in range(7)]
        shape = TensorShapeProto(dim=dims)
        tensor_type = TypeProto.Tensor(elem_type=1, shape=shape)
        graph.value_info.append(ValueInfoProto(name=f"t{i}", type=TypeProto(tensor_type=tensor_type)))
    return encode(ModelProto(ir_version=10, graph=graph))


def walk(message: Message) -> Iterator[Any]:
    """Every field of ``message`` and below, read the way a user reads them (attribute reads)."""
    for spec in message.__schema__.fields:
        value = getattr(message, spec.name)
        if spec.kind is Kind.MESSAGE:
            if spec.repeated:
                yield spec.name, len(value)
                for child in value:
                    yield from walk(child)
            elif message.HasField(spec.name):
                yield spec.name
                yield from walk(value)
        elif spec.repeated:
            yield spec.name, tuple(value)
        else:
            yield spec.name, bytes(value) if spec.kind is Kind.BYTES else value


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Switch threads every microsecond (the default is 5 ms), restored afterwards."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def read_at_once(model: Any, read: Callable[[Any], Any]) -> list[Any]:
    """What each of THREADS threads, started together, read from ``model`` (or raised)."""
    barrier = threading.Barrier(THREADS)
    got: list[Any] = [None] * THREADS

    def reader(slot: int) -> None:
        barrier.wait()
        try:
            got[slot] = read(model)
        except Exception as exc:  # counted as a mismatch, with the others
            got[slot] = exc

    threads = [threading.Thread(target=reader, args=(slot,)) for slot in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return got


def concurrent_rounds(data: bytes, rounds: int, read: Callable[[Message], Any]) -> int:
    """How many reads (rounds times threads) of a fresh lazy decode differed from an eager one."""
    want = read(decode(ModelProto, data, lazy=False))
    mismatches = 0
    for _ in range(rounds):
        model = decode(ModelProto, data)
        mismatches += sum(result != want for result in read_at_once(model, read))
        # Nothing a reader stored may be lost: the encoder reads the presence bits.
        mismatches += encode(model) != data
    return mismatches


def test_concurrent_walks_agree_with_an_eager_decode(fast_switching: None) -> None:
    assert concurrent_rounds(graph_model(), ROUNDS, lambda model: list(walk(model))) == 0


def test_concurrent_wholesale_reads_agree(fast_switching: None) -> None:
    # ListFields and encoding load every pending field at once, racing attribute reads.
    def read(model: Message) -> Any:
        graph = model.graph  # type: ignore[attr-defined]
        nodes = [(n.ListFields() and tuple(a.i for a in n.attribute)) for n in graph.node]
        return nodes, encode(model)

    assert concurrent_rounds(graph_model(), ROUNDS // 2, read) == 0


def test_first_reads_of_different_fields_keep_every_presence_bit(fast_switching: None) -> None:
    # Each thread reads other repeated fields of the same graph (pending or unset): a read
    # stores the list and sets its presence bit, and no thread's bit may overwrite another's.
    data = graph_model()
    fields = [spec.name for spec in GraphProto.__schema__.fields if spec.repeated]
    lost = 0
    for _ in range(ROUNDS):
        graph = decode(ModelProto, data).graph

        starts = itertools.count()

        def read(_: Message, graph: Any = graph, starts: Iterator[int] = starts) -> None:
            start = next(starts)  # threads start at different fields
            for name in fields[start:] + fields[:start]:
                getattr(graph, name)

        read_at_once(graph, read)
        # Now a write into each: every list read is the field, and the encoder must see it.
        for name in fields:
            getattr(graph, name).add()
        lost += len(fields) - len(graph.ListFields()) + 1  # + the scalar field "name"
    assert lost == 0


def test_concurrent_walks_of_pytorch_exports(fast_switching: None, pytorch_exports: list[Export]) -> None:
    # Models nobody here wrote: whatever their exporters made pending, readers agree.
    for export in pytorch_exports:
        assert concurrent_rounds(export.data, 20, lambda model: list(walk(model))) == 0, export.name


def test_a_peek_while_another_thread_loads_sees_each_element_once(fast_switching: None) -> None:
    # wirecodec.protobuf.lazy.peek walks a pending record without loading it (load's look
    # for external data); a load of the same record in another thread must not change
    # what the walk sees.
    # Large nodes first (decoded at once: a long head), then small ones (waiting), then
    # large ones again (decoded among the waiting: the record's order list).
    big = [NodeProto(op_type="Op", name=f"a node of more than thirty-two bytes {i}") for i in range(2000)]
    small = [NodeProto(op_type=f"Op{i % 7}") for i in range(30)]
    data = encode(GraphProto(node=big + small))
    data_with_order = encode(GraphProto(node=big + small + big))
    wrong = 0
    for round_ in range(ROUNDS // 4):
        source = data if round_ % 2 else data_with_order
        want = [node.op_type for node in decode(GraphProto, source, lazy=False).node]
        graph = decode(GraphProto, source)
        turns = itertools.count()  # half the threads peek, half load

        def read(graph: Any, turn: Iterator[int] = turns) -> list[str]:
            if next(turn) % 2:
                return [node.op_type for node in graph.node]
            return [node.op_type for node in peek(graph, "node")]

        wrong += sum(got != want for got in read_at_once(graph, read))
    assert wrong == 0
