"""Quantized models x load, save (one file, external data, safetensors, zip) and the checker.

The models are made by onnxruntime's quantizer from a small float model (Conv, Relu,
MatMul): ``quantize_static`` in QDQ form (QuantizeLinear/DequantizeLinear pairs, int8 and
uint8 initializers, per-channel scales) and ``quantize_dynamic`` (MatMulInteger,
DynamicQuantizeLinear); a third holds int4 and uint4 weights behind DequantizeLinear
(opset 21, built with onnx's helper). Each cell: the bytes onnx writes are what we write
for a one-file save; ``onnx.load`` reads every array back from our external data and
safetensors files; onnxruntime gives the input model's outputs bit for bit on what we
wrote (a container is read back by wirecodec); the checker agrees with onnx's.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import wirecodec
from wirecodec.cli import main

onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime quantizes and runs the models (test extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

_RNG = np.random.default_rng(3)
_X = _RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)


def _float_model() -> Any:
    conv = numpy_helper.from_array((_RNG.standard_normal((8, 3, 3, 3)) / 4).astype(np.float32), "conv_w")
    bias = numpy_helper.from_array(_RNG.standard_normal(8).astype(np.float32), "conv_b")
    dense = numpy_helper.from_array((_RNG.standard_normal((8 * 8 * 8, 10)) / 16).astype(np.float32), "dense")
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "flat")
    nodes = [
        helper.make_node("Conv", ["x", "conv_w", "conv_b"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("Reshape", ["r", "flat"], ["f"]),
        helper.make_node("MatMul", ["f", "dense"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "float",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])],
        [conv, bias, dense, shape],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)


def _int4_model() -> Any:
    # Weights as 4-bit integers, per-axis scales and zero points of the same types.
    values = _RNG.integers(-8, 8, (16, 4)).astype(np.int8)
    weight = helper.make_tensor("w4", TensorProto.INT4, [16, 4], values.flatten().tolist())
    scale = numpy_helper.from_array(np.full(4, 0.05, np.float32), "w4_scale")
    zero = helper.make_tensor("w4_zero", TensorProto.INT4, [4], [0, 1, -1, 2])
    uvalues = _RNG.integers(0, 16, (4, 6)).astype(np.uint8)
    uweight = helper.make_tensor("u4", TensorProto.UINT4, [4, 6], uvalues.flatten().tolist())
    uscale = numpy_helper.from_array(np.array(0.1, np.float32), "u4_scale")
    uzero = helper.make_tensor("u4_zero", TensorProto.UINT4, [], [8])
    nodes = [
        helper.make_node("DequantizeLinear", ["w4", "w4_scale", "w4_zero"], ["w"], axis=1),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("DequantizeLinear", ["u4", "u4_scale", "u4_zero"], ["u"]),
        helper.make_node("MatMul", ["h", "u"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "int4",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6])],
        [weight, scale, zero, uweight, uscale, uzero],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


class _Calibration:
    """onnxruntime's CalibrationDataReader protocol: a few inputs, then None."""

    def __init__(self) -> None:
        self._left = [{"x": _RNG.standard_normal((1, 3, 8, 8)).astype(np.float32)} for _ in range(4)]

    def get_next(self) -> dict[str, Any] | None:
        return self._left.pop() if self._left else None


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    from onnxruntime import quantization

    folder = tmp_path_factory.mktemp("quantized")
    float_path = folder / "float.onnx"
    onnx.save_model(_float_model(), str(float_path))
    made = {
        "qdq-static": folder / "qdq.onnx",
        "dynamic": folder / "dynamic.onnx",
        "int4": folder / "int4.onnx",
    }
    quantization.quantize_static(
        str(float_path),
        str(made["qdq-static"]),
        _Calibration(),
        quant_format=quantization.QuantFormat.QDQ,
        per_channel=True,
        activation_type=quantization.QuantType.QUInt8,
        weight_type=quantization.QuantType.QInt8,
    )
    quantization.quantize_dynamic(
        str(float_path), str(made["dynamic"]), weight_type=quantization.QuantType.QUInt8
    )
    onnx.save_model(_int4_model(), str(made["int4"]))
    return made


def _feeds(name: str) -> dict[str, Any]:
    return {"x": np.linspace(-1, 1, 32, dtype=np.float32).reshape(2, 16)} if name == "int4" else {"x": _X}


def _outputs(model: Any, name: str) -> list[Any]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return list(session.run(None, _feeds(name)))


def _tensors(graph: Any) -> Iterator[Any]:
    yield from graph.initializer
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t


def _arrays(model: Any) -> dict[str, tuple[int, list[int], bytes]]:
    return {
        t.name: (t.data_type, list(t.dims), numpy_helper.to_array(t).astype(np.float64).tobytes())
        for t in _tensors(model.graph)
    }


