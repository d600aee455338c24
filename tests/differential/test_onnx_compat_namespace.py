"""wirecodec.onnx_compat's modules against onnx's: the same results for the same calls."""

from __future__ import annotations

import os
import pathlib
import warnings
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from tests.support.reference import CorpusItem, backend_corpus
from wirecodec import helper, numpy_helper
from wirecodec import onnx_compat as compat
from wirecodec.errors import CheckError, ExternalDataError
from wirecodec.onnx_compat import checker, external_data_helper, serialization

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
ml_dtypes = pytest.importorskip("ml_dtypes", reason="onnx's numpy_helper needs ml_dtypes")


def weights_model() -> ModelProto:
    """Two initializers (one of 4 KiB, one of 8 bytes) and a Constant holding 2 KiB (named: an unnamed
    tensor gets a random file name of its own)."""
    big = numpy_helper.from_array(np.arange(1024, dtype=np.float32), "W")
    small = numpy_helper.from_array(np.array([1.0, 2.0], dtype=np.float32), "b")
    constant = helper.make_node(
        "Constant", [], ["C"], value=numpy_helper.from_array(np.ones(512, np.float32), "c")
    )
    graph = helper.make_graph(
        [constant, helper.make_node("Add", ["X", "W"], ["Y"])],
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1024])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1024])],
        [big, small],
    )
    return helper.make_model(graph)


def theirs(model: ModelProto) -> Any:
    return onnx.load_model_from_string(wirecodec.encode(model))


# -- external_data_helper ---------------------------------------------------------------------


@pytest.mark.parametrize("one_file", [True, False])
@pytest.mark.parametrize("convert_attribute", [False, True])
def test_convert_then_write_gives_onnxs_model_and_files(
    tmp_path: pathlib.Path, one_file: bool, convert_attribute: bool
) -> None:
    ours_dir, their_dir = tmp_path / "ours", tmp_path / "theirs"
    ours_dir.mkdir()
    their_dir.mkdir()
    mine, other = weights_model(), theirs(weights_model())
    external_data_helper.convert_model_to_external_data(
        mine, one_file, "w.bin" if one_file else None, 1024, convert_attribute
    )
    onnx.external_data_helper.convert_model_to_external_data(
        other, one_file, "w.bin" if one_file else None, 1024, convert_attribute
    )
    assert wirecodec.encode(mine) == other.SerializeToString()
    external_data_helper.write_external_data_tensors(mine, ours_dir)
    onnx.external_data_helper.write_external_data_tensors(other, str(their_dir))
    assert wirecodec.encode(mine) == other.SerializeToString()
    assert sorted(os.listdir(ours_dir)) == sorted(os.listdir(their_dir))
    for name in os.listdir(ours_dir):
        assert (ours_dir / name).read_bytes() == (their_dir / name).read_bytes()
    external_data_helper.load_external_data_for_model(mine, ours_dir)
    onnx.external_data_helper.load_external_data_for_model(other, str(their_dir))
    assert wirecodec.encode(mine) == other.SerializeToString()


def _sized_model(sizes: list[int]) -> ModelProto:
    tensors = [
        TensorProto(name=f"t{size}", data_type=TensorProto.UINT8, dims=[size], raw_data=bytes(size))
        for size in sizes
    ]
    return helper.make_model(GraphProto(name="g", initializer=tensors))


def _marked(model: Any) -> list[str]:
    return [t.name for t in model.graph.initializer if t.data_location == TensorProto.EXTERNAL]


@pytest.mark.parametrize("threshold", [0, 1, 40, 1024])
def test_the_size_threshold_counts_as_onnx_counts(threshold: int) -> None:
    # onnx compares sys.getsizeof(raw_data) (the bytes object's overhead included) with the
    # threshold, so a tensor a little under it in bytes is marked; ours must mark the same.
    sizes = sorted({max(0, threshold + d) for d in (-40, -34, -33, -32, -1, 0, 1)} | {1, 2})
    mine, other = _sized_model(sizes), theirs(_sized_model(sizes))
    external_data_helper.convert_model_to_external_data(mine, location="d.bin", size_threshold=threshold)
    onnx.external_data_helper.convert_model_to_external_data(
        other, location="d.bin", size_threshold=threshold
    )
    assert _marked(mine) == _marked(other)
    assert wirecodec.encode(mine) == other.SerializeToString()


