"""The signal operators against onnx's inference: STFT's frames and bins from the signal,
the step, the window and frame_length (and their ranks), the windows' length and
MelWeightMatrix's shape from constant inputs. Both refuse in strict mode, or both give
the same bytes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec import decode, encode
from wirecodec.shape_inference import InferenceError, infer_shapes

onnx = require_onnx()
helper, F = onnx.helper, onnx.TensorProto.FLOAT


def _model(node: Any, inputs: dict[str, Any], constants: dict[str, Any]) -> Any:
    infos = [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()]
    initializer = [onnx.numpy_helper.from_array(np.array(v), n) for n, v in constants.items()]
    graph = helper.make_graph([node], "g", infos, [], initializer=initializer)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _same(model: Any) -> None:
    try:
        theirs: bytes | None = onnx.shape_inference.infer_shapes(
            model, check_type=True, strict_mode=True
        ).SerializeToString()
    except onnx.shape_inference.InferenceError:
        theirs = None
    try:
        ours: bytes | None = encode(
            infer_shapes(decode(ModelProto, model.SerializeToString()), check_type=True, strict_mode=True)
        )
    except InferenceError:
        ours = None
    assert ours == theirs


@pytest.mark.parametrize("onesided", [None, 0, 1])
@pytest.mark.parametrize("signal", [(2, 10, 1), (2, 10, 2), (2, None, 1), None, (3,)])
@pytest.mark.parametrize("window", [(5,), (4,), None, (5, 1)])
@pytest.mark.parametrize("frame_length", [None, 4])
@pytest.mark.parametrize("step", [2, [2, 2]])
def test_stft_as_onnx(
    onesided: int | None, signal: Any, window: Any, frame_length: int | None, step: Any
) -> None:
    names = ["signal", "step", "window" if window else "", "length" if frame_length else ""]
    while not names[-1]:
        names.pop()
    inputs = {"signal": (F, signal), **({"window": (F, window)} if window else {})}
    constants = {"step": np.int64(step) if isinstance(step, int) else np.array(step, np.int64)}
    if frame_length:
        constants["length"] = np.int64(frame_length)
    attributes = {} if onesided is None else {"onesided": onesided}
    _same(_model(helper.make_node("STFT", names, ["y"], **attributes), inputs, constants))


@pytest.mark.quick
@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
@pytest.mark.parametrize("size", [10, np.int32(7), None])
@pytest.mark.parametrize("datatype", [None, onnx.TensorProto.DOUBLE])
def test_windows_as_onnx(op: str, size: Any, datatype: int | None) -> None:
    attributes = {} if datatype is None else {"output_datatype": datatype}
    node = helper.make_node(op, ["n"], ["y"], **attributes)
    if size is None:
        _same(_model(node, {"n": (onnx.TensorProto.INT64, ())}, {}))
    else:
        _same(_model(node, {}, {"n": np.array(size, np.int32 if isinstance(size, np.int32) else np.int64)}))


@pytest.mark.parametrize("known", [True, False])
def test_mel_weight_matrix_as_onnx(known: bool) -> None:
    node = helper.make_node("MelWeightMatrix", ["a", "b", "c", "d", "e"], ["y"])
    constants: dict[str, Any] = {"c": np.int64(8000), "d": np.float32(0), "e": np.float32(4000)}
    inputs: dict[str, Any] = {}
    if known:
        constants.update(a=np.int64(8), b=np.int64(16))
    else:
        inputs = {"a": (onnx.TensorProto.INT64, ()), "b": (onnx.TensorProto.INT64, ())}
    _same(_model(node, inputs, constants))


def test_a_zero_step_is_refused() -> None:
    # onnx divides by it and writes a meaningless size (-9223372036854775807 frames here)
    node = helper.make_node("STFT", ["signal", "step", "window"], ["y"])
    model = _model(node, {"signal": (F, (2, 10, 1)), "window": (F, (5,))}, {"step": np.int64(0)})
    with pytest.raises(InferenceError, match="frame_step must be positive"):
        infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True)
