"""wirecodec.numpy_helper against onnx.numpy_helper: same names, same signatures, same results."""

from __future__ import annotations

import inspect
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import wirecodec
from schema_dsl.onnx import StringStringEntryProto, TensorProto
from wirecodec import numpy_helper as ours
from wirecodec.tensors.dtypes import INFOS

onnx = pytest.importorskip("onnx", reason="onnx.numpy_helper is the reference (test extra)")
pytest.importorskip("ml_dtypes", reason="onnx needs ml_dtypes for its element types")
theirs = onnx.numpy_helper

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DT = TensorProto.DataType

NUMERIC = st.sampled_from(
    [
        "bool",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ]
)
BIG_ENDIAN = st.sampled_from([">i2", ">i4", ">u8", ">f4", ">f8", ">c16"])


def assert_same_array(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype.kind == "O":
        assert got.tolist() == expected.tolist()
    else:
        assert got.tobytes() == expected.tobytes()


@pytest.mark.parametrize(
    "name",
    [
        "to_array",
        "from_array",
        "to_list",
        "from_list",
        "to_dict",
        "from_dict",
        "to_optional",
        "from_optional",
    ],
)
def test_signatures_take_onnxs_arguments(name: str) -> None:
    """Every parameter of onnx's function is ours too, in the same position and kind."""
    mine = list(inspect.signature(getattr(ours, name)).parameters.values())
    reference = list(inspect.signature(getattr(theirs, name)).parameters.values())
    for i, param in enumerate(reference):
        assert mine[i].kind == param.kind and (
            param.kind is param.POSITIONAL_ONLY or mine[i].name == param.name
        )
        assert (mine[i].default is param.empty) == (param.default is param.empty)


@SETTINGS
@given(
    NUMERIC.flatmap(lambda d: hnp.arrays(np.dtype(d), hnp.array_shapes(min_dims=0, max_dims=3, max_side=3))),
    st.text(max_size=4),
)
def test_from_array_and_to_array_match_onnx(array: np.ndarray, name: str) -> None:
    expected = theirs.from_array(array, name)
    tensor = ours.from_array(array, name)
    assert wirecodec.encode(tensor) == expected.SerializeToString()
    assert_same_array(ours.to_array(tensor), theirs.to_array(expected))


@SETTINGS
# (Deliberate difference: onnx's to_array drops trailing NULs of strings; ours keeps them.)
@given(st.lists(st.text(max_size=3).filter(lambda s: not s.endswith("\x00")), max_size=4))
def test_string_arrays_match_onnx(items: list[str]) -> None:
    array = np.array(items, dtype=object)
    expected = theirs.from_array(array)
    assert wirecodec.encode(ours.from_array(array)) == expected.SerializeToString()
    assert_same_array(ours.to_array(ours.from_array(array)), theirs.to_array(expected))


@pytest.mark.parametrize("code", sorted(INFOS), ids=lambda c: DT(c).name)
def test_to_array_of_typed_fields_matches_onnx(code: int) -> None:
    """Tensors with their values in the typed fields (as make_tensor writes them)."""
    values = {DT.STRING: ["a", "bc", ""], DT.BOOL: [True, False, True]}.get(code, [1, 0, 1])
    made = onnx.helper.make_tensor("t", code, [3], values)
    tensor = wirecodec.decode(TensorProto, made.SerializeToString())
    assert_same_array(ours.to_array(tensor), theirs.to_array(made))


def test_to_array_reads_external_data_from_base_dir(tmp_path: Any) -> None:
    payload = np.arange(6, dtype=np.float32)
    (tmp_path / "w.bin").write_bytes(b"\0" * 8 + payload.tobytes())
    entries = [("location", "w.bin"), ("offset", "8"), ("length", str(payload.nbytes))]
    tensor = TensorProto(
        name="w", dims=[2, 3], data_type=DT.FLOAT, data_location=TensorProto.DataLocation.EXTERNAL
    )
    tensor.external_data = [StringStringEntryProto(key=k, value=v) for k, v in entries]
    reference = onnx.TensorProto()
    reference.ParseFromString(wirecodec.encode(tensor))
    assert_same_array(ours.to_array(tensor, str(tmp_path)), theirs.to_array(reference, str(tmp_path)))
    assert len(tensor.external_data) == 3 and not tensor.HasField("raw_data")  # left as it was
    assert ours.to_array(tensor, tmp_path, copy=True).flags.writeable


@SETTINGS
@given(BIG_ENDIAN.flatmap(lambda d: hnp.arrays(np.dtype(d), hnp.array_shapes(max_dims=2, max_side=3))))
def test_big_endian_arrays_are_written_as_their_little_endian_twins(array: np.ndarray) -> None:
    """onnx refuses big-endian arrays; we write what onnx writes for the same values."""
    twin = array.astype(array.dtype.newbyteorder("<"))
    assert wirecodec.encode(ours.from_array(array)) == theirs.from_array(twin).SerializeToString()


def test_to_array_view_and_copy() -> None:
    tensor = ours.from_array(np.array([1.0, 2.0], dtype=np.float32))
    assert not ours.to_array(tensor).flags.writeable  # a view of raw_data
    fresh = ours.to_array(tensor, copy=True)
    fresh[0] = 5.0
    assert ours.to_array(tensor)[0] == 1.0


@SETTINGS
@given(
    (NUMERIC | BIG_ENDIAN).flatmap(
        lambda d: hnp.arrays(np.dtype(d), hnp.array_shapes(max_dims=2, max_side=3))
    )
)
def test_tobytes_little_endian_matches_onnx(array: np.ndarray) -> None:
    assert ours.tobytes_little_endian(array) == theirs.tobytes_little_endian(array)


# -- sequences, maps, optionals --------------------------------------------------------------

_arrays = hnp.arrays(
    np.float32, hnp.array_shapes(min_dims=1, max_dims=2, max_side=3), elements=st.floats(-9, 9, width=32)
)


def _same_python_value(got: Any, expected: Any) -> None:
    if isinstance(expected, np.ndarray):
        assert_same_array(got, expected)
    elif isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _same_python_value(g, e)
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and list(got) == list(expected)
        for key in expected:
            _same_python_value(got[key], expected[key])
    else:
        assert got == expected or (isinstance(expected, float) and math.isnan(expected) and math.isnan(got))


@SETTINGS
@given(
    st.lists(_arrays, max_size=3) | st.lists(st.lists(_arrays, max_size=2), min_size=1, max_size=2),
    st.text(max_size=3),
)
def test_lists_match_onnx(values: list[Any], name: str) -> None:
    expected = theirs.from_list(values, name)
    sequence = ours.from_list(values, name)
    assert wirecodec.encode(sequence) == expected.SerializeToString()
    _same_python_value(ours.to_list(sequence), theirs.to_list(expected))


@SETTINGS
@given(
    st.dictionaries(st.integers(-5, 5), _arrays, min_size=1, max_size=3)
    # onnx's from_dict fails on every str key ("data type 'k' not understood"): integer keys only.
)
def test_dicts_match_onnx(values: dict[Any, Any]) -> None:
    expected = theirs.from_dict(values, "m")
    map_proto = ours.from_dict(values, "m")
    assert wirecodec.encode(map_proto) == expected.SerializeToString()
    _same_python_value(ours.to_dict(map_proto), theirs.to_dict(expected))


@SETTINGS
@given(st.none() | _arrays | st.lists(_arrays, max_size=2))
def test_optionals_match_onnx(value: Any) -> None:
    expected = theirs.from_optional(value, "o")
    optional = ours.from_optional(value, "o")
    assert wirecodec.encode(optional) == expected.SerializeToString()
    _same_python_value(ours.to_optional(optional), theirs.to_optional(expected))