def test_save_model_with_a_threshold_moves_the_tensors_onnx_moves(tmp_path: pathlib.Path) -> None:
    # save_model(save_as_external_data=True) goes through wirecodec.save, which counts a
    # payload's bytes alone: the compat layer must hand it onnx's threshold, overhead taken off.
    sizes = [1024 - 34, 1024 - 33, 1024 - 32, 1023, 1024]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    compat.save_model(
        _sized_model(sizes), tmp_path / "a" / "m.onnx", save_as_external_data=True, location="d.bin"
    )
    onnx.save_model(
        theirs(_sized_model(sizes)),
        str(tmp_path / "b" / "m.onnx"),
        save_as_external_data=True,
        location="d.bin",
    )
    mine = onnx.load(str(tmp_path / "a" / "m.onnx"), load_external_data=False)
    other = onnx.load(str(tmp_path / "b" / "m.onnx"), load_external_data=False)
    assert _marked(mine) == _marked(other) == ["t991", "t992", "t1023", "t1024"]
    onnx.load_external_data_for_model(mine, str(tmp_path / "a"))
    assert [t.raw_data for t in mine.graph.initializer] == [bytes(size) for size in sizes]


def test_save_after_convert_writes_the_marked_tensors_as_onnx(tmp_path: pathlib.Path) -> None:
    mine, other = weights_model(), theirs(weights_model())
    external_data_helper.convert_model_to_external_data(mine, location="d.bin")
    onnx.external_data_helper.convert_model_to_external_data(other, location="d.bin")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    compat.save_model(mine, tmp_path / "a" / "m.onnx")
    onnx.save_model(other, str(tmp_path / "b" / "m.onnx"))
    for name in ("m.onnx", "d.bin"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_set_and_remove_entries_as_onnx() -> None:
    mine, other = weights_model().graph.initializer[0], theirs(weights_model()).graph.initializer[0]
    for module, tensor in ((external_data_helper, mine), (onnx.external_data_helper, other)):
        module.set_external_data(tensor, "x.bin", offset=4, length=4096, checksum="abc")
        module.remove_external_data_field(tensor, "checksum")
    assert wirecodec.encode(mine) == other.SerializeToString()
    info = external_data_helper.ExternalDataInfo(mine)
    assert (info.location, info.offset, info.length) == ("x.bin", 4, 4096)
    with pytest.raises(ValueError, match="does not have raw_data"):
        external_data_helper.set_external_data(TensorProto(name="t"), "x.bin")


def test_unknown_keys_warn_and_load_as_onnx(tmp_path: pathlib.Path) -> None:
    compat.save_model(weights_model(), tmp_path / "m.onnx", save_as_external_data=True, location="m.data")
    model = compat.load_model(tmp_path / "m.onnx", load_external_data=False)
    model.graph.initializer[0].external_data.add(key="surprise", value="1")
    (tmp_path / "m.onnx").write_bytes(wirecodec.encode(model))
    with pytest.raises(ExternalDataError):
        wirecodec.load(tmp_path / "m.onnx")  # wirecodec's own load refuses the key
    with pytest.warns(UserWarning, match="surprise"):
        mine = compat.load_model(tmp_path / "m.onnx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = onnx.load_model(str(tmp_path / "m.onnx"))
    assert wirecodec.encode(mine) == other.SerializeToString()


def test_a_symlinked_data_file_is_refused_with_both_classes(tmp_path: pathlib.Path) -> None:
    compat.save_model(weights_model(), tmp_path / "m.onnx", save_as_external_data=True, location="m.data")
    os.replace(tmp_path / "m.data", tmp_path / "real.data")
    os.symlink(tmp_path / "real.data", tmp_path / "m.data")
    with pytest.raises(onnx.checker.ValidationError):
        onnx.load_model(str(tmp_path / "m.onnx"))
    with pytest.raises(checker.ValidationError) as caught:
        compat.load_model(tmp_path / "m.onnx")
    assert isinstance(caught.value, ExternalDataError) and isinstance(caught.value, ValueError)


def test_writing_through_a_symlinked_folder_that_leads_out_is_refused(tmp_path: pathlib.Path) -> None:
    outside, model_dir = tmp_path / "outside", tmp_path / "model"
    outside.mkdir()
    model_dir.mkdir()
    os.symlink(outside, model_dir / "link")
    tensor = weights_model().graph.initializer[0]
    external_data_helper.set_external_data(tensor, "link/sub/w.bin")
    with pytest.raises(checker.ValidationError, match="leads outside"):
        external_data_helper.save_external_data(tensor, model_dir)
    assert not (outside / "sub").exists()


# -- checker ----------------------------------------------------------------------------------


def _tensors() -> list[TensorProto]:
    return [
        helper.make_tensor("ok", TensorProto.FLOAT, [2], [1.0, 2.0]),
        TensorProto(name="short", data_type=TensorProto.FLOAT, dims=[3], float_data=[1.0]),
        TensorProto(name="no_type", dims=[1], float_data=[1.0]),
        TensorProto(name="f6", data_type=TensorProto.FLOAT6E2M3, dims=[1], raw_data=b"\x40"),
        TensorProto(name="f6_ok", data_type=TensorProto.FLOAT6E2M3, dims=[1], raw_data=b"\x3f"),
        TensorProto(data_type=TensorProto.STRING, dims=[1], string_data=[b"unnamed is fine"]),
    ]


@pytest.mark.parametrize("tensor", _tensors(), ids=lambda t: t.name or "unnamed")
def test_check_tensor_agrees_with_onnx(tensor: TensorProto) -> None:
    try:
        onnx.checker.check_tensor(onnx.TensorProto.FromString(wirecodec.encode(tensor)))
        onnx_accepts = True
    except onnx.checker.ValidationError:
        onnx_accepts = False
    if onnx_accepts:
        checker.check_tensor(tensor)
    else:
        with pytest.raises(checker.ValidationError):
            checker.check_tensor(tensor)


def test_check_graph_and_node_with_a_context_agree_with_onnx() -> None:
    graph = weights_model().graph
    checker.check_graph(graph, checker.DEFAULT_CONTEXT)
    onnx.checker.check_graph(
        onnx.GraphProto.FromString(wirecodec.encode(graph)), onnx.checker.DEFAULT_CONTEXT
    )
    node = helper.make_node("Add", ["a", "b"], ["c"])  # its inputs come from nowhere: fine alone
    ctx = checker.C.CheckerContext()
    ctx.ir_version, ctx.opset_imports = 10, {"": 21}
    checker.check_node(node, ctx, checker.C.LexicalScopeContext())
    with pytest.raises(checker.ValidationError):
        checker.check_node(helper.make_node("Add", ["a", "b"], []))  # no outputs
    with pytest.raises(checker.ValidationError):
        checker.check_graph(GraphProto(node=[node]))  # no name, undefined inputs


def test_check_model_lets_through_what_onnx_does() -> None:
    a, b = weights_model(), weights_model()
    merged = wirecodec.compose.merge_models(a, b, [("Y", "X")], prefix2="b/")
    with pytest.raises(CheckError, match="opset-duplicate-domain"):
        wirecodec.check(merged)
    checker.check_model(merged)
    onnx.checker.check_model(theirs(merged))
    checker.check_model(wirecodec.encode(merged))  # bytes, as onnx takes them


# -- serialization, numpy_helper, what is not provided ---------------------------------------


@pytest.fixture(scope="module")
def corpus_models(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"][::20]


@pytest.mark.parametrize("fmt", ["textproto", "json", "onnxtxt"])
def test_text_formats_write_onnxs_bytes_for_corpus_models(corpus_models: list[CorpusItem], fmt: str) -> None:
    assert len(corpus_models) > 50
    different = []
    for item in corpus_models:
        ours = serialization.registry.get(fmt).serialize_proto(wirecodec.decode(ModelProto, item.data))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # onnx: "the onnxtxt format is experimental"
            model = onnx.load_model_from_string(item.data)
            expected = onnx.serialization.registry.get(fmt).serialize_proto(model)
        if ours != expected:
            different.append(item.name)
    assert not different


@pytest.mark.parametrize("fmt", ["protobuf", "textproto", "json"])
def test_registry_serializers_read_what_onnxs_write(fmt: str) -> None:
    model = weights_model()
    written = onnx.serialization.registry.get(fmt).serialize_proto(theirs(model))
    read = serialization.registry.get(fmt).deserialize_proto(written, ModelProto())
    assert read == model
    again = onnx.serialization.registry.get(fmt).deserialize_proto(
        serialization.registry.get(fmt).serialize_proto(model), onnx.ModelProto()
    )
    assert again.SerializeToString() == wirecodec.encode(model)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64])
def test_create_random_int_gives_onnxs_numbers_and_leaves_numpys_state(dtype: type) -> None:
    np.random.seed(7)
    before = np.random.get_state()[1].copy()
    mine = numpy_helper.create_random_int((3, 4), dtype, seed=5)
    assert np.array_equal(np.random.get_state()[1], before)
    assert np.array_equal(mine, onnx.numpy_helper.create_random_int((3, 4), dtype, seed=5))
    assert mine.dtype == np.dtype(dtype)
    with pytest.raises(TypeError, match="not supported"):
        numpy_helper.create_random_int((2,), np.float32)


@pytest.mark.parametrize("mode", ["up", "nearest", "down"])
@pytest.mark.parametrize("saturate", [True, False])
def test_to_float8e8m0_gives_onnxs_codes(mode: str, saturate: bool) -> None:
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2**32, size=4096, dtype=np.uint64).astype(np.uint32)
    specials = np.array(
        [0, 0x7F7FFFFF, 0x7F000001, 0x7F800000, 0x7FC00000, 0x00400001, 0x3FC00000], np.uint32
    )
    values = np.concatenate([bits, specials]).view(np.float32)
    mine = numpy_helper.to_float8e8m0(values, saturate, mode).view(np.uint8)
    assert np.array_equal(mine, onnx.numpy_helper.to_float8e8m0(values, saturate, mode).view(np.uint8))


