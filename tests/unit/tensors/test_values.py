"""Sequences, maps and optionals ↔ Python values, with onnx.numpy_helper as the judge.

Differential parts skip, with a reason, when onnx is not installed.
"""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from schema_dsl.onnx import MapProto, OptionalProto, SequenceProto, SparseTensorProto, TensorProto
from tests.support.reference import CorpusItem, backend_corpus, message_class
from wirecodec import decode, encode
from wirecodec.errors import TensorError
from wirecodec.tensors import from_array
from wirecodec.tensors.values import from_dict, from_list, from_optional, to_dict, to_list, to_optional

Elem = SequenceProto.DataType
DT = TensorProto.DataType


def require_onnx() -> Any:
    return pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def assert_same_value(mine: Any, theirs: Any, where: str = "value") -> None:
    """Deep equality; arrays equal bit for bit (dtype, shape, bytes), dict keys in order."""
    if isinstance(theirs, np.ndarray):
        assert isinstance(mine, np.ndarray), f"{where}: {type(mine).__name__} is not an array"
        assert mine.dtype == theirs.dtype and mine.shape == theirs.shape, where
        if theirs.dtype == object:
            assert mine.tolist() == theirs.tolist(), where
        else:
            assert mine.tobytes() == theirs.tobytes(), where
    elif isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs), where
        for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            assert_same_value(a, b, f"{where}[{i}]")
    elif isinstance(theirs, dict):
        assert isinstance(mine, dict) and list(mine) == list(theirs), where
        for key in theirs:
            assert_same_value(mine[key], theirs[key], f"{where}[{key!r}]")
    else:
        assert mine is None and theirs is None, f"{where}: {mine!r} != {theirs!r}"


