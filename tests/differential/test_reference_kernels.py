"""The evaluator's fast kernels against onnxruntime: every path of Conv, LSTM and MatMul.

Conv has one numpy call per node (a 1x1 kernel as a matmul, a depthwise kernel as a sum
over the kernel's offsets, any other as one einsum with the group as an axis); LSTM and
MatMul make a strided operand contiguous before BLAS sees it. Each case here takes one of
those paths, and onnxruntime's outputs are the reference (bench/reference_evaluator.py
measures the speed; here only the values count).
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

from wirecodec import helper
from wirecodec.reference import ReferenceEvaluator

ort = pytest.importorskip("onnxruntime", reason="onnxruntime's outputs are the reference")

FLOAT, FLOAT16 = 1, 10


def _both(nodes: list[Any], feeds: dict[str, np.ndarray], opset: int = 17) -> tuple[list[Any], list[Any]]:
    elem = {np.dtype(np.float32): FLOAT, np.dtype(np.float16): FLOAT16}
    inputs = [helper.make_tensor_value_info(k, elem[v.dtype], list(v.shape)) for k, v in feeds.items()]
    outputs = [
        helper.make_tensor_value_info(nodes[-1].output[0], elem[next(iter(feeds.values())).dtype], None)
    ]
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    ours = ReferenceEvaluator(model).run(None, feeds)
    from wirecodec import encode

    session = ort.InferenceSession(encode(model), providers=["CPUExecutionProvider"])
    return ours, session.run(None, feeds)


# (input shape, weight shape, attributes): which path each takes is in its id
CONVS = {
    "dense-3x3-pad-stride": ((2, 4, 9, 11), (6, 4, 3, 3), {"pads": [1, 0, 2, 1], "strides": [2, 1]}),
    "dense-3x3-dilated": ((1, 3, 10, 10), (5, 3, 3, 3), {"dilations": [2, 1]}),
    "pointwise": ((2, 8, 5, 7), (3, 8, 1, 1), {}),
    "pointwise-stride-pad": ((1, 4, 7, 6), (5, 4, 1, 1), {"strides": [2, 3], "pads": [1, 0, 0, 1]}),
    "pointwise-1d": ((2, 4, 9), (3, 4, 1), {"strides": [2]}),
    "depthwise-3x3": ((2, 6, 8, 8), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1]}),
    "depthwise-multiplier-2": ((1, 3, 7, 9), (6, 1, 3, 2), {"group": 3, "strides": [2, 1]}),
    "depthwise-1d": ((2, 5, 12), (5, 1, 4), {"group": 5, "dilations": [2]}),
    "one-channel-long-kernel": ((1, 1, 64), (6, 1, 16), {"strides": [4], "pads": [8, 8]}),
    "depthwise-9x9": ((1, 4, 12, 12), (4, 1, 9, 9), {"group": 4, "pads": [4, 4, 4, 4]}),
    "grouped-2x3": ((2, 6, 7, 7), (4, 3, 3, 3), {"group": 2, "pads": [0, 1, 2, 0]}),
    "grouped-pointwise": ((1, 8, 4, 5), (8, 2, 1, 1), {"group": 4}),
    "grouped-3d": ((1, 4, 5, 6, 4), (6, 2, 2, 3, 2), {"group": 2}),
    "grouped-same-upper": (
        (1, 4, 6, 5),
        (4, 2, 3, 3),
        {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 2]},
    ),
}


@pytest.mark.parametrize("bias", [False, True])
@pytest.mark.parametrize("name", sorted(CONVS))
def test_conv_paths_match_onnxruntime(name: str, bias: bool) -> None:
    x_shape, w_shape, attrs = CONVS[name]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    feeds = {
        "X": rng.standard_normal(x_shape).astype(np.float32),
        "W": rng.standard_normal(w_shape).astype(np.float32),
    }
    if bias:
        feeds["B"] = rng.standard_normal(w_shape[0]).astype(np.float32)
    ours, theirs = _both([helper.make_node("Conv", list(feeds), ["Y"], **attrs)], feeds)
    assert ours[0].dtype == np.float32
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-4)


@pytest.mark.quick
def test_depthwise_float16_sums_in_float32() -> None:
    # 64 taps of one channel: summed in float16 the result drifts past onnxruntime's
    rng = np.random.default_rng(1)
    feeds = {
        "X": rng.random((1, 4, 16, 16)).astype(np.float16),
        "W": rng.random((4, 1, 8, 8)).astype(np.float16),
    }
    ours, theirs = _both([helper.make_node("Conv", ["X", "W"], ["Y"], group=4)], feeds)
    assert ours[0].dtype == np.float16
    wide = np.asarray(theirs[0], np.float32)
    np.testing.assert_allclose(ours[0].astype(np.float32), wide, rtol=2e-3, atol=1e-2)


def test_lstm_reads_a_transposed_input() -> None:
    rng = np.random.default_rng(2)
    hidden, size = 8, 5
    feeds = {
        "X": rng.standard_normal((2, 5, size)).astype(np.float32),  # (batch, seq, size): transposed below
        "W": rng.standard_normal((2, 4 * hidden, size)).astype(np.float32) * 0.3,
        "R": rng.standard_normal((2, 4 * hidden, hidden)).astype(np.float32) * 0.3,
        "B": rng.standard_normal((2, 8 * hidden)).astype(np.float32) * 0.1,
    }
    nodes = [
        helper.make_node("Transpose", ["X"], ["XT"], perm=[1, 0, 2]),
        helper.make_node("LSTM", ["XT", "W", "R", "B"], ["Y"], hidden_size=hidden, direction="bidirectional"),
    ]
    ours, theirs = _both(nodes, feeds)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("perm", [[1, 0, 2], [2, 1, 0], [0, 2, 1]])
def test_matmul_and_gemm_of_strided_operands(perm: list[int]) -> None:
    rng = np.random.default_rng(3)
    feeds = {
        "A": rng.standard_normal((6, 6, 6)).astype(np.float32),
        "B": rng.standard_normal((6, 4)).astype(np.float32),
    }
    nodes = [
        helper.make_node("Transpose", ["A"], ["AT"], perm=perm),
        helper.make_node("MatMul", ["AT", "B"], ["Y"]),
    ]
    ours, theirs = _both(nodes, feeds)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-5)
    strided = {
        "A": rng.standard_normal((5, 8)).astype(np.float32),
        "B": rng.standard_normal((3, 4)).astype(np.float32),
    }
    starts = helper.make_tensor("s", 7, [1], [1])
    ends = helper.make_tensor("e", 7, [1], [8])
    steps = helper.make_tensor("t", 7, [1], [2])
    axes = helper.make_tensor("a", 7, [1], [1])
    gemm = [
        helper.make_node("Constant", [], ["S"], value=starts),
        helper.make_node("Constant", [], ["E"], value=ends),
        helper.make_node("Constant", [], ["T"], value=steps),
        helper.make_node("Constant", [], ["X"], value=axes),
        helper.make_node("Slice", ["A", "S", "E", "X", "T"], ["AS"]),  # (5, 4), every other column
        helper.make_node("Gemm", ["AS", "B"], ["Y"], transB=1, alpha=0.5),
    ]
    strided["B"] = rng.standard_normal((3, 4)).astype(np.float32)
    ours, theirs = _both(gemm, strided)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["avg", "max"])
@pytest.mark.parametrize("ratio", [0, 2])
@pytest.mark.parametrize("transform", ["half_pixel", "output_half_pixel"])
def test_roi_align_matches_onnx_reference(mode: str, ratio: int, transform: str) -> None:
    # RoiAlign without a loop over samples: regions inside, across the border and outside
    onnx = pytest.importorskip("onnx", reason="onnx's evaluator is RoiAlign's reference here")
    from onnx.reference import ReferenceEvaluator as OnnxEvaluator

    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 9, 7)).astype(np.float32)
    rois = np.array(
        [[0, 0, 6, 8], [1.5, 2.2, 5.1, 4.4], [-3, -2, 3, 4], [5, 7, 12, 15], [20, 20, 25, 30]], np.float32
    )
    batch = np.array([0, 1, 1, 0, 1], np.int64)
    node = helper.make_node(
        "RoiAlign",
        ["X", "R", "B"],
        ["Y"],
        mode=mode,
        output_height=3,
        output_width=4,
        sampling_ratio=ratio,
        spatial_scale=0.8,
        coordinate_transformation_mode=transform,
    )
    io = [
        helper.make_tensor_value_info("X", FLOAT, None),
        helper.make_tensor_value_info("R", FLOAT, None),
        helper.make_tensor_value_info("B", 7, None),
        helper.make_tensor_value_info("Y", FLOAT, None),
    ]
    model = helper.make_model(
        helper.make_graph([node], "g", io[:3], io[3:]), opset_imports=[helper.make_opsetid("", 16)]
    )
    from wirecodec import encode

    feeds = {"X": x, "R": rois, "B": batch}
    ours = ReferenceEvaluator(model).run(None, feeds)[0]
    theirs = OnnxEvaluator(onnx.load_from_string(encode(model))).run(None, feeds)[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_resize_crops_an_axis_it_does_not_scale(mode: str) -> None:
    # scale 1 on the last axis, yet tf_crop_and_resize's roi moves its positions (onnx's
    # evaluator is the reference: onnxruntime places tf_crop_and_resize's samples otherwise)
    onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference here")
    from onnx.reference import ReferenceEvaluator as OnnxEvaluator

    from wirecodec import encode

    rng = np.random.default_rng(5)
    feeds = {
        "X": rng.standard_normal((1, 2, 6, 5)).astype(np.float32),
        "roi": np.array([0, 0, 0.1, 0.2, 1, 1, 0.9, 0.8], np.float32),
        "scales": np.array([1, 1, 1.5, 1], np.float32),
    }
    node = helper.make_node(
        "Resize",
        ["X", "roi", "scales"],
        ["Y"],
        mode=mode,
        coordinate_transformation_mode="tf_crop_and_resize",
        extrapolation_value=-3.0,
    )
    io = [helper.make_tensor_value_info(k, FLOAT, list(v.shape)) for k, v in feeds.items()]
    graph = helper.make_graph([node], "g", io, [helper.make_tensor_value_info("Y", FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    ours = ReferenceEvaluator(model).run(None, feeds)[0]
    theirs = OnnxEvaluator(onnx.load_from_string(encode(model))).run(None, feeds)[0]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