def test_saturate_cast_as_onnx() -> None:
    x = np.array([-1e9, -3.7, 0.2, 2.5, 1e9], dtype=np.float32)
    for dtype in (np.int8, np.uint8, ml_dtypes.float8_e4m3fn, ml_dtypes.int4):
        mine, other = numpy_helper.saturate_cast(x, dtype), onnx.numpy_helper.saturate_cast(x, dtype)
        assert mine.dtype == other.dtype and mine.tobytes() == other.tobytes()


@pytest.mark.parametrize(
    ("module", "name"),
    [("onnx_ml_pb2", "DESCRIPTOR")],
)
def test_what_is_not_provided_says_so(module: str, name: str) -> None:
    stub = getattr(compat, module)
    with pytest.raises(compat.NotProvidedError, match=f"onnx.{module}.{name} is not provided"):
        getattr(stub, name)
    assert isinstance(compat.NotProvidedError("x"), NotImplementedError)
    assert not hasattr(stub, "pytest_plugins")  # other names are plain AttributeErrors


@pytest.mark.parametrize(
    ("op", "version", "domain"),
    [
        ("Relu", 14, ""),
        ("Relu", 5, ""),
        ("Reshape", 28, ""),
        ("TreeEnsemble", 5, "ai.onnx.ml"),
        ("Nope", 14, ""),
    ],
)
def test_defs_answers_as_onnx_defs(op: str, version: int, domain: str) -> None:
    assert compat.defs.has(op, version, domain) == onnx.defs.has(op, version, domain)
    try:
        theirs = onnx.defs.get_schema(op, version, domain)
    except onnx.defs.SchemaError:
        with pytest.raises(compat.defs.SchemaError):
            compat.defs.get_schema(op, version, domain)
        return
    mine = compat.defs.get_schema(op, version, domain)
    assert (mine.name, mine.since_version, mine.domain) == (theirs.name, theirs.since_version, theirs.domain)
    assert compat.defs.onnx_opset_version() == onnx.defs.onnx_opset_version()


def test_shape_inference_is_wirecodecs() -> None:
    from wirecodec import shape_inference

    assert compat.shape_inference.infer_shapes is shape_inference.infer_shapes
    assert compat.shape_inference.InferenceError is shape_inference.InferenceError
