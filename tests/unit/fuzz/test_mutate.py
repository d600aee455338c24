"""mutate: deterministic, well-formed unless asked, within max_size, and each ONNX move does its job."""

from __future__ import annotations

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec.errors import DecodeError, LimitError
from wirecodec.examples.build_mlp import build
from wirecodec.fuzz import MOVE_NAMES, mutate, rewrite
from wirecodec.fuzz.onnx_moves import ONNX_MOVES
from wirecodec.protobuf.codec import decode, encode
from wirecodec.protobuf.rewrite.apply import UnknownKindError
from wirecodec.protobuf.rewrite.moves import MOVES
from wirecodec.protobuf.walk import walk


def _model() -> ModelProto:
    model = build()
    branch = GraphProto(name="b", node=[NodeProto(op_type="Neg", input=["x"], output=["z"])])
    model.graph.node.append(
        NodeProto(
            op_type="If",
            input=["c"],
            output=["u"],
            attribute=[AttributeProto(name="then_branch", type=AttributeProto.AttributeType.GRAPH, g=branch)],
        )
    )
    return model


DATA = _model().SerializeToString()


def test_the_moves_are_libprotobuf_mutators_five_and_the_onnx_ones() -> None:
    assert set(MOVES) == {"add", "delete", "mutate", "copy", "clone"}
    assert set(MOVE_NAMES) == set(MOVES) | set(ONNX_MOVES)
    assert all(MOVE_NAMES.values())


def test_mutate_is_deterministic_and_varied() -> None:
    outputs = [mutate(DATA, seed=seed) for seed in range(40)]
    assert outputs == [mutate(DATA, seed=seed) for seed in range(40)]
    assert len(set(outputs)) > 30


def _depth_ok(out: bytes, max_depth: int = 100) -> ModelProto | None:
    try:
        return decode(ModelProto, out, max_depth=max_depth)
    except LimitError:  # deep_nesting past 100 levels on purpose
        return None


@pytest.mark.parametrize("move", list(MOVE_NAMES))
def test_every_move_keeps_the_wire_well_formed(move: str) -> None:
    changed = 0
    for seed in range(15):
        out = mutate(DATA, seed=seed, moves=[move])
        changed += out != DATA
        model = _depth_ok(out)
        if model is not None:
            assert encode(decode(ModelProto, encode(model))) == encode(model)
    assert changed >= 10, move


def test_valid_enums_keep_every_enum_declared_and_the_option_lets_others_in() -> None:
    def unknown_anywhere(out: bytes) -> bool:
        model = decode(ModelProto, out)
        before = encode(model)
        model.DiscardUnknownFields()
        return encode(model) != before

    assert not any(unknown_anywhere(mutate(DATA, seed=s, moves=["add", "mutate"])) for s in range(60))
    assert any(
        unknown_anywhere(mutate(DATA, seed=s, moves=["add", "mutate"], valid_enums=False)) for s in range(200)
    )


