"""onnxruntime runs models we saved with external data and gives exactly the original's outputs."""

from __future__ import annotations

import pathlib
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from wirecodec.files.load import load
from wirecodec.files.save import save

onnx = pytest.importorskip("onnx", reason="onnx builds the reference models (test extra)")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
from onnx import helper, numpy_helper  # noqa: E402

OT = onnx.TensorProto


def _mlp() -> tuple[Any, dict[str, np.ndarray]]:
    """Two MatMul/Add layers with ~2.5 MB of weights."""
    rng = np.random.default_rng(0)
    weights = {
        "w1": rng.standard_normal((256, 2048)).astype(np.float32) * 0.05,
        "b1": rng.standard_normal(2048).astype(np.float32),
        "w2": rng.standard_normal((2048, 64)).astype(np.float32) * 0.05,
        "b2": rng.standard_normal(64).astype(np.float32),
    }
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "w1"], ["h0"]),
            helper.make_node("Add", ["h0", "b1"], ["h1"]),
            helper.make_node("Relu", ["h1"], ["h2"]),
            helper.make_node("MatMul", ["h2", "w2"], ["y0"]),
            helper.make_node("Add", ["y0", "b2"], ["y"]),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", OT.FLOAT, ["N", 256])],
        [helper.make_tensor_value_info("y", OT.FLOAT, ["N", 64])],
        initializer=[numpy_helper.from_array(array, name) for name, array in weights.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model, {"x": rng.standard_normal((5, 256)).astype(np.float32)}


def _conv() -> tuple[Any, dict[str, np.ndarray]]:
    """Conv → Relu → Conv → global pool → Gemm with ~1.3 MB of weights, one of them in float_data."""
    rng = np.random.default_rng(1)
    k1 = rng.standard_normal((128, 3, 5, 5)).astype(np.float32) * 0.1
    k2 = rng.standard_normal((256, 128, 3, 3)).astype(np.float32) * 0.05
    dense = rng.standard_normal((10, 256)).astype(np.float32)
    initializer = [
        numpy_helper.from_array(k1, "k1"),
        # Typed storage (float_data): save converts it to raw bytes on the way out.
        helper.make_tensor("k2", OT.FLOAT, k2.shape, k2.reshape(-1).tolist()),
        numpy_helper.from_array(rng.standard_normal(256).astype(np.float32), "c2"),
        numpy_helper.from_array(dense, "dense"),
        numpy_helper.from_array(np.zeros(10, np.float32), "bias"),
    ]
    graph = helper.make_graph(
        [
            helper.make_node("Conv", ["x", "k1"], ["a"], pads=[2, 2, 2, 2]),
            helper.make_node("Relu", ["a"], ["b"]),
            helper.make_node("Conv", ["b", "k2", "c2"], ["c"], strides=[2, 2]),
            helper.make_node("GlobalAveragePool", ["c"], ["d"]),
            helper.make_node("Flatten", ["d"], ["e"]),
            helper.make_node("Gemm", ["e", "dense", "bias"], ["y"], transB=1),
        ],
        "conv",
        [helper.make_tensor_value_info("x", OT.FLOAT, [2, 3, 32, 32])],
        [helper.make_tensor_value_info("y", OT.FLOAT, [2, 10])],
        initializer=initializer,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return model, {"x": rng.standard_normal((2, 3, 32, 32)).astype(np.float32)}


def _run(model: Any, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    outputs: list[np.ndarray] = session.run(None, feeds)
    return outputs


OPTIONS = {
    "one-file": {},
    "per-tensor": {"all_tensors_to_one_file": False},
    "sharded": {"max_shard_size": 1 << 20},
    "align-64k": {"align": 1 << 16, "location": "weights.bin"},
    "everything": {"size_threshold": 0},
}


@pytest.mark.parametrize("build", [_mlp, _conv], ids=["mlp", "conv"])
@pytest.mark.parametrize("options", OPTIONS.values(), ids=OPTIONS.keys())
def test_onnxruntime_runs_what_we_saved_with_external_data(
    tmp_path: pathlib.Path, build: Any, options: dict[str, Any]
) -> None:
    reference, feeds = build()
    expected = _run(reference.SerializeToString(), feeds)
    model = wirecodec.decode(ModelProto, reference.SerializeToString())
    path = tmp_path / "model.onnx"
    save(model, path, external_data=True, **options)
    data_bytes = sum(p.stat().st_size for p in tmp_path.iterdir() if p != path)
    assert data_bytes > 1_000_000 and path.stat().st_size < 20_000  # the weights really moved out
    got = _run(str(path), feeds)
    for mine, theirs in zip(got, expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("build", [_mlp, _conv], ids=["mlp", "conv"])
def test_onnxruntime_runs_what_we_loaded_from_onnx_external_data_and_saved_inline(
    tmp_path: pathlib.Path, build: Any
) -> None:
    reference, feeds = build()
    expected = _run(reference.SerializeToString(), feeds)
    onnx.save_model(reference, str(tmp_path / "split.onnx"), save_as_external_data=True, size_threshold=0)
    save(load(tmp_path / "split.onnx"), tmp_path / "whole.onnx")
    for mine, theirs in zip(_run(str(tmp_path / "whole.onnx"), feeds), expected, strict=True):
        np.testing.assert_array_equal(mine, theirs)
