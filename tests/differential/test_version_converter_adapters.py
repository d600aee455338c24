"""Differential: adapters the backend corpus does not reach, on small built models, against
onnx's converter: the same bytes where it converts, a ConvertError where it refuses."""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx", reason="onnx's converter is the reference")
from onnx import TensorProto, helper, version_converter  # noqa: E402

from schema_dsl.onnx import ModelProto  # noqa: E402
from wirecodec.errors import ConvertError  # noqa: E402
from wirecodec.protobuf.codec import decode  # noqa: E402
from wirecodec.version_converter import convert_version  # noqa: E402


def _info(name: str, elem_type: int, shape: list[int] | None) -> Any:
    return helper.make_tensor_value_info(name, elem_type, shape)


X = _info("x", TensorProto.FLOAT, [4, 5])
Y = _info("y", TensorProto.FLOAT, None)
IMAGE = _info("xi", TensorProto.FLOAT, [1, 1, 3, 3])
GRID = _info("g", TensorProto.FLOAT, [1, 2, 2, 2])
INDICES = _info("i", TensorProto.INT64, [1, 5])
UPDATES = _info("u", TensorProto.FLOAT, [1, 5])
SCALES = _info("s", TensorProto.FLOAT, [4])

CASES: dict[str, tuple[list[Any], list[Any], int, int]] = {
    "slice-9-10": ([helper.make_node("Slice", ["x"], ["y"], starts=[0, 1], ends=[2, 3], axes=[0, 1])],
                   [X], 9, 10),
    "slice-without-axes-9-13": ([helper.make_node("Slice", ["x"], ["y"], starts=[0], ends=[2])], [X], 9, 13),
    "gridsample-bilinear-19-20": ([helper.make_node("GridSample", ["xi", "g"], ["y"], mode="bilinear")],
                                  [IMAGE, GRID], 19, 20),
    "gridsample-bicubic-19-21": ([helper.make_node("GridSample", ["xi", "g"], ["y"], mode="bicubic")],
                                 [IMAGE, GRID], 19, 21),
    "scatter-none-16-15": ([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], reduction="none")],
                           [X, INDICES, UPDATES], 16, 15),
    "scatter-add-16-15": ([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"], reduction="add")],
                          [X, INDICES, UPDATES], 16, 15),
    "upsample-renamed-9-11": ([helper.make_node("Upsample", ["xi", "s"], ["t"], mode="nearest"),
                               helper.make_node("Relu", ["t"], ["y"])], [IMAGE, SCALES], 9, 11),
    "upsample-returned-9-11": ([helper.make_node("Upsample", ["xi", "s"], ["y"], mode="nearest")],
                               [IMAGE, SCALES], 9, 11),
    "clip-min-max-10-11": ([helper.make_node("Clip", ["x"], ["y"], min=-1.0, max=1.0)], [X], 10, 11),
    "clip-max-only-10-11": ([helper.make_node("Clip", ["x"], ["y"], max=1.0)], [X], 10, 11),
    "dropout-11-12": ([helper.make_node("Dropout", ["x"], ["y"], ratio=0.25)], [X], 11, 12),
    "topk-9-10": ([helper.make_node("TopK", ["x"], ["y", "k"], k=2)], [X], 9, 10),
    "reshape-4-5": ([helper.make_node("Reshape", ["x"], ["y"], shape=[5, 4])], [X], 4, 5),
    "split-12-18": ([helper.make_node("Split", ["x"], ["y", "z"], axis=1, split=[2, 3])],
                    [X], 12, 18),
    "argmax-select-last-12-11": ([helper.make_node("ArgMax", ["x"], ["y"], select_last_index=1)],
                                 [X], 12, 11),
    "softmax-last-axis-12-13": ([helper.make_node("Softmax", ["x"], ["y"], axis=1)], [X], 12, 13),
    "softmax-13-12": ([helper.make_node("Softmax", ["x"], ["y"])], [X], 13, 12),
    "lppool-17-18": ([helper.make_node("LpPool", ["xi"], ["y"], kernel_shape=[2, 2])], [IMAGE], 17, 18),
    "relu-13-14": ([helper.make_node("Relu", ["x"], ["y"])], [X], 13, 14),
    "unknown-op": ([helper.make_node("Frobnicate", ["x"], ["y"])], [X], 13, 14),
}


@pytest.mark.quick
@pytest.mark.parametrize("name", sorted(CASES))
def test_as_onnx_converts_or_refuses(name: str) -> None:
    nodes, inputs, start, target = CASES[name]
    outputs = [Y] + ([_info(o, TensorProto.FLOAT, None) for o in nodes[-1].output[1:]])
    model = helper.make_model(helper.make_graph(nodes, "g", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", start)])  # fmt: skip
    try:
        theirs: bytes | None = version_converter.convert_version(model, target).SerializeToString()
    except Exception:
        theirs = None
    try:
        converted = convert_version(decode(ModelProto, model.SerializeToString()), target)
        ours: bytes | None = converted.SerializeToString()
    except ConvertError as exc:
        assert exc.path.startswith("graph.node["), exc
        ours = None
    assert ours == theirs