def test_max_size_is_respected() -> None:
    for seed in range(20):
        assert (
            len(mutate(DATA, seed=seed, max_size=len(DATA) // 2, moves=["add", "clone", "delete"]))
            <= len(DATA) // 2
        )


def test_well_formed_false_lets_malformed_records_in() -> None:
    refused = 0
    for seed in range(30):
        try:
            decode(ModelProto, mutate(DATA, seed=seed, well_formed=False))
        except DecodeError:
            refused += 1
    assert 5 <= refused < 30


def test_an_unknown_move_is_refused() -> None:
    with pytest.raises(UnknownKindError):
        mutate(DATA, seed=0, moves=["teleport"])


def test_mutate_then_rewrite_reads_back_equal() -> None:
    for seed in range(30):
        mutated = mutate(DATA, seed=seed)
        # Unknown groups count as levels: a model near protobuf's limit may cross it.
        model = _depth_ok(mutated, max_depth=96)
        if model is None:
            continue
        again = decode(ModelProto, rewrite(mutated, seed=seed))
        again.DiscardUnknownFields()
        model.DiscardUnknownFields()
        assert encode(again) == encode(model), seed


def _after(move: str, seed: int) -> ModelProto:
    out = mutate(DATA, seed=seed, moves=[move])
    return decode(ModelProto, out, max_depth=300)


def _nodes(model: ModelProto) -> list[NodeProto]:
    return [site.message for site in walk(model, (NodeProto,)) if isinstance(site.message, NodeProto)]


def _names_defined(model: ModelProto) -> set[str]:
    graph = model.graph
    names = {v.name for v in graph.input} | {t.name for t in graph.initializer}
    for node in _nodes(model):
        names.update(node.output)
    return names | {"c"}


def test_dangling_input_names_something_nothing_defines() -> None:
    model = _after("dangling_input", 1)
    used = {name for node in _nodes(model) for name in node.input}
    assert any(name.startswith("dangling_") and name not in _names_defined(model) for name in used)


def test_orphan_output_is_produced_by_no_node() -> None:
    model = _after("orphan_output", 2)
    graphs = [site.message for site in walk(model, (GraphProto,)) if isinstance(site.message, GraphProto)]
    outputs = {o.name for graph in graphs for o in graph.output}
    assert any(name.startswith("orphan_") and name not in _names_defined(model) for name in outputs)


_WIDTH: dict[int, int] = {int(TensorProto.DataType.FLOAT): 4, int(TensorProto.DataType.INT64): 8}


def test_dims_vs_raw_data_disagree() -> None:
    for seed in range(10):
        model = _after("dims_vs_raw_data", seed)
        mismatched = []
        for site in walk(model, (TensorProto,)):
            tensor = site.message
            if not isinstance(tensor, TensorProto):
                continue
            if tensor.HasField("raw_data") and tensor.data_type in _WIDTH:
                count = 1
                for d in tensor.dims:
                    count *= d
                mismatched.append(count * _WIDTH[tensor.data_type] != len(tensor.raw_data))
        assert any(mismatched), seed


def test_retype_data_changes_a_data_type() -> None:
    before = [t.data_type for t in _model().graph.initializer]
    assert any([t.data_type for t in _after("retype_data", s).graph.initializer] != before for s in range(5))


def test_odd_external_data_points_outside() -> None:
    model = _after("odd_external_data", 3)
    external = [
        site.message
        for site in walk(model, (TensorProto,))
        if isinstance(site.message, TensorProto) and site.message.data_location == 1
    ]
    assert external and all(len(t.external_data) >= 1 for t in external)


def test_deep_nesting_goes_past_protobufs_limit_only_when_not_well_formed() -> None:
    # Well formed, the chain is cut at the parsers' limit; with well_formed=False, some seeds
    # nest past it (upb and wirecodec refuse those), as the move's doc says.
    depths = set()
    for seed in range(12):
        decode(ModelProto, mutate(DATA, seed=seed, moves=["deep_nesting"]))
        try:
            decode(ModelProto, mutate(DATA, seed=seed, moves=["deep_nesting"], well_formed=False))
            depths.add("within")
        except LimitError:
            depths.add("past")
        except DecodeError:
            depths.add("malformed")
    assert {"within", "past"} <= depths


def _deepest(data: bytes) -> int:
    """How many levels below the top message the deepest sub-message lies (the top: 0)."""
    from wirecodec.protobuf.rewrite.records import Nested, parse

    stack = [(parse(data, ModelProto), 0)]
    deepest = 0
    while stack:
        records, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((r.records, depth + 1) for r in records if isinstance(r, Nested))
    return deepest


def _bundled_and_others() -> list[bytes]:
    from tests.support import odd_models

    return [
        build().SerializeToString(),
        DATA,
        encode(odd_models.weights_model(width=4)),
        encode(_nested_ifs(30)),
    ]


def _nested_ifs(count: int) -> ModelProto:
    """``count`` Ifs each in the then_branch of the next: three levels each, 91 deep at 30."""
    inner = GraphProto(name="leaf", node=[NodeProto(op_type="Neg", input=["x"], output=["y"])])
    for level in range(count):
        branch = AttributeProto(name="then_branch", type=AttributeProto.AttributeType.GRAPH, g=inner)
        inner = GraphProto(
            name=f"g{level}",
            node=[NodeProto(op_type="If", input=["c"], output=[f"o{level}"], attribute=[branch])],
        )
    return ModelProto(ir_version=8, graph=inner)


_MODELS = _bundled_and_others()


@pytest.mark.parametrize("seed", [24, 26])
@pytest.mark.parametrize("which", range(len(_MODELS)))
def test_the_seeds_that_nested_too_deep_no_longer_do(seed: int, which: int) -> None:
    out = mutate(_MODELS[which], seed=seed)
    assert _deepest(out) <= 100
    decode(ModelProto, out, lazy=False)  # max_depth 100, as protobuf's default


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    which=st.integers(0, len(_MODELS) - 1),
    moves=st.sampled_from([None, ["clone"], ["clone", "copy"], ["deep_nesting"]]),
)
def test_well_formed_mutations_never_nest_past_the_parsers_limit(
    seed: int, which: int, moves: list[str] | None
) -> None:
    out = mutate(_MODELS[which], seed=seed, moves=moves)
    assert _deepest(out) <= 100, seed
    decode(ModelProto, out, lazy=False)


def test_wrong_attribute_type_disagrees_with_the_value() -> None:
    model = _after("wrong_attribute_type", 4)
    attribute = next(a for node in _nodes(model) for a in node.attribute)
    assert attribute.type != AttributeProto.AttributeType.GRAPH


def test_raw_float_helper_in_this_file_is_little_endian() -> None:
    assert struct.pack("<f", 1.0) == b"\x00\x00\x80?"
