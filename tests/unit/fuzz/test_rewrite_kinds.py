"""Each rewrite kind does what it says on a small message, keeps the message, and is deterministic.

The corpus-wide proof against protobuf is tests/differential/test_fuzz_rewrite_corpus.py;
here each kind's own effect is looked for in the records it writes.
"""

from __future__ import annotations

import collections
from collections.abc import Callable

import pytest

from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    TensorProto,
    TensorShapeProto,
)
from wirecodec.errors import WireCodecError
from wirecodec.fuzz import REWRITES, rewrite
from wirecodec.protobuf.rewrite.apply import UnknownKindError
from wirecodec.protobuf.rewrite.records import Nested, Packed, Raw, Record, levels, parse


def _model() -> ModelProto:
    weight = TensorProto(name="w", dims=[2, 2], data_type=1, float_data=[1.0, 2.0, 3.0, 4.0])
    body = GraphProto(name="body", node=[NodeProto(op_type="Neg", input=["a"], output=["b"])])
    node = NodeProto(
        op_type="If",
        input=["c"],
        output=["y"],
        attribute=[
            AttributeProto(name="then_branch", type=5, g=body),
            AttributeProto(name="ints", type=7, ints=[1, 2, 3]),
            AttributeProto(name="value", type=4, t=weight),
        ],
    )
    shape = TensorShapeProto(
        dim=[TensorShapeProto.Dimension(dim_value=4), TensorShapeProto.Dimension(dim_param="N")]
    )
    graph = GraphProto(name="g", node=[node], initializer=[weight])
    graph.input.add(name="c").type.tensor_type.shape.CopyFrom(shape)
    return ModelProto(ir_version=9, producer_name="test", graph=graph)


DATA = _model().SerializeToString()
SEEDS = range(8)


def _all_records(data: bytes) -> list[tuple[Record, type]]:
    return [(r, cls) for level, cls in levels(parse(data, ModelProto), ModelProto) for r in level]


@pytest.mark.parametrize("name", list(REWRITES))
def test_each_kind_changes_the_bytes_and_keeps_the_message(name: str) -> None:
    outputs = {rewrite(DATA, seed=seed, kinds=[name]) for seed in SEEDS}
    assert DATA not in outputs or len(outputs) > 1
    for out in outputs:
        decoded = ModelProto.FromString(out)
        decoded.DiscardUnknownFields()
        assert decoded == _model(), name


@pytest.mark.parametrize("name", list(REWRITES))
def test_each_kind_is_deterministic_for_a_seed(name: str) -> None:
    assert rewrite(DATA, seed=5, kinds=[name]) == rewrite(DATA, seed=5, kinds=[name])


@pytest.mark.parametrize("name", list(REWRITES))
def test_each_kind_cites_where_protobuf_allows_it(name: str) -> None:
    doc = REWRITES[name].doc
    assert "Encoding guide" in doc or "Language Guide" in doc, name
    assert "onformance" in doc, name


def _count(data: bytes, predicate: Callable[[Record, type], bool]) -> int:
    return sum(1 for record, cls in _all_records(data) if predicate(record, cls))


def _number(record: Record) -> int:
    return 0 if isinstance(record, Raw) else record.number


def test_unpack_writes_one_record_per_value() -> None:
    out = rewrite(DATA, seed=1, kinds=["unpack"])
    assert _count(DATA, lambda r, c: isinstance(r, Packed)) == 2
    assert _count(out, lambda r, c: isinstance(r, Packed)) < 2
    assert _count(out, lambda r, c: c is TensorProto and _number(r) == 4) > 2  # float_data, value by value


def test_pack_writes_unpacked_runs_as_packed_records() -> None:
    out = rewrite(DATA, seed=1, kinds=["pack"])
    packed_numbers = {(c.__name__, r.number) for r, c in _all_records(out) if isinstance(r, Packed)}
    assert ("TensorProto", 1) in packed_numbers or ("AttributeProto", 8) in packed_numbers  # dims, ints


