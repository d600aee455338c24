"""Lazy repeated sub-messages (wirecodec.protobuf.lazy) behave exactly like eager decoding.

Most tests run with every element of every repeated message field left waiting
(``all_lazy``), so the lazy paths see the whole onnx backend corpus and thousands of
mutated inputs, not just the rare big-and-small models that trigger them by default.
"""

from __future__ import annotations

import collections
import copy
import functools
import importlib.util
import pathlib
import pickle
import random
import sys
import threading
from typing import Any

import pytest

import wirecodec
from schema_dsl.message import slot_value
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto
from tests.support.decode_modes import EVERY_ELEMENT
from wirecodec import DecodeError, LimitError, decode, encode
from wirecodec.protobuf.lazy import waiting_fields, waiting_record
from wirecodec.protobuf.wire import encode_varint


@pytest.fixture
def all_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every element of every repeated message field waits (no size or count exemption):
    this module's ``decode`` asks for it."""
    every_element = functools.partial(wirecodec.decode, representation=EVERY_ELEMENT)
    monkeypatch.setattr(sys.modules[__name__], "decode", every_element)


def _eager(cls: Any, data: bytes) -> Any:
    return decode(cls, data, lazy=False)


def _outcome(cls: Any, data: bytes, lazy: bool) -> tuple[Any, ...]:
    try:
        message = decode(cls, data, lazy=lazy)
    except DecodeError as exc:
        return ("error", type(exc).__name__, exc.offset, exc.path, exc.reason)
    return ("ok", encode(message))


def _pending_count(message: Any) -> int:
    return len(waiting_fields(message))


# -- against eager decoding, on inputs no one here wrote ------------------------------------


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[tuple[str, bytes]]:
    from tests.support.reference import backend_corpus

    cache_plugin = getattr(request.config, "cache", None)
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [(item.message, item.data) for item in backend_corpus(cache)]


def test_backend_corpus_decodes_the_same_lazily(all_lazy: None, corpus: list[tuple[str, bytes]]) -> None:
    from tests.support.reference import message_class

    waited = 0
    for name, data in corpus:
        cls = message_class(name)
        lazy = decode(cls, data)
        waited += _pending_count(lazy)
        if isinstance(lazy, ModelProto):
            waited += _pending_count(lazy.graph)
        assert encode(lazy) == data  # encoding loads what waits, byte-exact
        assert lazy == _eager(cls, data)
    assert waited > 1000  # the lazy path really ran


def test_mutated_inputs_fail_identically_lazily(all_lazy: None, corpus: list[tuple[str, bytes]]) -> None:
    """Same verdict, offset, path and reason; same bytes when accepted (fixed seed, 3,000 inputs)."""
    from tests.support.reference import message_class

    path = pathlib.Path(__file__).resolve().parents[3] / "fuzz" / "differential.py"
    spec = importlib.util.spec_from_file_location("wirecodec_fuzz_differential_lazy", path)
    assert spec is not None and spec.loader is not None
    differential = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(differential)
    models = [(n, d) for n, d in corpus if n == "ModelProto" and len(d) <= 4096]
    rng = random.Random(7)
    verdicts: collections.Counter[str] = collections.Counter()
    for _ in range(3000):
        name, data = rng.choice(models)
        mutated = differential.mutate(data, rng)
        cls = message_class(name)
        lazy, eager = _outcome(cls, mutated, True), _outcome(cls, mutated, False)
        assert lazy == eager, mutated.hex()
        verdicts[lazy[0]] += 1
    assert verdicts["ok"] > 300 and verdicts["error"] > 300, verdicts


# -- hand-built cases: paths, limits, the representation -----------------------------------


def _node_record(payload: bytes) -> bytes:
    return b"\x0a" + encode_varint(len(payload)) + payload


