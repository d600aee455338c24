"""Records (issue 36): graph elements kept as records, read through views,
pinned on first write — against onnx (protobuf's upb) on the backend corpus and on a
graph of the benchmark's shape, and the collector's view of what a decode keeps."""

from __future__ import annotations

import gc
import pathlib
from typing import Any

import numpy
import pytest

import wirecodec
from schema_dsl import Message
from schema_dsl.layout import slot_value
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto
from schema_dsl.views import CHUNK, RecordContainer
from tests.support.decode_modes import RECORDS_ALWAYS
from tests.support.reference import CorpusItem, backend_corpus, pb_class, require_onnx
from wirecodec.protobuf import records
from wirecodec.protobuf.fragments import FragmentTable, compile_builder

onnx = require_onnx()


def _records(data: bytes) -> ModelProto:
    # Records start past RECORDS_AFTER elements of a field; these tests' graphs are smaller.
    return wirecodec.decode(ModelProto, data, representation=RECORDS_ALWAYS)


def _graph(nodes: int) -> bytes:
    """Nodes with attributes of several kinds, a value_info with a symbolic shape each, and
    a Constant node holding a small tensor (a record too) every tenth node."""
    helper = onnx.helper
    made, values = [], []
    for i in range(nodes):
        if i % 10 == 9:
            tensor = onnx.numpy_helper.from_array(numpy.arange(4, dtype="int64"), f"c{i}")
            made.append(helper.make_node("Constant", [], [f"t{i}"], name=f"n{i}", value=tensor))
        else:
            made.append(
                helper.make_node(
                    "Conv",
                    [f"t{i - 1}", "w"],
                    [f"t{i}"],
                    name=f"n{i}",
                    kernel_shape=[3, 3],
                    alpha=0.5,
                    mode="x",
                )
            )
        values.append(helper.make_tensor_value_info(f"t{i}", 1, ["batch", 3, "seq", i + 1]))
    graph = helper.make_graph(made, "g", [], [], value_info=values)
    return helper.make_model(graph).SerializeToString()


def test_elements_are_records_and_the_collector_stops_tracking_them() -> None:
    data = _graph(200)
    model = _records(data)
    node = model.graph.node
    assert isinstance(node, RecordContainer)
    sealed = node._sealed()
    assert sealed is not None and all(type(r) is tuple for r in sealed)  # every element a record
    # Collections untrack the records (flat tuples of atoms) and the chunks holding them (a
    # chunk may be visited before its records in the collection that untracks them).
    gc.collect()
    gc.collect()
    assert not any(gc.is_tracked(r) for r in sealed)
    assert not any(gc.is_tracked(chunk) for chunk in node._store)
    assert not any(gc.is_tracked(r) for r in model.graph.value_info._sealed() or ())


def test_a_pinned_element_keeps_only_what_it_holds() -> None:
    """Renaming every node pins each: the collector then tracks the node and what it holds
    (its containers, attributes, family link) and no weak reference or entry per node
    besides: the pin answers every later read. (10.9 tracked objects per node of this
    shape; 11.9 when each pin kept the weak reference its container files it under.)"""
    model = _records(_graph(3000))
    gc.collect()
    before = len(gc.get_objects())
    for node in model.graph.node:
        node.name = node.name + "_r"
    gc.collect()
    per_node = (len(gc.get_objects()) - before) / 3000
    assert per_node < 11.5, per_node
    assert [n.name for n in model.graph.node][:2] == ["n0_r", "n1_r"]


def test_reads_encodes_and_renames_equal_onnx() -> None:
    data = _graph(120)
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    assert wirecodec.encode(mine) == data
    assert str(mine.graph.node[9]) == str(theirs.graph.node[9])
    assert [n.name for n in mine.graph.node] == [n.name for n in theirs.graph.node]
    for a, b in ((mine, "x"), (theirs, "x")):
        for n in a.graph.node:
            n.name += b
        a.graph.value_info[5].type.tensor_type.shape.dim[1].dim_value = 77
        a.graph.node[3].attribute[1].ints.append(5)  # the node's view dies at once: built again, pinned
    assert wirecodec.encode(mine) == theirs.SerializeToString()
    assert mine.graph.node[3].attribute[1].ints == [3, 3, 5]


def test_a_view_held_sees_the_writes_through_its_children() -> None:
    model = _records(_graph(30))
    node = model.graph.node[4]
    node.attribute[1].f = 2.5
    node.name = "kept"
    assert model.graph.node[4] is node  # pinned: every read returns it
    assert model.graph.node[4].attribute[1].f == 2.5