def test_split_packed_writes_several_records_of_one_run() -> None:
    out = rewrite(DATA, seed=2, kinds=["split_packed"])
    per_level = [
        collections.Counter(r.number for r in level if isinstance(r, Packed))
        for level, _ in levels(parse(out, ModelProto), ModelProto)
    ]
    assert any(n >= 2 for counter in per_level for n in counter.values())


def test_last_wins_gives_a_singular_field_earlier_values() -> None:
    out = rewrite(DATA, seed=3, kinds=["last_wins"])
    top = collections.Counter(_number(r) for r in parse(out, ModelProto))
    node_levels = [
        level for level, cls in levels(parse(out, ModelProto), ModelProto) if cls is not ModelProto
    ]
    repeated_singular = any(n > 1 for n in top.values() if n) or any(
        collections.Counter(_number(r) for r in level if not isinstance(r, Nested)).most_common(1)[0][1] > 1
        for level in node_levels
        if any(not isinstance(r, Nested) for r in level)
    )
    assert repeated_singular


def test_last_wins_reaches_oneof_members() -> None:
    # Dimension.value is a oneof (dim_value, dim_param): an earlier value of either, then the last.
    dim = TensorShapeProto.Dimension(dim_param="N").SerializeToString()
    for seed in range(20):
        out = rewrite(dim, seed=seed, message=TensorShapeProto.Dimension, kinds=["last_wins"])
        assert TensorShapeProto.Dimension.FromString(out) == TensorShapeProto.Dimension(dim_param="N")


def test_split_message_writes_a_singular_sub_message_in_pieces() -> None:
    out = rewrite(DATA, seed=4, kinds=["split_message"])
    graphs = [r for r in parse(out, ModelProto) if isinstance(r, Nested) and r.number == 7]
    assert len(graphs) >= 2 or _count(out, lambda r, c: isinstance(r, Nested)) > _count(
        DATA, lambda r, c: isinstance(r, Nested)
    )


def test_overlong_varint_pads_values_up_to_ten_bytes() -> None:
    small = TensorProto(data_type=1).SerializeToString()  # b"\x10\x01": tag, one-byte value
    widths = set()
    for seed in range(20):
        out = rewrite(small, seed=seed, message=TensorProto, kinds=["overlong_varint"])
        assert out[0] == 0x10 and all(b & 0x80 for b in out[1:-1]) and out[-1] == 0
        assert TensorProto.FromString(out).data_type == 1
        widths.add(len(out) - 1)
    assert widths <= set(range(2, 11)) and len(widths) > 3


def test_padded_length_lengthens_prefixes_to_at_most_five_bytes() -> None:
    small = TensorProto(name="w").SerializeToString()  # b"\x42\x01w"
    widths = set()
    for seed in range(20):
        out = rewrite(small, seed=seed, message=TensorProto, kinds=["padded_length"])
        assert out[0] == 0x42 and out[-1:] == b"w" and out[-2] == 0 and out[1] == 0x81
        widths.add(len(out) - 2)
    assert widths <= set(range(2, 6)) and len(widths) > 1


def test_unknown_fields_are_kept_as_unknown_fields() -> None:
    out = rewrite(DATA, seed=7, kinds=["unknown_fields"])
    decoded = ModelProto.FromString(out)
    with_unknown = decoded.SerializeToString()
    decoded.DiscardUnknownFields()
    assert decoded == _model() and len(with_unknown) > len(DATA)


def test_no_kinds_means_a_mix_chosen_by_the_seed() -> None:
    outputs = {rewrite(DATA, seed=seed) for seed in range(10)}
    assert len(outputs) == 10


def test_an_unknown_kind_is_refused_with_the_names_to_choose_from() -> None:
    with pytest.raises(UnknownKindError, match="reorder") as info:
        rewrite(DATA, seed=0, kinds=["shuffle"])
    assert isinstance(info.value, WireCodecError) and isinstance(info.value, ValueError)