def test_an_invalid_waiting_element_fails_the_decode_with_its_path(all_lazy: None) -> None:
    good = encode(NodeProto(op_type="Relu", input=["x"], output=["y"]))
    # The node's fourth element is fine at node level; its attribute's name overruns.
    bad = encode(NodeProto(op_type="Add")) + b"\x2a\x05\x0a\x09nam"
    data = _node_record(good) * 3 + _node_record(bad)
    with pytest.raises(DecodeError) as lazy_info:
        decode(GraphProto, data)
    with pytest.raises(DecodeError) as eager_info:
        _eager(GraphProto, data)
    assert lazy_info.value.path == eager_info.value.path == "GraphProto.node[3].attribute[0].name"
    assert lazy_info.value.offset == eager_info.value.offset
    assert lazy_info.value.reason == eager_info.value.reason


def test_nesting_limit_counts_waiting_elements(all_lazy: None) -> None:
    # graph -> node -> attribute -> g (graph) ... : depth grows by three per level.
    inner = b""
    for _ in range(40):
        attribute = encode(AttributeProto(name="g", type=AttributeProto.AttributeType.GRAPH))
        attribute += b"\x32" + encode_varint(len(inner)) + inner  # field 6: g
        node = b"\x2a" + encode_varint(len(attribute)) + attribute  # field 5: attribute
        inner = _node_record(node)
    for depth in (10, 60, 100):
        assert _outcome(GraphProto, inner, True) == _outcome(GraphProto, inner, False)
        with pytest.raises(LimitError) as info:
            decode(GraphProto, inner, max_depth=depth)
        with pytest.raises(LimitError) as eager_info:
            decode(GraphProto, inner, max_depth=depth, lazy=False)
        assert (info.value.offset, info.value.path) == (eager_info.value.offset, eager_info.value.path)


def test_only_small_elements_wait_by_default() -> None:
    big = NodeProto(op_type="Conv", name="a" * 40, input=["x", "w"], output=["y"])
    small = NodeProto(op_type="Relu")
    graph = decode(GraphProto, encode(GraphProto(node=[big] * 4 + [small, big, small] + [big] * 3)))
    assert waiting_fields(graph) == ["node"]
    record = waiting_record(graph, "node")
    assert len(record.starts) == 2 and len(record) == 10  # two wait, eight were decoded
    assert [n.op_type for n in graph.node] == ["Conv"] * 4 + ["Relu", "Conv", "Relu"] + ["Conv"] * 3
    assert not waiting_fields(graph)


def test_a_field_of_few_elements_never_waits() -> None:
    graph = decode(GraphProto, encode(GraphProto(node=[NodeProto(op_type="Relu")] * 4)))
    assert not waiting_fields(graph) and len(slot_value(graph, "node")) == 4


def test_writable_buffers_decode_eagerly() -> None:
    data = encode(GraphProto(node=[NodeProto()] * 100))
    assert waiting_fields(decode(GraphProto, data))
    assert not waiting_fields(decode(GraphProto, bytearray(data)))
    assert not waiting_fields(decode(GraphProto, data, lazy=False))


def test_empty_nodes_cost_four_bytes_each() -> None:
    graph = decode(GraphProto, b"\x0a\x00" * 100_000)
    record = waiting_record(graph, "node")
    assert record.starts.itemsize == 4 and len(record.starts) == 100_000 - 4
    assert len(graph.node) == 100_000 and all(node == NodeProto() for node in graph.node[:10])


# -- every operation that looks at fields wholesale sees the waiting elements -------------


def _graph() -> tuple[bytes, GraphProto]:
    data = encode(GraphProto(name="g", node=[NodeProto(op_type=f"Op{i}") for i in range(20)]))
    return data, decode(GraphProto, data)


def test_operations_load_waiting_elements_first() -> None:
    data, _ = _graph()
    eager = _eager(GraphProto, data)
    views = [
        lambda g: g.ListFields()[0][1],
        lambda g: copy.deepcopy(g).node,
        lambda g: copy.copy(g).node,
        lambda g: pickle.loads(pickle.dumps(g)).node,
        lambda g: encode(g),
        lambda g: repr(g),
        lambda g: g == eager,
    ]
    for view in views:
        _, graph = _graph()
        assert waiting_fields(graph)
        expected = view(eager)
        assert view(graph) == expected


