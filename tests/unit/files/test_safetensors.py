"""safetensors as an external-data layout: written by us, read by ``safetensors`` and onnxruntime.

Differential where it can be: the ``safetensors`` package reads the files we write
(``deserialize`` for every dtype, ``numpy.load_file`` for the numpy ones), files it
writes are attached and loaded by us, and onnxruntime runs a model whose weights live
in a safetensors file with the outputs of the single-file model (one file, two runtimes).
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import wirecodec
from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    TensorProto,
)
from wirecodec.cli import main
from wirecodec.errors import ExternalDataError
from wirecodec.examples.build_mlp import build
from wirecodec.files.convert import convert_to_safetensors
from wirecodec.files.safetensors.attach import attach
from wirecodec.files.safetensors.format import (
    ONNX_TYPES,
    byte_size,
    encode_header,
    layout,
    parse_header,
    read_header,
)
from wirecodec.files.safetensors.names import named_tensors
from wirecodec.files.safetensors.save import save_safetensors
from wirecodec.files.save import SaveOptions

safetensors = pytest.importorskip(
    "safetensors", reason="the safetensors package is the reference (test extra)"
)
st_numpy = pytest.importorskip("safetensors.numpy")

ROOT = pathlib.Path(__file__).resolve().parents[3]
DataType = TensorProto.DataType
NUMPY_DTYPES = {"F64", "F32", "F16", "I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8", "BOOL", "C64"}


def _tensor(name: str, data_type: int, dims: list[int], raw: bytes) -> TensorProto:
    return TensorProto(name=name, data_type=data_type, dims=dims, raw_data=raw)


def _model(initializers: list[TensorProto], nodes: list[NodeProto] | None = None) -> ModelProto:
    graph = GraphProto(name="g", initializer=initializers, node=nodes or [])
    return ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)


def _raw_for(dtype: str, count: int, seed: int) -> bytes:
    bits = ONNX_TYPES[dtype][1]
    rng = np.random.default_rng(seed)
    if dtype == "BOOL":
        return rng.integers(0, 2, count, dtype=np.uint8).tobytes()
    return rng.integers(0, 256, count * bits // 8, dtype=np.uint8).tobytes()


def _external(tensor: TensorProto) -> dict[str, str]:
    return {entry.key: entry.value for entry in tensor.external_data}


def _every_dtype_model() -> tuple[ModelProto, dict[str, bytes]]:
    raws = {dtype: _raw_for(dtype, 24, i) for i, dtype in enumerate(sorted(ONNX_TYPES))}
    tensors = [
        _tensor(f"t_{dtype}", ONNX_TYPES[dtype][0], [4, 6], raws[dtype]) for dtype in sorted(ONNX_TYPES)
    ]
    return _model(tensors), raws


# --- every dtype, both ways ---------------------------------------------------------------


def test_every_mapped_dtype_is_read_back_by_safetensors_and_by_us(tmp_path: pathlib.Path) -> None:
    model, raws = _every_dtype_model()
    wirecodec.save(model, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    data = (tmp_path / "m.safetensors").read_bytes()
    theirs = dict(safetensors.deserialize(data))
    assert set(theirs) == {f"t_{dtype}" for dtype in ONNX_TYPES}
    for dtype, raw in raws.items():
        info = theirs[f"t_{dtype}"]
        assert (info["dtype"], list(info["shape"]), bytes(info["data"])) == (dtype, [4, 6], raw), dtype
    loaded = wirecodec.load(tmp_path / "m.onnx")
    for tensor in loaded.graph.initializer:
        dtype = tensor.name[2:]
        assert tensor.data_type == ONNX_TYPES[dtype][0]
        assert bytes(tensor.raw_data) == raws[dtype], dtype
    # numpy lacks bfloat16 and the float8s: the numpy API reads the others, one by one.
    with safetensors.safe_open(str(tmp_path / "m.safetensors"), framework="numpy") as reader:
        for dtype in NUMPY_DTYPES:
            ours = wirecodec.to_array(next(t for t in loaded.graph.initializer if t.name == f"t_{dtype}"))
            theirs_array = reader.get_tensor(f"t_{dtype}")
            np.testing.assert_array_equal(theirs_array, ours)
            assert theirs_array.dtype == ours.dtype


def test_every_dtype_attaches_from_a_file_safetensors_wrote(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(7)
    arrays = {
        "f64": rng.standard_normal((2, 3)),
        "f32": rng.standard_normal((5,)).astype(np.float32),
        "f16": rng.standard_normal((3, 1)).astype(np.float16),
        "i64": rng.integers(-9, 9, (4,)),
        "i8": rng.integers(-9, 9, (2, 2)).astype(np.int8),
        "u16": rng.integers(0, 9, (3,)).astype(np.uint16),
        "bool": rng.integers(0, 2, (2, 3)).astype(bool),
        "c64": (rng.standard_normal(2) + 1j).astype(np.complex64),
        "scalar": np.array(3.5, dtype=np.float32),
    }
    st_numpy.save_file(arrays, str(tmp_path / "w.safetensors"))
    model = _model([wirecodec.from_array(np.zeros_like(a), name) for name, a in arrays.items()])
    attached = wirecodec.attach_weights(model, tmp_path / "w.safetensors")
    wirecodec.save(attached, tmp_path / "m.onnx")
    loaded = wirecodec.load(tmp_path / "m.onnx")
    for tensor in loaded.graph.initializer:
        np.testing.assert_array_equal(wirecodec.to_array(tensor), arrays[tensor.name])


@pytest.mark.parametrize(
    ("data_type", "dims", "raw"),
    [
        (DataType.INT4, [4], b"\x12\x34"),
        (DataType.UINT4, [4], b"\x12\x34"),
        (DataType.COMPLEX128, [1], bytes(16)),
        (DataType.FLOAT6E2M3, [4], bytes(3)),
        (DataType.FLOAT4E2M1, [3], bytes(2)),  # an odd count does not fill whole bytes
    ],
)
def test_types_safetensors_lacks_are_refused_before_anything_is_written(
    tmp_path: pathlib.Path, data_type: int, dims: list[int], raw: bytes
) -> None:
    model = _model([_tensor("odd", data_type, dims, raw)])
    with pytest.raises(ExternalDataError, match="'odd'"):
        wirecodec.save(model, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    assert list(tmp_path.iterdir()) == []


def test_small_and_string_tensors_stay_in_the_model(tmp_path: pathlib.Path) -> None:
    text = TensorProto(name="s", data_type=DataType.STRING, dims=[1], string_data=[b"x" * 4000])
    small = _tensor("int4", DataType.INT4, [2], b"\x12")  # below the threshold: never checked
    big = wirecodec.from_array(np.arange(512, dtype=np.float32), "big")
    wirecodec.save(_model([text, small, big]), tmp_path / "m.onnx", external_data="m.safetensors")
    assert list(read_header(tmp_path / "m.safetensors").entries) == ["big"]
    loaded = wirecodec.load(tmp_path / "m.onnx")
    assert [t.name for t in loaded.graph.initializer] == ["s", "int4", "big"]
    assert loaded.graph.initializer[0].string_data == [b"x" * 4000]


def test_typed_field_tensors_are_written_as_their_bytes(tmp_path: pathlib.Path) -> None:
    typed = TensorProto(name="t", data_type=DataType.FLOAT16, dims=[600], int32_data=list(range(600)))
    expected = wirecodec.to_array(typed)
    wirecodec.save(_model([typed]), tmp_path / "m.onnx", external_data="m.safetensors")
    np.testing.assert_array_equal(st_numpy.load_file(str(tmp_path / "m.safetensors"))["t"], expected)


# --- one file, two runtimes ---------------------------------------------------------------


def test_onnxruntime_and_safetensors_read_the_same_file(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the model (test extra)")
    model = build()
    wirecodec.save(model, tmp_path / "single.onnx")
    wirecodec.save(model, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    assert (tmp_path / "m.onnx").stat().st_size < 1000  # the weights are not in it
    x = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    single = ort.InferenceSession(str(tmp_path / "single.onnx")).run(None, {"x": x})
    split = ort.InferenceSession(str(tmp_path / "m.onnx")).run(None, {"x": x})
    np.testing.assert_array_equal(single[0], split[0])
    weights = st_numpy.load_file(str(tmp_path / "m.safetensors"))
    for tensor in model.graph.initializer:
        np.testing.assert_array_equal(weights[tensor.name], wirecodec.to_array(tensor))


def test_loading_is_zero_copy_and_aligned(tmp_path: pathlib.Path) -> None:
    rng = np.random.default_rng(3)
    tensors = [
        wirecodec.from_array(rng.integers(0, 9, 7).astype(np.int8), "i8"),
        wirecodec.from_array(rng.standard_normal(33).astype(np.float16), "f16"),
        wirecodec.from_array(rng.standard_normal(5), "f64"),
        wirecodec.from_array(rng.standard_normal(9).astype(np.float32), "f32"),
    ]
    options = SaveOptions(location="m.safetensors", size_threshold=0, align=65536)
    save_safetensors(_model(tensors), tmp_path / "m.onnx", options)
    header = read_header(tmp_path / "m.safetensors")
    assert header.data_start == 65536
    size = (tmp_path / "m.safetensors").stat().st_size
    loaded = wirecodec.load(tmp_path / "m.onnx")
    for tensor in loaded.graph.initializer:
        array = wirecodec.to_array(tensor)
        assert len(tensor.raw_data.obj) == size  # a view of the mapped safetensors file
        assert array.ctypes.data % array.dtype.itemsize == 0, tensor.name
        entry = header.entries[tensor.name]
        assert _external(
            next(
                t
                for t in wirecodec.load(tmp_path / "m.onnx", load_external_data=False).graph.initializer
                if t.name == tensor.name
            )
        ) == {
            "location": "m.safetensors",
            "offset": str(header.offset(entry)),
            "length": str(entry.nbytes),
        }


def test_onnxruntime_runs_a_model_attached_to_a_file_safetensors_wrote(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the model (test extra)")
    model = build()
    st_numpy.save_file(
        {t.name: wirecodec.to_array(t) for t in model.graph.initializer}, str(tmp_path / "w.safetensors")
    )
    wirecodec.save(wirecodec.attach_weights(model, tmp_path / "w.safetensors"), tmp_path / "m.onnx")
    wirecodec.save(model, tmp_path / "single.onnx")
    assert (tmp_path / "m.onnx").stat().st_size < 1000
    x = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    expected = ort.InferenceSession(str(tmp_path / "single.onnx")).run(None, {"x": x})[0]
    np.testing.assert_array_equal(
        ort.InferenceSession(str(tmp_path / "m.onnx")).run(None, {"x": x})[0], expected
    )
    got = wirecodec.onnxruntime_session(tmp_path / "m.onnx").run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, expected)


def test_other_readers_take_the_safetensors_layout(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
    from onnx import numpy_helper

    model = build()
    wirecodec.save(model, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    theirs = onnx.load(str(tmp_path / "m.onnx"))  # onnx resolves (location, offset, length) itself
    onnx.checker.check_model(str(tmp_path / "m.onnx"))
    for ours, reference in zip(model.graph.initializer, theirs.graph.initializer, strict=True):
        np.testing.assert_array_equal(numpy_helper.to_array(reference), wirecodec.to_array(ours))
    wirecodec.convert(tmp_path / "m.onnx", tmp_path / "single.onnx", to="single")
    single = wirecodec.load(tmp_path / "single.onnx")
    for ours, original in zip(single.graph.initializer, model.graph.initializer, strict=True):
        assert (ours.name, bytes(ours.raw_data)) == (original.name, bytes(original.raw_data))
    assert main(["check", "--full", str(tmp_path / "m.onnx")]) == 0
    assert main(["inspect", str(tmp_path / "m.onnx")]) == 0
    capsys.readouterr()


# --- names ---------------------------------------------------------------------------------


def _names_model() -> ModelProto:
    f32 = DataType.FLOAT

    def raw(seed: int) -> bytes:
        return np.full(4, seed, dtype=np.float32).tobytes()

    inner = GraphProto(
        name="then", initializer=[_tensor("w", f32, [4], raw(2)), _tensor("", f32, [4], raw(3))]
    )
    constant = NodeProto(
        op_type="Constant",
        output=["c"],
        attribute=[
            AttributeProto(
                name="value", type=AttributeProto.AttributeType.TENSOR, t=_tensor("", f32, [4], raw(4))
            )
        ],
    )
    branch = NodeProto(
        op_type="If",
        input=["cond"],
        output=["o"],
        attribute=[AttributeProto(name="then_branch", type=AttributeProto.AttributeType.GRAPH, g=inner)],
    )
    outer = [
        _tensor("w", f32, [4], raw(1)),
        _tensor("w.1", f32, [4], raw(5)),
        _tensor("__metadata__", f32, [4], raw(6)),
    ]
    return _model(outer, [constant, branch])


def test_names_that_are_not_unique_or_not_valid_get_deterministic_suffixes() -> None:
    names = [name for _, name, _ in named_tensors(_names_model())]
    # Walk order: outer initializers, the Constant's tensor, the If branch's initializers.
    assert names == ["w", "w.1", "__metadata__.1", "tensor.1", "w.2", "tensor.2"]


def test_initializers_are_told_by_where_they_are_not_by_identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk may yield temporary objects (a peek's copies, a long graph's views nobody
    holds): one freed after the first walk leaves its id to a tensor of the second, which
    must not then count as an initializer (issue 48: writers by path, not by id())."""
    from wirecodec.files.safetensors import names as names_module
    from wirecodec.protobuf.walk import Site

    real = names_module.tensor_sites

    def temporary_copies(*args: object, **kwargs: object) -> object:
        for site in real(*args, **kwargs):  # type: ignore[arg-type]
            copy = TensorProto()
            copy.CopyFrom(site.message)
            yield Site(site.path, copy, site.field, site.parent)
            del copy  # freed at once: the next copy is likely to get its id

    monkeypatch.setattr(names_module, "tensor_sites", temporary_copies)
    model = _names_model()
    flags = [initializer for _, _, initializer in named_tensors(model)]
    # Walk order: outer initializers, the Constant's tensor, the If branch's initializers.
    assert flags == [True, True, True, False, True, True]