def test_two_reads_of_one_record_are_its_one_live_view() -> None:
    model = _records(_graph(30))
    first, second = model.graph.node[2], model.graph.node[2]
    assert first is second  # one view while any reference lives, as upb's one wrapper
    first.name = "a"
    second.name = "b"
    assert model.graph.node[2].name == "b"
    outputs = model.graph.node[3].output  # a held part keeps its element's view alive
    model.graph.node[3].output[0] = "renamed"
    outputs.append("extra")
    assert list(model.graph.node[3].output) == ["renamed", "extra"]


def test_container_changes_keep_the_records_in_place() -> None:
    data = _graph(40)
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    for graph in (mine.graph, theirs.graph):
        graph.node.insert(3, graph.node[10])
        del graph.node[7]
        graph.node.pop()
        graph.value_info.add(name="new")
    held = mine.graph.node[20]
    held.op_type = "Relu"
    theirs.graph.node[20].op_type = "Relu"
    for graph in (mine.graph, theirs.graph):
        graph.node.sort(key=lambda n: n.name)
    assert mine.graph.node == list(mine.graph.node)  # a container compares with any list
    assert [str(n) for n in mine.graph.node] == [str(n) for n in theirs.graph.node]
    assert wirecodec.encode(mine) == theirs.SerializeToString()


def _changed(item: CorpusItem, model: Message) -> None:
    graph = model.graph  # type: ignore[attr-defined]
    for node in graph.node:
        node.doc_string = "seen"
    for value in graph.input:
        value.name += "_in"


def test_backend_models_read_and_change_as_onnx_does(tmp_path: pathlib.Path) -> None:
    corpus = [item for item in backend_corpus() if item.message == "ModelProto"]
    assert corpus
    for item in corpus:
        mine, theirs = _records(item.data), pb_class(ModelProto).FromString(item.data)
        assert str(mine) == str(theirs), item.name
        assert wirecodec.encode(mine) == theirs.SerializeToString(), item.name
        _changed(item, mine)
        _changed(item, theirs)
        assert wirecodec.encode(mine) == theirs.SerializeToString(), item.name


def test_elements_that_cannot_be_records_are_messages() -> None:
    # A node holding a subgraph past records.MAX_HELD_GRAPH bytes: decoded as before.
    big = onnx.numpy_helper.from_array(numpy.zeros(records.MAX_HELD_GRAPH // 4, dtype="float32"), "w")
    body = onnx.helper.make_graph([], "body", [], [], initializer=[big])
    node = onnx.helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)
    data = onnx.helper.make_model(onnx.helper.make_graph([node], "g", [], [])).SerializeToString()
    model = _records(data)
    kept: Any = model.graph.node
    assert kept._sealed() == [None] and type(list.__getitem__(kept, 0)) is NodeProto
    assert wirecodec.encode(model) == data
    assert isinstance(model.graph.node[0].attribute[0], AttributeProto)
    assert type(model.graph) is GraphProto


def test_a_node_holding_small_subgraphs_is_a_record() -> None:
    # An If whose branches fit records.MAX_HELD_GRAPH is kept as a record (the collector
    # never visits its subgraphs); its view builds them, and reads, writes and bytes are
    # onnx's.
    small = onnx.numpy_helper.from_array(numpy.arange(6, dtype="float32"), "w")
    body = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", ["w"], ["y"], name="inner")], "body", [], [], initializer=[small]
    )
    node = onnx.helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body)
    data = onnx.helper.make_model(onnx.helper.make_graph([node], "g", [], [])).SerializeToString()
    model, theirs = _records(data), onnx.load_model_from_string(data)
    kept: Any = model.graph.node
    assert type(kept._sealed()[0]) is tuple  # a record, not a message
    assert str(model) == str(theirs)
    assert wirecodec.encode(model) == data
    body_view = model.graph.node[0].attribute[1].g
    assert bytes(body_view.initializer[0].raw_data) == bytes(
        theirs.graph.node[0].attribute[1].g.initializer[0].raw_data
    )
    for m in (model, theirs):
        m.graph.node[0].attribute[1].g.node[0].name = "renamed"
    assert body_view.node[0].name == "renamed"  # the held subgraph is the view's
    assert wirecodec.encode(model) == theirs.SerializeToString()


def test_only_graphs_with_a_long_field_keep_records() -> None:
    for nodes, kept in ((records.RECORDS_AFTER, False), (records.RECORDS_AFTER + 1, True)):
        data = _graph(nodes)
        model = wirecodec.decode(ModelProto, data)
        assert isinstance(model.graph.node, RecordContainer) is kept
        assert isinstance(model.graph.value_info, RecordContainer) is kept  # its owner's choice
        assert wirecodec.encode(model) == data
        assert str(model) == str(onnx.load_model_from_string(data))