def test_the_quantized_models_hold_what_the_matrix_is_about(models: dict[str, pathlib.Path]) -> None:
    types = {name: {t.data_type for t in _tensors(onnx.load(str(p)).graph)} for name, p in models.items()}
    assert {TensorProto.INT8, TensorProto.UINT8} <= types["qdq-static"] | types["dynamic"]
    assert {TensorProto.INT4, TensorProto.UINT4} <= types["int4"]
    ops = {n.op_type for n in onnx.load(str(models["qdq-static"])).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear"} <= ops


MODELS = ("qdq-static", "dynamic", "int4")
LAYOUTS = ("single", "external", "safetensors", "zip")


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", MODELS)
def test_a_quantized_model_saved_in_every_layout_reads_and_runs_alike(
    name: str, layout: str, models: dict[str, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    source = models[name]
    original = onnx.load(str(source))
    loaded = wirecodec.load(source)
    if layout == "single":
        out = tmp_path / "m.onnx"
        wirecodec.save(loaded, out)
        assert out.read_bytes() == original.SerializeToString()  # byte for byte as onnx writes it
    elif layout == "external":
        out = tmp_path / "m.onnx"
        wirecodec.save(loaded, out, external_data=True, size_threshold=0)
    elif layout == "safetensors":
        out = tmp_path / "m.onnx"
        if name == "int4":
            # Documented (docs/safetensors.md): INT4/UINT4 have no safetensors dtype, and the
            # save is refused naming the tensor, before any file is written.
            with pytest.raises(wirecodec.ExternalDataError, match="'w4': INT4 has no safetensors dtype"):
                wirecodec.save(loaded, out, external_data="m.safetensors", size_threshold=0)
            assert list(tmp_path.iterdir()) == []
            return
        wirecodec.save(loaded, out, external_data="m.safetensors", size_threshold=0)
    else:
        out = tmp_path / "m.onnxz"
        wirecodec.save_zip(loaded, out)
    back = (
        onnx.ModelProto.FromString(wirecodec.encode(wirecodec.load(out)))
        if layout == "zip"
        else onnx.load(str(out))
    )
    if layout in ("external", "safetensors"):
        stored = onnx.load(str(out), load_external_data=False)
        assert any(t.data_location == TensorProto.EXTERNAL for t in stored.graph.initializer)
    assert _arrays(back) == _arrays(original)
    if layout == "safetensors":  # and the safetensors package reads the same int8/uint8 bytes
        st_numpy = pytest.importorskip("safetensors.numpy", reason="the safetensors package (test extra)")
        held = st_numpy.load_file(str(tmp_path / "m.safetensors"))
        by_name = {t.name: numpy_helper.to_array(t) for t in original.graph.initializer}
        assert held and all(
            np.array_equal(held[k], by_name[k]) and held[k].dtype == by_name[k].dtype for k in held
        )
    for mine, theirs in zip(_outputs(back, name), _outputs(original, name), strict=True):
        np.testing.assert_array_equal(mine, theirs)


# Where each quantized operator takes a zero point that must have its tensor's type.
_ZERO_POINT = {"DequantizeLinear": 2, "MatMulInteger": 3, "ConvInteger": 3}


@pytest.mark.parametrize("name", MODELS)
def test_the_checker_agrees_with_onnx_on_quantized_models(
    name: str, models: dict[str, pathlib.Path], capsys: pytest.CaptureFixture[str]
) -> None:
    original = onnx.load(str(models[name]))
    onnx.checker.check_model(original, full_check=True)
    wirecodec.check(wirecodec.load(models[name]), full=True)
    capsys.readouterr()
    assert main(["check", "--full", str(models[name])]) == 0, capsys.readouterr()
    # A zero point whose type is not the quantized tensor's: both refuse.
    broken = onnx.ModelProto.FromString(original.SerializeToString())
    initializers = {t.name: t for t in broken.graph.initializer}
    zero = next(
        initializers[n.input[at]]
        for n in broken.graph.node
        for op, at in _ZERO_POINT.items()
        if n.op_type == op and len(n.input) > at and n.input[at] in initializers
    )
    wrong = {TensorProto.INT8: TensorProto.UINT8}.get(zero.data_type, TensorProto.INT8)
    replacement = numpy_helper.from_array(
        np.zeros(list(zero.dims), np.int8 if wrong == TensorProto.INT8 else np.uint8)
    )
    replacement.name = zero.name
    zero.CopyFrom(replacement)
    with pytest.raises((onnx.checker.ValidationError, onnx.shape_inference.InferenceError)):
        onnx.checker.check_model(broken, full_check=True)
    with pytest.raises(wirecodec.CheckError):
        wirecodec.check(wirecodec.load(broken.SerializeToString()), full=True)