def f32(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# Python values onnx's from_* functions accept, with the numpy_helper function to use.
SEQUENCES: list[tuple[str, list[Any], int | None]] = [
    ("tensors", [f32(1, 2), f32(), np.array(3, dtype=np.int64)], None),
    ("scalars", [1, 2, 3], None),
    ("strings", [np.array(["a", "bc"], dtype=object)], None),
    ("empty", [], None),
    ("empty-of-maps", [], Elem.MAP),
    ("nested", [[f32(1)], [], [f32(2, 3), f32(4)]], None),
    ("maps", [{1: f32(1)}, {2: f32(2), 3: f32(3)}], None),
    ("int8", [np.array([-1, 5], dtype=np.int8)], None),
]
DICTS: list[tuple[str, dict[Any, Any]]] = [
    ("int64", {1: f32(1.0), -7: f32(2.0, 3.0)}),
    ("int8", {np.int8(1): np.array([1.0]), np.int8(-2): np.array([2.0])}),
    (
        "uint64",
        {np.uint64(2**63 - 1): np.array(1, dtype=np.int32), np.uint64(0): np.array(2, dtype=np.int32)},
    ),
    ("floats", {1: 1.0, 2: 2.0}),
]
OPTIONALS: list[tuple[str, Any, int | None]] = [
    ("none", None, None),
    ("empty-tensor", None, Elem.TENSOR),
    ("empty-sequence", None, Elem.SEQUENCE),
    ("tensor", f32(1, 2, 3), None),
    ("sequence", [f32(1), f32(2)], None),
    ("empty-list", [], None),
    ("map", {5: f32(1)}, None),
]


@pytest.mark.parametrize(("label", "values", "dtype"), SEQUENCES, ids=[c[0] for c in SEQUENCES])
def test_from_list_like_onnx(label: str, values: list[Any], dtype: int | None) -> None:
    require_onnx()
    from onnx import numpy_helper

    for name in ("seq", None):
        expected = numpy_helper.from_list(values, name, dtype).SerializeToString()
        assert encode(from_list(values, name, dtype)) == expected, label
        theirs = numpy_helper.to_list(numpy_helper.from_list(values, name, dtype))
        assert_same_value(to_list(decode(SequenceProto, expected)), theirs, label)


@pytest.mark.parametrize(("label", "values"), DICTS, ids=[c[0] for c in DICTS])
def test_from_dict_like_onnx(label: str, values: dict[Any, Any]) -> None:
    require_onnx()
    from onnx import numpy_helper

    expected = numpy_helper.from_dict(values, "m").SerializeToString()
    assert encode(from_dict(values, "m")) == expected, label
    theirs = numpy_helper.to_dict(numpy_helper.from_dict(values, "m"))
    assert_same_value(to_dict(decode(MapProto, expected)), theirs, label)


@pytest.mark.parametrize(("label", "value", "dtype"), OPTIONALS, ids=[c[0] for c in OPTIONALS])
def test_from_optional_like_onnx(label: str, value: Any, dtype: int | None) -> None:
    require_onnx()
    from onnx import numpy_helper

    for name in ("opt", None):
        expected = numpy_helper.from_optional(value, name, dtype).SerializeToString()
        assert encode(from_optional(value, name, dtype)) == expected, label
        mine = to_optional(decode(OptionalProto, expected))
        if value is None:
            assert mine is None  # onnx's to_optional fails on a typed empty optional
        else:
            theirs = numpy_helper.to_optional(numpy_helper.from_optional(value, name, dtype))
            assert_same_value(mine, theirs, label)


def test_string_keys() -> None:
    # onnx's own from_dict cannot take string keys (numpy reads a str as a dtype name),
    # so the reference is a MapProto built field by field.
    onnx = require_onnx()
    from onnx import numpy_helper

    values = [f32(1), f32(2)]
    expected = onnx.MapProto(
        name="m", key_type=onnx.TensorProto.STRING, string_keys=[b"a", "é".encode()],
        values=numpy_helper.from_list(values),
    )  # fmt: skip
    data = expected.SerializeToString()
    assert encode(from_dict({"a": values[0], "é": values[1]}, "m")) == data
    assert encode(from_dict({b"a": values[0], "é".encode(): values[1]}, "m")) == data
    assert_same_value(to_dict(decode(MapProto, data)), numpy_helper.to_dict(expected))
    assert list(to_dict(decode(MapProto, data))) == [b"a", "é".encode()]


def test_values_round_trip_without_onnx() -> None:
    nested = [[f32(1)], [f32(2, 3), np.array(["x"], dtype=object)]]
    assert_same_value(to_list(decode(SequenceProto, encode(from_list(nested)))), nested)
    mapping = {3: [f32(1)], 4: [f32(2)]}
    assert_same_value(to_dict(decode(MapProto, encode(from_dict(mapping)))), mapping)
    # beyond onnx: optionals inside sequences and optionals
    optionals = [f32(1), None]
    seq = from_list(optionals, dtype=Elem.OPTIONAL)
    assert seq.elem_type == Elem.OPTIONAL and len(seq.optional_values) == 2
    assert_same_value(to_list(decode(SequenceProto, encode(seq))), optionals)
    inner = from_optional(f32(5), dtype=OptionalProto.DataType.OPTIONAL)
    assert inner.optional_value.elem_type == Elem.TENSOR
    assert_same_value(to_optional(decode(OptionalProto, encode(inner))), f32(5))


def test_to_list_passes_copy_on() -> None:
    buffer = bytearray(encode(from_list([f32(1, 2)])))
    view = to_list(decode(SequenceProto, buffer))[0]
    assert not view.flags.writeable and np.shares_memory(view, np.frombuffer(buffer, dtype=np.uint8))
    owned = to_list(decode(SequenceProto, buffer), copy=True)[0]
    assert owned.flags.writeable and not np.shares_memory(owned, np.frombuffer(buffer, dtype=np.uint8))


def test_empty_map_reads_as_empty_dict() -> None:
    assert to_dict(MapProto(key_type=DT.INT64)) == {}


def test_to_optional_with_absent_value_is_none() -> None:
    for elem in (Elem.TENSOR, Elem.SEQUENCE, Elem.MAP, Elem.OPTIONAL):
        assert to_optional(OptionalProto(elem_type=elem)) is None


# -- errors ------------------------------------------------------------------------------------


def test_malformed_sequences() -> None:
    with pytest.raises(TensorError, match="UNDEFINED is not a valid element type"):
        to_list(SequenceProto(name="s"))
    with pytest.raises(TensorError, match=r"'s'.*9 is not a valid"):
        to_list(SequenceProto(name="s", elem_type=9))
    stray = SequenceProto(elem_type=Elem.TENSOR, map_values=[MapProto()])
    with pytest.raises(TensorError, match="map_values holds values"):
        to_list(stray)
    sparse = SequenceProto(elem_type=Elem.SPARSE_TENSOR, sparse_tensor_values=[SparseTensorProto()])
    with pytest.raises(TensorError, match="sparse"):
        to_list(sparse)
    bad_tensor = SequenceProto(elem_type=Elem.TENSOR, tensor_values=[TensorProto(name="t", dims=[-1])])
    with pytest.raises(TensorError, match="'t'"):
        to_list(bad_tensor)


def test_malformed_maps() -> None:
    values = from_list([f32(1)])
    with pytest.raises(TensorError, match="1 keys but 2 values"):
        to_dict(MapProto(key_type=DT.INT64, keys=[1], values=from_list([f32(1), f32(2)])))
    with pytest.raises(TensorError, match="key_type 1 is not"):
        to_dict(MapProto(name="m", key_type=DT.FLOAT, keys=[1], values=values))
    with pytest.raises(TensorError, match="string_keys holds keys"):
        to_dict(MapProto(key_type=DT.INT64, keys=[1], string_keys=[b"a"], values=values))
    with pytest.raises(TensorError, match="keys holds keys"):
        to_dict(MapProto(key_type=DT.STRING, keys=[1], string_keys=[b"a"], values=values))


def test_malformed_optionals() -> None:
    with pytest.raises(TensorError, match="9 is not a valid"):
        to_optional(OptionalProto(elem_type=9))
    with pytest.raises(TensorError, match="map_value is set"):
        to_optional(OptionalProto(elem_type=Elem.TENSOR, map_value=MapProto(key_type=DT.INT64)))
    with pytest.raises(TensorError, match="tensor_value is set"):
        to_optional(OptionalProto(tensor_value=from_array(f32(1))))
    sparse = OptionalProto(elem_type=Elem.SPARSE_TENSOR, sparse_tensor_value=SparseTensorProto(dims=[1]))
    with pytest.raises(TensorError, match="sparse"):
        to_optional(sparse)


def test_bad_python_values() -> None:
    with pytest.raises(TypeError, match="same type"):
        from_list([f32(1), 2])
    with pytest.raises(TypeError, match="cannot build a sequence of SPARSE_TENSOR"):
        from_list([f32(1)], dtype=Elem.SPARSE_TENSOR)
    with pytest.raises(ValueError, match="empty dict"):
        from_dict({})
    with pytest.raises(TypeError, match="bool"):
        from_dict({True: f32(1)})
    with pytest.raises(TypeError, match="integers or strings"):
        from_dict({1.5: f32(1)})
    with pytest.raises(TypeError, match="keys of a map"):
        from_dict({1: f32(1), np.int8(2): f32(2)})
    with pytest.raises(TypeError, match="keys of a map"):
        from_dict({1: f32(1), "a": f32(2)})
    with pytest.raises(TypeError, match="values of a map"):
        from_dict({1: f32(1), 2: np.array([1], dtype=np.int64)})
    with pytest.raises(TypeError, match="integers or strings, got float32"):
        from_dict({np.float32(1): f32(1)})
    with pytest.raises(ValueError, match="fit in int64"):
        from_dict({np.uint64(2**64 - 1): f32(1)})
    with pytest.raises(TypeError, match=r"not an OptionalProto\.DataType"):
        from_optional(f32(1), dtype=17)
    with pytest.raises(TypeError, match="cannot build an optional of SPARSE_TENSOR"):
        from_optional(f32(1), dtype=Elem.SPARSE_TENSOR)


# -- properties --------------------------------------------------------------------------------

# A value kind is ("tensor", dtype), ("seq", kind) or ("map", kind); values of one kind
# are homogeneous, as sequences and maps require.
_kinds = st.recursive(
    st.sampled_from([np.float32, np.int64]).map(lambda dtype: ("tensor", dtype)),
    lambda inner: st.tuples(st.sampled_from(["seq", "map"]), inner),
    max_leaves=3,
)


def _of_kind(kind: tuple[str, Any]) -> st.SearchStrategy[Any]:
    tag, inner = kind
    if tag == "tensor":
        return hnp.arrays(inner, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
    if tag == "seq":
        return st.lists(_of_kind(inner), max_size=3)
    return st.dictionaries(st.integers(-5, 5), _of_kind(inner), min_size=1, max_size=3)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_kinds.flatmap(lambda kind: st.lists(_of_kind(kind), max_size=3)))
def test_nested_values_round_trip(value: list[Any]) -> None:
    assert_same_value(to_list(decode(SequenceProto, encode(from_list(value)))), value)
    assert_same_value(to_optional(decode(OptionalProto, encode(from_optional(value)))), value)
    if value and isinstance(value[0], dict):
        assert_same_value(to_dict(decode(MapProto, encode(from_dict(value[0])))), value[0])


# -- the onnx backend corpus -----------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    # getattr: with ``-p no:cacheprovider`` the config has no cache at all.
    cache_provider = getattr(request.config, "cache", None)
    cache = pathlib.Path(str(cache_provider.mkdir("onnx-corpus"))) if cache_provider is not None else None
    return backend_corpus(cache)


@pytest.mark.slow
def test_corpus_values_match_onnx(corpus: list[CorpusItem]) -> None:
    onnx = require_onnx()
    from onnx import numpy_helper

    convert = {
        "SequenceProto": (to_list, numpy_helper.to_list, onnx.SequenceProto),
        "OptionalProto": (to_optional, numpy_helper.to_optional, onnx.OptionalProto),
        "MapProto": (to_dict, numpy_helper.to_dict, onnx.MapProto),
    }
    checked = 0
    for item in corpus:
        if item.message not in convert:
            continue
        ours, theirs, pb = convert[item.message]
        reference = pb()
        reference.ParseFromString(item.data)
        mine = ours(decode(message_class(item.message), item.data))  # type: ignore[operator]
        if item.message == "OptionalProto" and reference.elem_type == 0:
            assert mine is None
        else:
            assert_same_value(mine, theirs(reference), item.name)
        checked += 1
    assert checked > 50