def test_merge_and_copy_from_keep_every_element() -> None:
    data, graph = _graph()
    target = GraphProto(node=[NodeProto(op_type="First")])
    target.MergeFrom(graph)
    assert [n.op_type for n in target.node] == ["First"] + [f"Op{i}" for i in range(20)]
    _, again = _graph()
    again.MergeFrom(decode(GraphProto, data))
    assert len(again.node) == 40
    copied = GraphProto()
    copied.CopyFrom(decode(GraphProto, data))
    assert encode(copied) == data


def test_assigning_or_clearing_before_the_first_read_wins() -> None:
    _, graph = _graph()
    graph.node = [NodeProto(op_type="Mine")]
    assert [n.op_type for n in graph.node] == ["Mine"]
    assert [s.name for s, _ in graph.ListFields()] == ["node", "name"]
    assert not waiting_fields(graph) and [n.op_type for n in graph.node] == ["Mine"]
    _, graph = _graph()
    graph.ClearField("node")
    assert not waiting_fields(graph) and list(graph.node) == [] and not graph.ListFields()[1:]
    _, graph = _graph()
    graph.Clear()
    assert encode(graph) == b""


def test_the_loaded_list_is_the_field() -> None:
    _, graph = _graph()
    nodes = graph.node
    nodes.append(NodeProto(op_type="Extra"))
    assert graph.node is nodes and len(graph.node) == 21


def test_concurrent_first_reads_get_one_list() -> None:
    for _ in range(20):
        _, graph = _graph()
        seen: list[Any] = []
        start = threading.Barrier(4)

        def read(graph: GraphProto, start: threading.Barrier, seen: list[Any]) -> None:
            start.wait()
            seen.append(graph.node)

        threads = [threading.Thread(target=read, args=(graph, start, seen)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert all(lst is graph.node for lst in seen)


def test_waiting_elements_keep_a_mapped_file_open_until_loaded(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    data = encode(ModelProto(ir_version=9, graph=GraphProto(node=[NodeProto(op_type="Relu")] * 50)))
    path.write_bytes(data)
    model = wirecodec.load(path, load_external_data=False)
    assert waiting_fields(model.graph)
    path.unlink()  # the map keeps the bytes
    assert [n.op_type for n in model.graph.node] == ["Relu"] * 50


def test_load_checks_waiting_elements_for_external_data_without_keeping_them(tmp_path: pathlib.Path) -> None:
    from schema_dsl.onnx import StringStringEntryProto, TensorProto

    plain = tmp_path / "plain.onnx"
    plain.write_bytes(encode(ModelProto(graph=GraphProto(node=[NodeProto(op_type="Relu")] * 50))))
    model = wirecodec.load(plain)
    assert waiting_fields(model.graph)  # looked at, not loaded
    # A small node, waiting, whose attribute tensor points outside: refused at load.
    outside = TensorProto(
        data_location=TensorProto.DataLocation.EXTERNAL,
        external_data=[StringStringEntryProto(key="location", value="../x")],
    )
    attribute = AttributeProto(t=outside)
    hostile = NodeProto(attribute=[attribute])
    assert len(encode(hostile)) < 32  # small enough to wait
    evil = tmp_path / "evil.onnx"
    evil.write_bytes(encode(ModelProto(graph=GraphProto(node=[NodeProto(op_type="Relu")] * 50 + [hostile]))))
    assert waiting_fields(decode(ModelProto, evil.read_bytes()).graph)
    with pytest.raises(wirecodec.ExternalDataError):
        wirecodec.load(evil)


def test_memoryview_slices_defer_the_same_way(all_lazy: None, corpus: list[tuple[str, bytes]]) -> None:
    """A view into a larger buffer takes the other decoder flavour (strings via str())."""
    from tests.support.reference import message_class

    models = [data for name, data in corpus if name == "ModelProto"][:300]
    for data in models:
        view = memoryview(b"pad" + data)[3:]
        lazy = decode(ModelProto, view)
        assert encode(lazy) == data
        assert lazy == _eager(message_class("ModelProto"), data)
    with pytest.raises(DecodeError) as info:
        decode(GraphProto, memoryview(b"pad" + b"\x0a\x00" * 10 + b"\x0a\x02\x2a\x05")[3:])
    assert info.value.path == "GraphProto.node[10].attribute[0]"
