"""Repeated small sub-messages built from a recipe (wirecodec.protobuf.memo), against decoding them.

Every decoded tree is compared with the one decoded with the memo turned off, in
everything a user or the encoder can see and in what the codec keeps for itself:
attribute order, spans (source offsets), long fields' record spans, view offsets, the
origin's record of non-canonical messages, and both encodings (re-emitted and walked).
The inputs are the onnx package's backend test models, PyTorch exports, and graphs
written by ``onnx.helper``; upb is the oracle for what a change must encode to.
"""

from __future__ import annotations

import mmap
import pathlib
import struct
import types
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl import Message
from schema_dsl.containers import RepeatedContainer
from schema_dsl.message import slot_value
from schema_dsl.onnx import ModelProto, TensorProto
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, pb_class, require_onnx
from tests.support.wire_gen import frame
from wirecodec.errors import LimitError
from wirecodec.protobuf import codec, memo, sparse
from wirecodec.protobuf.lazy import waiting_fields
from wirecodec.protobuf.notes import noting
from wirecodec.protobuf.representation import Representation

_OFFSETS = (1 << 80) - 1
_EMPTY = object()  # an empty slot  # a span without its origin's serial: the two offsets


def _fingerprint(value: Any, base: int) -> Any:
    """Everything about a decoded value, offsets relative to the input (``base``: its address)."""
    if isinstance(value, Message):
        if value._lazy:
            value._load_lazy()
        items: list[tuple[str, Any]] = []
        for name in (*Message.__slots__, *value.__schema__.holder.__slots__):
            item = slot_value(value, name, _EMPTY)
            if item is _EMPTY:
                continue
            if name == "_span":
                items.append((name, None if item is None else item & _OFFSETS))
            elif name == "_x" and item is not None:
                assert not item.lazy  # loaded above
                origin = None if item.origin is None else sorted(item.origin._marks)
                found = (item.owner, item.stubs, _fingerprint(list(item.unknown), base), origin)
                items.append((name, found))
            else:
                items.append((name, _fingerprint(item, base)))
        return type(value).__qualname__, items
    if isinstance(value, RepeatedContainer):
        spans = [getattr(value, slot, None) for slot in ("_span", "_records")]
        spans = [s & _OFFSETS if s is not None else None for s in spans]
        return type(value).__qualname__, spans, [_fingerprint(item, base) for item in value]
    if isinstance(value, float):  # by its bits: a NaN equals itself
        return "float", struct.pack("<d", value)
    if isinstance(value, memoryview):
        address = np.frombuffer(value, np.uint8).ctypes.data if value.nbytes else 0
        return "view", bytes(value), address - base if value.nbytes else None
    return value


def _decode_both(
    data: bytes, cls: type[Message] = ModelProto, every_element: bool = False, **options: Any
) -> tuple[Any, Any]:
    # Awake from the first sub-message: small inputs never wake it otherwise.
    awake = Representation(every_element_waits=every_element, memo="awake")
    with_memo = wirecodec.decode(cls, data, representation=awake, **options)
    off = Representation(every_element_waits=every_element, memo="off")
    without = wirecodec.decode(cls, data, representation=off, **options)
    return with_memo, without


def _assert_same_decode(
    data: bytes, cls: type[Message] = ModelProto, every_element: bool = False, **options: Any
) -> Message:
    with_memo, without = _decode_both(data, cls, every_element, **options)
    base = np.frombuffer(data, np.uint8).ctypes.data if data else 0
    assert _fingerprint(with_memo, base) == _fingerprint(without, base)
    reused = wirecodec.encode(with_memo)
    assert reused == wirecodec.encode(without)
    assert wirecodec.encode(with_memo, reuse_source=False) == reused
    return with_memo


def llm_graph(nodes: int = 240) -> Any:
    """A graph shaped like an exported LLM's, written by onnx.helper: repeated attributes and shapes."""
    require_onnx()
    from onnx import TensorProto as PbTensor
    from onnx import helper, numpy_helper

    shapes: list[list[int | str]] = [["batch", "seq", 4096], ["batch", 32, "seq", 128], [1, 2, 3, 4, 5, 6, 7]]
    made, infos, previous = [], [], "x"
    for i in range(nodes):
        kind = i % 4
        output = f"/layers.{i // 4}/op{kind}/output_0"
        if kind == 0:
            node = helper.make_node("MatMulNBits", [previous], [output], domain="com.microsoft", K=4096)
        elif kind == 1:
            node = helper.make_node("Transpose", [previous], [output], perm=[0, 2, 1, 3])
        elif kind == 2:  # a tensor attribute: raw_data is a view, never copied from a recipe
            node = helper.make_node("Constant", [], [output], value=numpy_helper.from_array(np.arange(4)))
        else:
            node = helper.make_node("Cast", [previous], [output], to=10, saturate=1)
        node.name = f"/layers.{i // 4}/op{kind}"
        made.append(node)
        infos.append(helper.make_tensor_value_info(output, PbTensor.FLOAT16, shapes[i % len(shapes)]))
        previous = output
    graph = helper.make_graph(made, "g", [], [infos.pop()], value_info=infos)
    return helper.make_model(graph)