def test_saved_names_are_the_ones_attach_finds(tmp_path: pathlib.Path) -> None:
    model = _names_model()
    wirecodec.save(
        model, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0, convert_attribute=True
    )
    header = read_header(tmp_path / "m.safetensors")
    assert set(header.entries) == {"w", "w.1", "__metadata__.1", "tensor.1", "w.2", "tensor.2"}
    assert header.metadata == {}
    assert st_numpy.load_file(str(tmp_path / "m.safetensors"))["w.2"].tolist() == [2.0] * 4
    saved = wirecodec.load(tmp_path / "m.onnx", load_external_data=False)
    attached = wirecodec.attach_weights(model, tmp_path / "m.safetensors", convert_attribute=True)
    refs = [_external(t) for t, _, _ in named_tensors(saved)]
    assert [_external(t) for t, _, _ in named_tensors(attached)] == refs
    loaded = wirecodec.load(tmp_path / "m.onnx")
    values = [wirecodec.to_array(t)[0] for t, _, _ in named_tensors(loaded)]
    assert values == [1, 5, 6, 4, 2, 3]


def test_constant_tensors_move_only_when_asked(tmp_path: pathlib.Path) -> None:
    wirecodec.save(_names_model(), tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    assert "tensor.1" not in read_header(tmp_path / "m.safetensors").entries


def test_onnxruntime_runs_constant_tensors_moved_with_convert_attribute(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the model (test extra)")
    from wirecodec.helper import make_tensor_value_info

    value = wirecodec.from_array(np.arange(300, dtype=np.float32), "")
    constant = NodeProto(
        op_type="Constant",
        output=["c"],
        attribute=[AttributeProto(name="value", type=AttributeProto.AttributeType.TENSOR, t=value)],
    )
    graph = GraphProto(
        name="g",
        node=[constant, NodeProto(op_type="Add", input=["x", "c"], output=["y"])],
        input=[make_tensor_value_info("x", DataType.FLOAT, [300])],
        output=[make_tensor_value_info("y", DataType.FLOAT, [300])],
    )
    model = ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)
    wirecodec.save(model, tmp_path / "c.onnx", external_data="c.safetensors", convert_attribute=True)
    assert list(read_header(tmp_path / "c.safetensors").entries) == ["tensor.1"]
    y = ort.InferenceSession(str(tmp_path / "c.onnx")).run(None, {"x": np.ones(300, np.float32)})[0]
    np.testing.assert_array_equal(y, np.arange(300, dtype=np.float32) + 1)


# --- sharding ------------------------------------------------------------------------------


def test_sharding_writes_hub_style_shards_and_index(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the model (test extra)")
    model = build()  # w1 256 B, b1 64 B, w2 192 B, b2 12 B
    wirecodec.save(
        model, tmp_path / "m.onnx", external_data="model.safetensors", size_threshold=0, max_shard_size=256
    )
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "m.onnx",
        "model-00001-of-00003.safetensors",
        "model-00002-of-00003.safetensors",
        "model-00003-of-00003.safetensors",
        "model.safetensors.index.json",
    ]
    index = json.loads((tmp_path / "model.safetensors.index.json").read_text())
    assert index == {
        "metadata": {"total_size": 256 + 64 + 192 + 12},
        "weight_map": {
            "b1": "model-00002-of-00003.safetensors",
            "b2": "model-00003-of-00003.safetensors",
            "w1": "model-00001-of-00003.safetensors",
            "w2": "model-00002-of-00003.safetensors",
        },
    }
    for name, shard in index["weight_map"].items():
        weights = st_numpy.load_file(str(tmp_path / shard))
        original = next(t for t in model.graph.initializer if t.name == name)
        np.testing.assert_array_equal(weights[name], wirecodec.to_array(original))
    x = np.ones((2, 4), dtype=np.float32)
    wirecodec.save(model, tmp_path / "single.onnx")
    expected = ort.InferenceSession(str(tmp_path / "single.onnx")).run(None, {"x": x})[0]
    got = ort.InferenceSession(str(tmp_path / "m.onnx")).run(None, {"x": x})[0]
    np.testing.assert_array_equal(got, expected)
    # The index attaches the same references as the save made.
    saved = wirecodec.load(tmp_path / "m.onnx", load_external_data=False)
    attached = wirecodec.attach_weights(model, tmp_path / "model.safetensors.index.json")
    assert [_external(t) for t in attached.graph.initializer] == [
        _external(t) for t in saved.graph.initializer
    ]


def test_one_shard_is_written_without_an_index(tmp_path: pathlib.Path) -> None:
    wirecodec.save(
        build(),
        tmp_path / "m.onnx",
        external_data="model.safetensors",
        max_shard_size=1 << 20,
        size_threshold=0,
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.onnx", "model.safetensors"]


# --- attach refusals -------------------------------------------------------------------------


def test_attach_refuses_a_dtype_or_shape_mismatch(tmp_path: pathlib.Path) -> None:
    st_numpy.save_file(
        {"w1": np.zeros((16, 4), np.float16), "b1": np.zeros(15, np.float32)}, str(tmp_path / "w.safetensors")
    )
    with pytest.raises(ExternalDataError, match=r"'w1'.*F32 \[16, 4\].*F16 \[16, 4\]"):
        wirecodec.attach_weights(build(), tmp_path / "w.safetensors")
    st_numpy.save_file({"b1": np.zeros(15, np.float32)}, str(tmp_path / "b.safetensors"))
    with pytest.raises(ExternalDataError, match=r"'b1'.*F32 \[16\].*F32 \[15\]"):
        wirecodec.attach_weights(build(), tmp_path / "b.safetensors")


def test_attach_verify_refuses_other_values_of_the_same_shape(tmp_path: pathlib.Path) -> None:
    model = build()
    arrays = {t.name: wirecodec.to_array(t).copy() for t in model.graph.initializer}
    st_numpy.save_file(arrays, str(tmp_path / "same.safetensors"))
    wirecodec.attach_weights(model, tmp_path / "same.safetensors", verify=True)
    arrays["w2"][2, 5] += 1
    st_numpy.save_file(arrays, str(tmp_path / "other.safetensors"))
    wirecodec.attach_weights(model, tmp_path / "other.safetensors")  # dtype and shape agree
    with pytest.raises(
        ExternalDataError, match=r"'w2': its bytes differ from other.safetensors's \(first at byte 148\)"
    ):
        wirecodec.attach_weights(model, tmp_path / "other.safetensors", verify=True)
    wirecodec.save(model, tmp_path / "m.onnx")
    argv = [
        "attach-weights",
        str(tmp_path / "m.onnx"),
        str(tmp_path / "other.safetensors"),
        str(tmp_path / "o.onnx"),
    ]
    assert main([*argv, "--verify"]) == 1
    assert not (tmp_path / "o.onnx").exists()
    assert main(argv) == 0


def test_attach_refuses_weights_outside_the_model_directory_and_empty_matches(tmp_path: pathlib.Path) -> None:
    st_numpy.save_file({"w1": np.zeros((16, 4), np.float32)}, str(tmp_path / "w.safetensors"))
    (tmp_path / "sub").mkdir()
    with pytest.raises(ExternalDataError, match="not inside the model's directory"):
        wirecodec.attach_weights(build(), tmp_path / "w.safetensors", model_dir=tmp_path / "sub")
    with pytest.raises(ExternalDataError, match="no tensor for 3"):
        wirecodec.attach_weights(build(), tmp_path / "w.safetensors", require_all=True)
    st_numpy.save_file({"other": np.zeros(3, np.float32)}, str(tmp_path / "o.safetensors"))
    with pytest.raises(ExternalDataError, match="names none"):
        wirecodec.attach_weights(build(), tmp_path / "o.safetensors")
    result = attach(build(), tmp_path / "w.safetensors")
    assert (result.attached, result.kept, result.unused) == (["w1"], ["b1", "w2", "b2"], [])


def test_attach_refuses_index_files_that_leave_their_directory(tmp_path: pathlib.Path) -> None:
    index = tmp_path / "w.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {}, "weight_map": {"w1": "../w.safetensors"}}))
    with pytest.raises(ExternalDataError, match=r"contains '\.\.'"):
        wirecodec.attach_weights(build(), index)
    index.write_text(json.dumps({"weight_map": ["w1"]}))
    with pytest.raises(ExternalDataError, match="weight_map"):
        wirecodec.attach_weights(build(), index)
    st_numpy.save_file({"b1": np.zeros(16, np.float32)}, str(tmp_path / "s.safetensors"))
    index.write_text(json.dumps({"weight_map": {"w1": "s.safetensors"}}))
    with pytest.raises(ExternalDataError, match="'w1' is not in its shard"):
        wirecodec.attach_weights(build(), index)


def _file(tmp_path: pathlib.Path, header: bytes, data: bytes = b"") -> pathlib.Path:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + data)
    return path


def _h(entries: dict[str, object]) -> bytes:
    return json.dumps(entries).encode()


@pytest.mark.parametrize(
    ("header", "data", "message"),
    [
        (b"[]", b"", "not a safetensors header"),
        (b'{"a": 1, "a": 2}', b"", "appears twice"),
        (b'{"a": NaN}', b"", "not a safetensors header"),
        (_h({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}), bytes(4), "takes 8 bytes"),
        (_h({"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}), bytes(8), "leaves a hole"),
        (
            _h(
                {
                    "a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                    "b": {"dtype": "U8", "shape": [2], "data_offsets": [2, 4]},
                }
            ),
            bytes(4),
            "overlaps",
        ),
        (_h({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}), bytes(5), "file has 5"),
        (_h({"a": {"dtype": "F6_E2M3", "shape": [4], "data_offsets": [0, 3]}}), bytes(3), "6-bit"),
        (_h({"a": {"dtype": "Q9", "shape": [4], "data_offsets": [0, 3]}}), bytes(3), "'Q9'"),
        (_h({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}}), b"", "not a list of sizes"),
        (
            _h({"a": {"dtype": "F32", "shape": [1.0], "data_offsets": [0, 4]}}),
            bytes(4),
            "not a list of sizes",
        ),
        (_h({"__metadata__": {"k": 1}}), b"", "strings to strings"),
        (_h({"a": {"dtype": "F4", "shape": [3], "data_offsets": [0, 1]}}), bytes(1), "whole bytes"),
    ],
)
def test_malformed_headers_are_refused(
    tmp_path: pathlib.Path, header: bytes, data: bytes, message: str
) -> None:
    path = _file(tmp_path, header, data)
    with pytest.raises(ExternalDataError, match=message):
        read_header(path)


def test_lying_header_lengths_are_refused_without_reading(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(struct.pack("<Q", 1 << 40) + b"{}")
    with pytest.raises(ExternalDataError, match="over the limit"):
        read_header(path)
    path.write_bytes(struct.pack("<Q", 1000) + b"{}")
    with pytest.raises(ExternalDataError, match="runs past the end"):
        read_header(path)
    path.write_bytes(b"\x02\x00")
    with pytest.raises(ExternalDataError, match="too short"):
        read_header(path)


# --- save options and atomicity ---------------------------------------------------------------


def test_save_refuses_bad_locations_and_options(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=r"ends in '\.safetensors'"):
        wirecodec.save(build(), tmp_path / "m.onnx", external_data="m.bin")
    with pytest.raises(ExternalDataError, match=r"contains '\.\.'"):
        wirecodec.save(build(), tmp_path / "m.onnx", external_data="../m.safetensors")
    with pytest.raises(ExternalDataError, match="the model file itself"):
        wirecodec.save(build(), tmp_path / "m.safetensors", external_data="m.safetensors", size_threshold=0)
    with pytest.raises(ValueError, match="do not apply"):
        wirecodec.save(build(), tmp_path / "m.onnx", external_data="m.safetensors", location="x")
    assert list(tmp_path.iterdir()) == []


def test_a_refused_save_leaves_the_previous_files(tmp_path: pathlib.Path) -> None:
    wirecodec.save(build(), tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    bad = _model([*build().graph.initializer, _tensor("q", DataType.INT4, [4096], bytes(2048))])
    with pytest.raises(ExternalDataError, match="INT4"):
        wirecodec.save(bad, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_metadata_is_written_and_the_callers_model_is_unchanged(tmp_path: pathlib.Path) -> None:
    model = build()
    before = model.SerializeToString()
    options = SaveOptions(location="m.safetensors", size_threshold=0, metadata={"format": "pt"})
    save_safetensors(model, tmp_path / "m.onnx", options)
    assert model.SerializeToString() == before
    with safetensors.safe_open(str(tmp_path / "m.safetensors"), framework="numpy") as f:
        assert f.metadata() == {"format": "pt"}


# --- convert and the command line --------------------------------------------------------------


def test_convert_to_safetensors_from_any_layout(tmp_path: pathlib.Path) -> None:
    wirecodec.save(build(), tmp_path / "ext.onnx", external_data=True, size_threshold=0)
    calls: list[tuple[int, int]] = []
    convert_to_safetensors(
        tmp_path / "ext.onnx", tmp_path / "out.onnx", size_threshold=0, progress=lambda *c: calls.append(c)
    )
    size = (tmp_path / "out.safetensors").stat().st_size + (tmp_path / "out.onnx").stat().st_size
    assert calls[-1] == (size, size)
    assert all(done <= total for done, total in calls)
    assert (tmp_path / "out.safetensors").exists()
    weights = st_numpy.load_file(str(tmp_path / "out.safetensors"))
    for tensor in wirecodec.load(tmp_path / "out.onnx").graph.initializer:
        np.testing.assert_array_equal(weights[tensor.name], wirecodec.to_array(tensor))


def test_attach_weights_verb(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = build()
    wirecodec.save(model, tmp_path / "m.onnx")
    arrays = {t.name: wirecodec.to_array(t) for t in model.graph.initializer if t.name != "b2"}
    arrays["extra"] = np.zeros(2, np.float32)
    st_numpy.save_file(arrays, str(tmp_path / "w.safetensors"))
    code = main(
        [
            "attach-weights",
            str(tmp_path / "m.onnx"),
            str(tmp_path / "w.safetensors"),
            str(tmp_path / "o.onnx"),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "3 tensors in w.safetensors, 1 tensor kept in the model; 1 entry of the weights unused" in out
    loaded = wirecodec.load(tmp_path / "o.onnx", load_external_data=False)
    assert [t.data_location for t in loaded.graph.initializer] == [1, 1, 1, 0]
    resolved = wirecodec.load(tmp_path / "o.onnx")
    for tensor in resolved.graph.initializer:
        np.testing.assert_array_equal(
            wirecodec.to_array(tensor),
            wirecodec.to_array(next(t for t in model.graph.initializer if t.name == tensor.name)),
        )
    st_numpy.save_file({"w1": np.zeros((4, 16), np.float32)}, str(tmp_path / "bad.safetensors"))
    code = main(
        [
            "attach-weights",
            str(tmp_path / "m.onnx"),
            str(tmp_path / "bad.safetensors"),
            str(tmp_path / "x.onnx"),
        ]
    )
    assert code == 1
    assert "F32 [16, 4], but bad.safetensors has F32 [4, 16]" in capsys.readouterr().err
    assert not (tmp_path / "x.onnx").exists()


# --- bounded memory ------------------------------------------------------------------------------

MIB = 1 << 20
CHILD = """
import pathlib, sys
import psutil
import wirecodec
from wirecodec.files.convert import convert_to_safetensors

def high_water_kib():
    for line in pathlib.Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])

# Run the same path once on a one-tensor model first: the modules it imports are compiled
# from source when no bytecode may be written (PYTHONDONTWRITEBYTECODE, a fresh clone), and
# that one-off peak is not the working memory this test bounds.
if sys.argv[1] == "convert":
    convert_to_safetensors("warm.onnx", "warm-out.onnx")
else:
    wirecodec.save(wirecodec.load("warm.onnx"), "warm-out.onnx", external_data="warm-out.safetensors")
# Start the high-water mark afresh (the imports peak above what remains resident).
pathlib.Path("/proc/self/clear_refs").write_text("5")
before = psutil.Process().memory_info().rss / 1024
if sys.argv[1] == "convert":
    convert_to_safetensors("src.onnx", "dst.onnx")
else:
    wirecodec.save(wirecodec.load("src.onnx"), "dst.onnx", external_data="dst.safetensors")
print((high_water_kib() - before) / 1024)
"""


@pytest.mark.parametrize("how", ["convert", "load-save"])
def test_memory_stays_bounded_on_a_200_mb_model(tmp_path: pathlib.Path, how: str) -> None:
    """Peak RSS growth while writing 200 MB of weights stays far below 200 MB."""
    psutil = pytest.importorskip("psutil", reason="measures memory (test extra)")
    if not pathlib.Path("/proc/self/clear_refs").exists():
        pytest.skip("needs Linux's /proc/self/clear_refs to restart the peak RSS")
    if psutil.disk_usage(str(tmp_path)).free < 1 << 30:
        pytest.skip("needs 1 GB of free disk")
    chunk = 4 * MIB
    count = 50
    data = tmp_path / "src.onnx.data"
    with data.open("wb") as out:
        for i in range(count):
            out.write(np.full(chunk // 4, i, dtype=np.float32).tobytes())
    tensors = []
    for i in range(count):
        tensor = TensorProto(name=f"w{i}", data_type=DataType.FLOAT, dims=[chunk // 4])
        tensor.data_location = TensorProto.DataLocation.EXTERNAL
        tensor.external_data.add(key="location", value="src.onnx.data")
        tensor.external_data.add(key="offset", value=str(i * chunk))
        tensor.external_data.add(key="length", value=str(chunk))
        tensors.append(tensor)
    wirecodec.save(_model(tensors), tmp_path / "src.onnx")
    (tmp_path / "warm.onnx.data").write_bytes(bytes(16))
    warm = TensorProto(name="w", data_type=DataType.FLOAT, dims=[4])
    warm.data_location = TensorProto.DataLocation.EXTERNAL
    warm.external_data.add(key="location", value="warm.onnx.data")
    wirecodec.save(_model([warm]), tmp_path / "warm.onnx")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(CHILD), how],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    growth_mb = float(result.stdout)
    print(f"\n{how}: peak RSS grew {growth_mb:.1f} MB writing {count * chunk // MIB} MB")
    assert growth_mb < 32
    header = read_header(tmp_path / "dst.safetensors")
    assert len(header.entries) == count
    with safetensors.safe_open(str(tmp_path / "dst.safetensors"), framework="numpy") as f:
        assert f.get_tensor("w49")[-1] == 49.0


# --- properties: headers round-trip, and any bytes give a typed error or a header ----------------

_entry_lists = st.lists(
    st.tuples(
        st.text(min_size=1, max_size=8),
        st.sampled_from(sorted(ONNX_TYPES)),
        st.lists(st.integers(0, 5), max_size=3).map(lambda dims: (*dims, 2)),
    ),
    max_size=6,
    unique_by=lambda item: item[0],
)


@settings(max_examples=60, deadline=None)
@given(_entry_lists, st.sampled_from([8, 64, 4096]))
def test_headers_round_trip_and_safetensors_agrees(
    items: list[tuple[str, str, tuple[int, ...]]], align: int
) -> None:
    items = [(n, d, s) for n, d, s in items if n != "__metadata__" and _utf8(n)]
    entries = layout((n, d, s, byte_size(d, s, n)) for n, d, s in items)
    prefix = encode_header(entries, align=align)
    assert len(prefix) % align == 0
    data_size = sum(e.nbytes for e in entries)
    header = parse_header(prefix[8:], len(prefix) + data_size, "x")
    assert header.entries == {e.name: e for e in entries}
    assert header.data_start == len(prefix)
    theirs = dict(safetensors.deserialize(prefix + bytes(data_size)))
    assert {n: (i["dtype"], tuple(i["shape"])) for n, i in theirs.items()} == {
        e.name: (e.dtype, e.shape) for e in entries
    }


def _utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200), st.integers(0, 64))
def test_any_header_bytes_give_a_header_or_an_external_data_error(text: bytes, extra: int) -> None:
    with contextlib.suppress(ExternalDataError):  # anything else escaping is a bug
        parse_header(text, 8 + len(text) + extra, "x")


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.text(max_size=4),
        st.fixed_dictionaries(
            {
                "dtype": st.sampled_from(["F32", "U8", "BF16", "F4", "x", 1]),
                "shape": st.lists(st.one_of(st.integers(-1, 4), st.just(True), st.just(1.5)), max_size=3),
                "data_offsets": st.lists(st.integers(-1, 40), min_size=0, max_size=3),
            }
        ),
        max_size=3,
    ),
    st.integers(0, 40),
)
def test_we_refuse_what_safetensors_refuses(header: dict[str, object], data_size: int) -> None:
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    blob = struct.pack("<Q", len(text)) + text + bytes(data_size)
    try:
        parse_header(text, len(blob), "x")
        ours = True
    except ExternalDataError:
        ours = False
    try:
        safetensors.deserialize(blob)
        theirs = True
    except Exception:  # the reference's own error types
        theirs = False
    assert ours == theirs, (header, data_size)