def _slots(value: Any) -> Any:
    """Everything a built message holds, slot by slot (spans included), children too."""
    if isinstance(value, Message):
        names = (*Message.__slots__, *value.__schema__.holder.__slots__)
        held = [(name, slot_value(value, name, "<empty>")) for name in names if name != "_x"]
        return type(value).__qualname__, [(name, _slots(item)) for name, item in held]
    if isinstance(value, list):
        spans = [slot_value(value, name, None) for name in ("_span", "_records")]  # type: ignore[arg-type]
        return type(value).__qualname__, spans, [_slots(item) for item in list.__iter__(value)]
    if isinstance(value, memoryview):
        return "view", bytes(value)
    return value


def _tables(model: ModelProto) -> list[FragmentTable]:
    found = {}
    for field in (model.graph.node, model.graph.value_info, model.graph.input, model.graph.output):
        table = getattr(field, "_table", None)
        if table is not None:
            found[id(table)] = table
    return list(found.values())


def test_compiled_fragment_builders_build_what_the_generic_builder_does() -> None:
    inputs = [_graph(300)] + [item.data for item in backend_corpus() if item.message == "ModelProto"]
    compared = 0
    for data in inputs:
        model = _records(data)
        for table in _tables(model):
            for fid, atoms in enumerate(table.atoms):
                start, src = 1000 + fid, model.graph._span >> 80 << 80  # any start, the input's id
                generic = table.generic[fid](atoms, 0, start, src, None, table)[0]
                compiled = compile_builder(table, fid)(src | start << 40 | start, start, None, table.mv)
                assert _slots(compiled) == _slots(generic), (type(generic), atoms)
                compared += 1
    assert compared > 50, compared


def test_equal_bytes_of_two_classes_stay_apart() -> None:
    # A scalar's shape and an unknown dim are both empty payloads: the memo of records is
    # keyed by bytes, and each must still be built as its own class.
    helper = onnx.helper
    values = [helper.make_tensor_value_info(f"s{i}", 1, []) for i in range(3)]
    values += [helper.make_tensor_value_info(f"d{i}", 1, [None, "n"]) for i in range(3)]
    nodes = [helper.make_node("Identity", [f"s{i}"], [f"d{i}"], name=f"n{i}") for i in range(3)]
    data = helper.make_model(helper.make_graph(nodes, "g", [], [], value_info=values)).SerializeToString()
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    assert isinstance(mine.graph.value_info, RecordContainer)
    assert str(mine) == str(theirs)
    dims = [type(d).__qualname__ for v in mine.graph.value_info for d in v.type.tensor_type.shape.dim]
    assert dims == ["TensorShapeProto.Dimension"] * 6
    assert wirecodec.encode(mine) == data


@pytest.mark.parametrize("past", [0, 1])
def test_a_node_holding_a_subgraph_past_the_limit_is_a_message(past: int) -> None:
    # A view builds its subgraphs on every read of the node: kept in a record only up to
    # records.MAX_HELD_GRAPH bytes of subgraph.
    body = onnx.helper.make_graph([onnx.helper.make_node("Relu", ["x"], ["y"])], "body", [], [])
    padding = records.MAX_HELD_GRAPH + past - len(body.SerializeToString()) - 3  # tag, 2-byte length
    body.doc_string = "d" * padding
    assert len(body.SerializeToString()) == records.MAX_HELD_GRAPH + past
    nodes = [onnx.helper.make_node("Relu", ["a"], ["b"], name="plain")]
    nodes.append(onnx.helper.make_node("If", ["c"], ["y"], then_branch=body, else_branch=body))
    data = onnx.helper.make_model(onnx.helper.make_graph(nodes, "g", [], [])).SerializeToString()
    model = _records(data)
    kept: Any = model.graph.node
    assert type(kept._sealed()[0]) is tuple
    if past:
        assert kept._sealed()[1] is None and type(list.__getitem__(kept, 1)) is NodeProto
    else:
        assert type(kept._sealed()[1]) is tuple
    assert model.graph.node[1].attribute[0].g.doc_string == body.doc_string
    assert wirecodec.encode(model) == data


def test_some_nodes_changed_encode_as_onnx_does() -> None:
    # Unchanged records are copied from the input in slices around the changed elements,
    # whose places the container tells from its records.
    data = _graph(60)
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    for graph in (mine.graph, theirs.graph):
        for at in range(0, 60, 7):
            graph.node[at].name += "!"
        graph.value_info[11].name = "v"
    assert wirecodec.encode(mine) == theirs.SerializeToString()


def test_a_view_written_after_its_record_moved_pins_it_where_it_is_now() -> None:
    data = _graph(30)
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    held, other = mine.graph.node[5], theirs.graph.node[5]
    for graph in (mine.graph, theirs.graph):
        graph.node.insert(0, graph.node[20])  # the held element moves to index 6
    held.name = "moved"
    other.name = "moved"
    assert [n.name for n in mine.graph.node] == [n.name for n in theirs.graph.node]
    assert mine.graph.node[6] is held
    assert wirecodec.encode(mine) == theirs.SerializeToString()