# -- differential: memo on and off decode the same thing -----------------------------------

# Recipes as interpreted (a decode's first uses) and as compiled (from the first use on).
compiling = pytest.mark.parametrize(
    "compile_after", [memo.COMPILE_AFTER, 1], ids=["interpreted", "compiled"], indirect=True
)


@pytest.fixture
def compile_after(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    value: int = request.param
    monkeypatch.setattr(memo, "COMPILE_AFTER", value)
    return value


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return backend_corpus(cache)


@compiling
@pytest.mark.usefixtures("compile_after")
def test_backend_models_decode_the_same_with_the_memo(corpus: list[CorpusItem]) -> None:
    models = [item for item in corpus if item.message == "ModelProto"]
    assert len(models) > 500
    for item in models:
        _assert_same_decode(item.data)


@compiling
@pytest.mark.usefixtures("compile_after")
def test_backend_models_decode_the_same_with_every_element_deferred(corpus: list[CorpusItem]) -> None:
    for item in corpus[::7]:
        if item.message == "ModelProto":
            _assert_same_decode(item.data, every_element=True)


@compiling
@pytest.mark.usefixtures("compile_after")
def test_pytorch_exports_decode_the_same_with_the_memo(pytorch_exports: list[Export]) -> None:
    for export in pytorch_exports:
        _assert_same_decode(export.data)


@compiling
def test_an_llm_shaped_graph_is_mostly_built_from_recipes(
    compile_after: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = llm_graph().SerializeToString()
    memos: list[memo.Memo] = []

    def keep(buf: Any, how: str = "sleeping") -> memo.Memo | None:
        if how == "off":
            return None  # the decode without a memo _assert_same_decode compares with
        made = memo.Memo()
        memo.wake(made)
        memos.append(made)
        return made

    monkeypatch.setattr(codec, "new_memo", keep)
    model = _assert_same_decode(data)
    [kept] = memos[:1]
    kind = types.FunctionType if compile_after == 1 else tuple  # compiled, or still a recipe
    used = {entry[0].__qualname__ for entry in kept.values() if isinstance(entry[1], kind)}
    refused = {entry[0].__qualname__ for entry in kept.values() if entry[1] is None}
    # The shapes and the plain attributes repeat and were copied; the tensor attribute
    # (its raw_data is a view of the input) was decoded every time.
    assert {"TypeProto", "AttributeProto"} <= used, used
    assert "AttributeProto" in refused
    assert wirecodec.encode(model) == data


def test_the_same_decode_from_a_map_a_memoryview_and_a_bytearray(tmp_path: pathlib.Path) -> None:
    data = llm_graph(60).SerializeToString()
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    expected = wirecodec.encode(wirecodec.decode(ModelProto, data))
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert wirecodec.encode(wirecodec.decode(ModelProto, mapped)) == expected
    assert wirecodec.encode(wirecodec.decode(ModelProto, memoryview(data)[0:])) == expected
    assert wirecodec.encode(wirecodec.decode(ModelProto, bytearray(data))) == expected
    assert wirecodec.encode(wirecodec.load(path)) == expected


# -- copies are messages of their own ---------------------------------------------------------


@compiling
@pytest.mark.usefixtures("compile_after")
def test_changing_a_copy_or_its_template_changes_nothing_else() -> None:
    require_onnx()
    reference = llm_graph()
    data = reference.SerializeToString()
    ours = wirecodec.decode(ModelProto, data)
    theirs = pb_class(ModelProto).FromString(data)
    for model in (ours, theirs):
        infos = model.graph.value_info
        infos[0].type.tensor_type.shape.dim[0].dim_param = "template"  # the first occurrence
        infos[3].type.tensor_type.shape.dim[1].dim_value = 7  # a copy
        infos[6].type.tensor_type.elem_type = 1
        model.graph.node[4].attribute[0].i = 99  # a copy of K=4096
        del model.graph.node[1].attribute[0].ints[1]
    assert [v.type.tensor_type.shape.dim[0].dim_param for v in ours.graph.value_info[:10:3]] == [
        "template",
        "batch",
        "batch",
        "batch",
    ]
    assert ours.graph.node[0].attribute[0].i == 4096
    assert wirecodec.encode(ours) == theirs.SerializeToString()
    assert wirecodec.encode(ours, reuse_source=False) == theirs.SerializeToString()


@compiling
@pytest.mark.usefixtures("compile_after")
def test_a_copy_is_not_the_template() -> None:
    model = wirecodec.decode(ModelProto, llm_graph().SerializeToString())
    first, fourth = model.graph.value_info[0], model.graph.value_info[3]
    assert first.type == fourth.type
    assert first.type is not fourth.type
    assert first.type.tensor_type.shape.dim is not fourth.type.tensor_type.shape.dim
    assert first.type.tensor_type.shape.dim[0] is not fourth.type.tensor_type.shape.dim[0]


# -- limits, merges, non-canonical bytes ------------------------------------------------------


def _deeper_copy_model() -> bytes:
    """The same small type at depth 4 (a value_info) and deeper (inside an If's subgraph)."""
    require_onnx()
    from onnx import TensorProto as PbTensor
    from onnx import helper

    info = helper.make_tensor_value_info("v", PbTensor.FLOAT, ["n", 3])
    inner = helper.make_graph([], "inner", [], [info], value_info=[info])
    node = helper.make_node("If", ["c"], ["v"], then_branch=inner, else_branch=inner)
    graph = helper.make_graph([node], "outer", [], [info], value_info=[info])
    data: bytes = helper.make_model(graph).SerializeToString()
    return data


@compiling
@pytest.mark.usefixtures("compile_after")
@pytest.mark.parametrize("max_depth", range(0, 12))
def test_max_depth_fails_where_decoding_would(max_depth: int) -> None:
    data = _deeper_copy_model()
    outcomes = []
    for turned_off in (False, True):
        try:
            if turned_off:
                off = Representation(memo="off")
                result = wirecodec.decode(ModelProto, data, max_depth=max_depth, representation=off)
            else:
                result = wirecodec.decode(ModelProto, data, max_depth=max_depth)
        except LimitError as exc:
            outcomes.append(("limit", str(exc)))
        else:
            outcomes.append(("ok", wirecodec.encode(result)))
    assert outcomes[0] == outcomes[1]


@compiling
@pytest.mark.usefixtures("compile_after")
def test_a_merge_into_a_template_does_not_reach_its_copies() -> None:
    require_onnx()
    from onnx import TensorProto as PbTensor
    from onnx import helper

    small = helper.make_tensor_type_proto(PbTensor.FLOAT, [2]).SerializeToString()
    other = helper.make_tensor_type_proto(PbTensor.INT64, None).SerializeToString()
    # The first value_info's type is the template, and a second type record merges into
    # it; then the same bytes twice more, and again as a copy merged into.
    infos = [
        frame(1, b"a") + frame(2, small) + frame(2, other),
        frame(1, b"b") + frame(2, small),
        frame(1, b"c") + frame(2, small) + frame(2, other),
        frame(1, b"d") + frame(2, small),
    ]
    graph = b"".join(frame(13, info) for info in infos)
    data = frame(7, graph)
    ours = _assert_same_decode(data)
    theirs = pb_class(ModelProto).FromString(data)
    assert [v.type.tensor_type.elem_type for v in ours.graph.value_info] == [7, 1, 7, 1]
    assert wirecodec.encode(ours) == theirs.SerializeToString()
    # Without an origin (a view of a bytearray: its bytes may change) there are no spans,
    # so no change report refuses the merged template: the memo must forget it.
    unspanned = wirecodec.decode(ModelProto, memoryview(bytearray(data)))
    assert [v.type.tensor_type.elem_type for v in unspanned.graph.value_info] == [7, 1, 7, 1]
    assert wirecodec.encode(unspanned) == theirs.SerializeToString()


def test_non_canonical_repeats_are_decoded_each_time_and_encode_as_protobuf() -> None:
    require_onnx()
    # A dim written with a two-byte varint for 1: the same bytes three times, none canonical.
    dim = b"\x08\x81\x00"
    shape = frame(1, dim) + frame(1, dim)
    tensor_type = b"\x08\x01" + frame(2, shape)
    value_type = frame(1, tensor_type)
    graph = b"".join(frame(13, frame(1, name) + frame(2, value_type)) for name in (b"a", b"b", b"c"))
    data = frame(7, graph)
    ours = _assert_same_decode(data)
    theirs = pb_class(ModelProto).FromString(data)
    assert wirecodec.encode(ours) == theirs.SerializeToString() != data


@compiling
@pytest.mark.usefixtures("compile_after")
def test_tensor_views_point_into_their_own_bytes() -> None:
    data = llm_graph(40).SerializeToString()
    model = wirecodec.decode(ModelProto, data)
    constants = [node.attribute[0].t for node in model.graph.node if node.op_type == "Constant"]
    assert len(constants) == 10
    starts = {np.frombuffer(t.raw_data, np.uint8).ctypes.data for t in constants}
    assert len(starts) == 10  # ten views, each of its own record, though their bytes are equal
    # From a writable buffer: a change to one record's bytes shows in its own view only.
    writable = bytearray(data)
    decoded = wirecodec.decode(ModelProto, writable)
    first, *_, last = [node.attribute[0].t for node in decoded.graph.node if node.op_type == "Constant"]
    before = bytes(first.raw_data)
    address = np.frombuffer(last.raw_data, np.uint8).ctypes.data
    writable[address - np.frombuffer(writable, np.uint8).ctypes.data] ^= 0xFF
    assert bytes(last.raw_data)[0] == before[0] ^ 0xFF
    assert bytes(first.raw_data) == before


def test_the_memo_sleeps_until_one_field_is_long(monkeypatch: pytest.MonkeyPatch) -> None:
    memos: list[memo.Memo] = []

    def keep(buf: Any, how: Any = "sleeping") -> memo.Memo | None:
        made = memo.new_memo(buf, how)  # the one a decode gets: sleeping
        assert made is not None
        memos.append(made)
        return made

    monkeypatch.setattr(codec, "new_memo", keep)
    # A graph this long keeps records (wirecodec.protobuf.records), which have a memo of
    # their own: this is the message decoder's (records off, or graphs without records).
    wirecodec.decode(ModelProto, llm_graph(240).SerializeToString(), records=False)
    assert len(memos[-1]) == 0  # 240 nodes: never woke, nothing remembered
    data = llm_graph(memo.WAKE_AFTER + 200).SerializeToString()
    model = wirecodec.decode(ModelProto, data, records=False)
    kept = memos[-1]
    offsets = [entry[2] for key, entry in kept.items() if isinstance(key, bytes)]
    assert len(offsets) > 10
    # Woke after the field's WAKE_AFTER-th element: nothing before it was remembered.
    woke_at = (model.graph.node[memo.WAKE_AFTER]._span >> 40) & ((1 << 40) - 1)
    assert min(offsets) > woke_at
    # And what it built from recipes after waking is what decoding builds.
    monkeypatch.undo()
    without = wirecodec.decode(ModelProto, data, records=False, representation=Representation(memo="off"))
    base = np.frombuffer(data, np.uint8).ctypes.data
    again = wirecodec.decode(ModelProto, data, records=False)
    assert _fingerprint(again, base) == _fingerprint(without, base)


# -- unit: what the memo refuses and keeps ----------------------------------------------------


def test_offer_keeps_at_most_max_entries() -> None:
    kept = memo.Memo()
    template = TensorProto(name="t")
    for i in range(memo.MAX_ENTRIES + 10):
        memo.offer(kept, i.to_bytes(4, "little"), template, 0, 10)
    assert len(kept) == memo.MAX_ENTRIES


def test_rebuild_wants_the_same_class_and_enough_depth() -> None:
    kept = memo.Memo()
    template = TensorProto(name="t", dims=[2, 3])
    memo.offer(kept, b"k", template, 10, 5)
    entry = kept[b"k"]
    assert memo.rebuild(entry, ModelProto, 20, 5) is None
    assert memo.rebuild(entry, TensorProto, 20, 4) is None
    copy = memo.rebuild(entry, TensorProto, 20, 5)
    assert copy == template and copy is not template and copy.dims is not template.dims


def test_a_compiled_recipe_builds_what_the_interpreted_one_does(monkeypatch: pytest.MonkeyPatch) -> None:
    root = wirecodec.decode(ModelProto, llm_graph(12).SerializeToString())  # kept: its origin lives
    template = root.graph.value_info[1]
    kept = memo.Memo()
    memo.offer(kept, b"k", template, 100, 5)
    interpreted = memo.rebuild(kept[b"k"], type(template), 130, 5)
    monkeypatch.setattr(memo, "COMPILE_AFTER", 1)
    memo.rebuild(kept[b"k"], type(template), 130, 5)  # compiles it
    assert isinstance(kept[b"k"][1], types.FunctionType)
    compiled = memo.rebuild(kept[b"k"], type(template), 130, 5)
    assert _fingerprint(compiled, 0) == _fingerprint(interpreted, 0) != _fingerprint(template, 0)
    spans = [m._span for m in (template, interpreted, compiled)]
    assert spans[1] == spans[2] == spans[0] + 30 * ((1 << 40) + 1)  # both offsets 30 bytes on


def test_a_template_with_unknown_fields_is_refused() -> None:
    template = wirecodec.decode(TensorProto, b"\x08\x02" + frame(15, b"??"))  # field 15: unknown
    kept = memo.Memo()
    memo.offer(kept, b"k", template, 0, 5)
    assert memo.rebuild(kept[b"k"], TensorProto, 9, 5) is None
    assert kept[b"k"][1] is None  # refused once, then decoded every time


# -- notes: what load learns while decoding ---------------------------------------------------


def _external_model() -> ModelProto:
    tensor = TensorProto(name="w", data_type=1, dims=[1], data_location=TensorProto.EXTERNAL)
    tensor.external_data.add(key="location", value="w.bin")
    model = ModelProto()
    model.graph.initializer.append(tensor)
    return model


def test_decoders_and_validators_note_data_location() -> None:
    data = wirecodec.encode(_external_model())
    with noting() as seen:
        wirecodec.decode(ModelProto, data)
    assert (TensorProto, "data_location") in seen
    with noting() as seen:  # the tensor waits: only validated
        model = wirecodec.decode(ModelProto, data, representation=Representation(every_element_waits=True))
    assert waiting_fields(model.graph)
    assert (TensorProto, "data_location") in seen
    with noting() as seen:
        wirecodec.decode(ModelProto, llm_graph(20).SerializeToString())
    assert not seen


def test_load_of_a_model_without_external_data_visits_nothing(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(llm_graph(20).SerializeToString())
    model = wirecodec.load(path)
    attribute = model.graph.node[0].attribute[0]
    # A walk for external tensors would have read (and so stored) its empty repeated fields.
    assert slot_value(attribute, "tensors") is None and slot_value(attribute, "graphs") is None


def test_load_still_resolves_external_data(tmp_path: pathlib.Path) -> None:
    (tmp_path / "w.bin").write_bytes(np.float32(2.5).tobytes())
    path = tmp_path / "m.onnx"
    path.write_bytes(wirecodec.encode(_external_model()))
    model = wirecodec.load(path)
    assert wirecodec.to_array(model.graph.initializer[0]).tolist() == [2.5]


# -- sparse: the payload walk stops once its answer cannot be used ---------------------------


def test_payload_walk_gives_up_when_payloads_cannot_reach_what_is_asked(tmp_path: pathlib.Path) -> None:
    big = TensorProto(name="w", data_type=2, dims=[1 << 17], raw_data=bytes(1 << 17))
    model = ModelProto()
    model.graph.initializer.append(big)
    for i in range(2000):
        model.graph.node.add(op_type="Relu", name=f"n{i}", input=[f"a{i}"], output=[f"b{i}"])
    data = wirecodec.encode(model)
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    with path.open("rb") as file:
        everything = sparse.payload_ranges(file.fileno(), len(data), ModelProto)
        assert everything is not None and len(everything) == 1
        payload = everything[0][1] - everything[0][0]
        assert sparse.payload_ranges(file.fileno(), len(data), ModelProto, at_least=payload) == everything
        assert sparse.payload_ranges(file.fileno(), len(data), ModelProto, at_least=payload + 1) is None


@pytest.mark.parametrize("how", ["sleeping", "awake", "off"])
def test_a_decode_gets_the_memo_its_representation_asks_for(
    how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    made: list[memo.Memo | None] = []
    real = memo.new_memo

    def spy(buf: Any, asked: Any = "sleeping") -> memo.Memo | None:
        made.append(real(buf, asked))
        return made[-1]

    monkeypatch.setattr(codec, "new_memo", spy)
    data = llm_graph(20).SerializeToString()  # 20 nodes: far below WAKE_AFTER
    model = wirecodec.decode(ModelProto, data, representation=Representation(memo=how))  # type: ignore[arg-type]
    [kept] = made
    if how == "off":
        assert kept is None
    else:
        assert kept is not None
        assert bool(kept) is (how == "awake")  # awake: remembering; asleep: empty
    assert wirecodec.encode(model) == data
