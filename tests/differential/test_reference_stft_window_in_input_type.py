"""STFT weights each frame by the window in the inputs' type (float32 times float32), as
onnx's evaluator does and as onnx's own test computes its expected values
(``np.fft.fft(signal[start:stop] * window)``): a product taken in float64 instead lands up
to 3e-6 away, which onnx's test (rtol 1e-7) refuses."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from wirecodec import encode, helper  # noqa: E402
from wirecodec.reference import ReferenceEvaluator  # noqa: E402

F, I64 = 1, 7


def _model() -> bytes:
    names = (("signal", F, [None, None, None]), ("frame_step", I64, [None]), ("window", F, [None]))
    inputs = [helper.make_tensor_value_info(n, t, s) for n, t, s in names]
    inputs.append(helper.make_tensor_value_info("frame_length", I64, [None]))
    node = helper.make_node("STFT", ["signal", "frame_step", "window", "frame_length"], ["Y"])
    y = helper.make_tensor_value_info("Y", F, [None, None, None, None])
    graph = helper.make_graph([node], "g", inputs, [y])
    return encode(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))


def _feeds(length: int, step: int, size: int) -> dict[str, Any]:
    window = 0.5 + 0.5 * np.cos(2 * np.pi * np.arange(0, length, 1, dtype=np.float32) / length)
    return {
        "signal": np.arange(size).reshape((1, size, 1)).astype(np.float32),
        "frame_step": np.array(step, dtype=np.int64),
        "window": window,
        "frame_length": np.array(length, dtype=np.int64),
    }


@pytest.mark.parametrize(("length", "step", "size"), [(16, 8, 128), (10, 3, 64)])
def test_stft_with_a_window_as_numpy_and_onnx_reference(length: int, step: int, size: int) -> None:
    feeds = _feeds(length, step, size)
    (got,) = ReferenceEvaluator(_model()).run(None, feeds)
    signal, window = feeds["signal"], feeds["window"]
    half = length // 2 + 1
    frames = 1 + (size - length) // step
    want = np.empty([1, frames, half, 2], dtype=np.float32)
    for i in range(frames):
        spectrum = np.fft.fft(signal[0, i * step : i * step + length, 0] * window)[:half]
        want[0, i] = np.stack((spectrum.real, spectrum.imag), axis=1)
    np.testing.assert_allclose(got, want, rtol=1e-7)
    onnx_reference = pytest.importorskip("onnx.reference", reason="onnx's evaluator is the second oracle")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (theirs,) = onnx_reference.ReferenceEvaluator(_model()).run(None, feeds)
    np.testing.assert_allclose(got, theirs, rtol=1e-7)