def test_the_views_read_spans_as_origin_writes_them() -> None:
    from schema_dsl import views
    from wirecodec.protobuf import origin

    assert views._SHIFT == origin.SPAN_SHIFT and views._OFFSETS == (1 << origin.SPAN_SHIFT) - 1


def test_builders_compiled_in_one_decode_are_not_taken_for_anothers_fragments() -> None:
    # Two graphs alike but for their values' element type: a value type's atoms name its
    # tensor type by the decode's own fragment id, equal in both; the builder compiled in
    # the first decode must not build the second's.
    helper = onnx.helper

    def graph(elem: int) -> bytes:
        values = [helper.make_tensor_value_info(f"v{i}", elem, ["batch", 3]) for i in range(300)]
        nodes = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"]) for i in range(299)]
        return helper.make_model(helper.make_graph(nodes, "g", [], [], value_info=values)).SerializeToString()

    for data in (graph(onnx.TensorProto.FLOAT), graph(onnx.TensorProto.INT64)):
        mine = _records(data)
        assert [v.type.tensor_type.elem_type for v in mine.graph.value_info] == [
            v.type.tensor_type.elem_type for v in onnx.load_model_from_string(data).graph.value_info
        ]


def test_indexing_reaches_every_chunk_of_the_sealed_records() -> None:
    count = CHUNK * 2 + 3
    data = _graph(count)
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    assert len(mine.graph.node._store) == 3  # type: ignore[attr-defined]
    for at in (0, CHUNK - 1, CHUNK, CHUNK + 1, count - 1, -1, -CHUNK - 1, -count):
        assert str(mine.graph.node[at]) == str(theirs.graph.node[at]), at
    assert [n.name for n in mine.graph.node[CHUNK - 2 : CHUNK + 2]] == [
        n.name for n in theirs.graph.node[CHUNK - 2 : CHUNK + 2]
    ]
    assert [n.name for n in reversed(mine.graph.node)][:3] == [n.name for n in theirs.graph.node[::-1]][:3]
    mine.graph.node[CHUNK + 1].name = theirs.graph.node[CHUNK + 1].name = "pinned"
    del mine.graph.node[5], theirs.graph.node[5]  # unseals
    assert wirecodec.encode(mine) == theirs.SerializeToString()


def test_saving_with_external_data_moves_the_tensors_of_records(tmp_path: pathlib.Path) -> None:
    # The writer finds the tensors in one walk and swaps them in the next, by identity.
    big = onnx.numpy_helper.from_array(numpy.arange(2048, dtype="float32"), "k")
    nodes = [onnx.helper.make_node("Constant", [], [f"c{i}"], name=f"n{i}", value=big) for i in range(3)]
    data = onnx.helper.make_model(onnx.helper.make_graph(nodes, "g", [], [])).SerializeToString()
    model = _records(data)
    assert isinstance(model.graph.node, RecordContainer) and type(model.graph.node._sealed()[0]) is tuple
    wirecodec.save(model, tmp_path / "m.onnx", external_data=True, convert_attribute=True)
    saved = onnx.load(str(tmp_path / "m.onnx"), load_external_data=False)
    moved = [n.attribute[0].t.data_location for n in saved.graph.node]
    assert moved == [onnx.TensorProto.EXTERNAL] * 3
    again = onnx.load(str(tmp_path / "m.onnx"))
    assert [onnx.numpy_helper.to_array(n.attribute[0].t).sum() for n in again.graph.node] == [2047 * 1024] * 3


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (field numbers under 16)."""
    size, length = len(payload), b""
    while size >= 128:
        length += bytes([size & 127 | 128])
        size >>= 7
    return bytes([number << 3 | 2]) + length + bytes([size]) + payload


def test_a_oneof_set_twice_in_an_element_reads_as_protobuf_reads_it() -> None:
    # A Dimension holding dim_value and then dim_param (protobuf keeps the last member):
    # bytes no serializer writes, which a record must not keep with both members set.
    dim = b"\x08\x03" + _field(2, b"B")
    shape = _field(1, dim)
    tensor_type = b"\x08\x01" + _field(2, shape)
    value = _field(1, b"v") + _field(2, _field(1, tensor_type))
    data = _field(7, b"".join(_field(13, value) for _ in range(40)))  # graph.value_info
    mine, theirs = _records(data), onnx.load_model_from_string(data)
    mine_dim = mine.graph.value_info[5].type.tensor_type.shape.dim[0]
    their_dim = theirs.graph.value_info[5].type.tensor_type.shape.dim[0]
    assert mine_dim.WhichOneof("value") == their_dim.WhichOneof("value") == "dim_param"
    assert (mine_dim.dim_value, mine_dim.dim_param) == (their_dim.dim_value, their_dim.dim_param)
    assert wirecodec.encode(mine) == theirs.SerializeToString()
