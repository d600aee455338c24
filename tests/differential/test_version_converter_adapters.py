"""Differential: adapters the backend corpus does not reach, on small built models, against
onnx's converter: the same bytes where it converts, a ConvertError where it refuses."""

from __future__ import annotations

import struct
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
XU = _info("xu", TensorProto.FLOAT, None)  # rank unknown
R5 = _info("r", TensorProto.FLOAT, [5])
W = _info("w", TensorProto.FLOAT, [5, 3])
C3 = _info("c", TensorProto.FLOAT, [3])
OPT = helper.make_value_info(
    "o", helper.make_optional_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [3]))
)
RAW_SCALES = helper.make_tensor("v", TensorProto.FLOAT, [4], struct.pack("<4f", 1, 1, 2, 3), raw=True)
SC = _info("sc", TensorProto.FLOAT, [])
ZP = _info("zp", TensorProto.UINT8, [])
Q = _info("q", TensorProto.UINT8, [4, 5])

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
    # Softmax 12 -> 13 off the last axis, or where the rank is unknown (PaddleOCR's models):
    # Flatten, the operator along the last axis, Reshape back (onnx's rewrite, its names)
    "softmax-first-axis-12-13": ([helper.make_node("Softmax", ["x"], ["y"], axis=0)], [X], 12, 13),
    "softmax-unknown-rank-12-13": ([helper.make_node("Softmax", ["xu"], ["y"], axis=1)], [XU], 12, 13),
    "softmax-unknown-rank-default-axis-12-13": ([helper.make_node("Softmax", ["xu"], ["y"])], [XU], 12, 13),
    "softmax-unknown-rank-last-axis-12-13": ([helper.make_node("Softmax", ["xu"], ["y"], axis=-1)],
                                             [XU], 12, 13),
    "logsoftmax-unknown-rank-then-more-12-13": ([
        helper.make_node("LogSoftmax", ["xu"], ["t"], axis=-2),
        helper.make_node("Relu", ["t"], ["r"]),
        helper.make_node("Unsqueeze", ["r"], ["y"], axes=[0]),
    ], [XU], 12, 13),
    # Pad 10 -> 11: pads an initializer, the constant value a Constant input (float data: onnx's bytes)
    "pad-value-10-11": ([helper.make_node("Pad", ["x"], ["y"], pads=[1, 2, 1, 2], value=1.5)], [X], 10, 11),
    "pad-default-value-then-more-10-13": ([
        helper.make_node("Pad", ["x"], ["t"], pads=[1, 2, 1, 2]),
        helper.make_node("Unsqueeze", ["t"], ["y"], axes=[0]),
    ], [X], 10, 13),
    "pad-reflect-10-11": ([helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 1], mode="reflect")],
                          [X], 10, 11),
    "pad-edge-10-18": ([helper.make_node("Pad", ["x"], ["y"], pads=[0, 1, 0, 1], mode="edge")], [X], 10, 18),
    # Resize 18 -> 17: the defaults 17 has dropped, the rest refused
    "resize-defaults-18-17": ([helper.make_node("Resize", ["xi", "", "s"], ["y"], antialias=0,
                                                keep_aspect_ratio_policy="stretch")],
                              [IMAGE, SCALES], 18, 17),
    "resize-antialias-18-17": ([helper.make_node("Resize", ["xi", "", "s"], ["y"], antialias=1)],
                               [IMAGE, SCALES], 18, 17),
    "resize-policy-18-17": ([helper.make_node("Resize", ["xi", "", "s"], ["y"],
                                              keep_aspect_ratio_policy="not_larger")],
                            [IMAGE, SCALES], 18, 17),
    "resize-axes-18-17": ([helper.make_node("Resize", ["xi", "", "s2"], ["y"], axes=[2, 3])],
                          [IMAGE, _info("s2", TensorProto.FLOAT, [2])], 18, 17),
    "resize-half-pixel-symmetric-19-17": ([helper.make_node("Resize", ["xi", "", "s"], ["y"],
                                                            coordinate_transformation_mode="half_pixel_symmetric")],
                                          [IMAGE, SCALES], 19, 17),
    "resize-plain-19-17": ([helper.make_node("Resize", ["xi", "", "s"], ["y"], mode="linear")],
                           [IMAGE, SCALES], 19, 17),
    # QuantizeLinear and DequantizeLinear 21 -> 20: block_size 0 and output_dtype go, the rest refused
    "quantize-zero-point-21-20": ([helper.make_node("QuantizeLinear", ["x", "sc", "zp"], ["y"],
                                                    block_size=0, output_dtype=TensorProto.UINT8)],
                                  [X, SC, ZP], 21, 20),
    "quantize-output-dtype-int8-21-20": ([helper.make_node("QuantizeLinear", ["x", "sc"], ["y"],
                                                           output_dtype=TensorProto.INT8)], [X, SC], 21, 20),
    "quantize-output-dtype-uint8-21-20": ([helper.make_node("QuantizeLinear", ["x", "sc"], ["y"],
                                                            output_dtype=TensorProto.UINT8)],
                                          [X, SC], 21, 20),
    "quantize-int16-21-20": ([helper.make_node("QuantizeLinear", ["x", "sc", "zp16"], ["y"])],
                             [X, SC, _info("zp16", TensorProto.INT16, [])], 21, 20),
    "dequantize-blocked-21-20": ([helper.make_node("DequantizeLinear", ["q", "sc2"], ["y"], axis=0,
                                                   block_size=2)],
                                 [Q, _info("sc2", TensorProto.FLOAT, [2, 5])], 21, 20),
    "dequantize-block-0-21-20": ([helper.make_node("DequantizeLinear", ["q", "sc"], ["y"], block_size=0)],
                                 [Q, SC], 21, 20),
    # Upsample's scales: two attributes (opset 6), a list attribute (7, 8), an input (9)
    "upsample-scales-8-9": ([helper.make_node("Upsample", ["xi"], ["y"], scales=[1.0, 1.0, 2.0, 2.0])],
                            [IMAGE], 8, 9),
    "upsample-constant-scales-9-8": ([
        helper.make_node("Constant", [], ["sc4"], value=helper.make_tensor("v", TensorProto.FLOAT, [4],
                                                                            [1.0, 1.0, 2.0, 3.0])),
        helper.make_node("Upsample", ["xi", "sc4"], ["y"]),
    ], [IMAGE], 9, 8),
    "upsample-raw-constant-scales-9-7": ([
        helper.make_node("Constant", [], ["sc4"], value=RAW_SCALES),
        helper.make_node("Upsample", ["xi", "sc4"], ["y"]),
    ], [IMAGE], 9, 7),
    "upsample-input-scales-9-8": ([helper.make_node("Upsample", ["xi", "s"], ["y"])], [IMAGE, SCALES], 9, 8),
    # Going down to 8: float data kept as it is (integer data: see test_refusals)
    "flatten-float-9-8": ([helper.make_node("Flatten", ["x"], ["y"])], [X], 9, 8),
    "matmul-greater-float-9-8": ([helper.make_node("MatMul", ["x", "xt"], ["m"]),
                                  helper.make_node("Greater", ["m", "m"], ["y"])],
                                 [X, _info("xt", TensorProto.FLOAT, [5, 4])], 9, 8),
    "cast-to-string-9-8": ([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.STRING)], [X], 9, 8),
    "cast-float-9-8": ([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT32)], [X], 9, 8),
    # MaxPool 8 -> 7: storage_order goes, Indices refused; Optional inputs at 17
    "maxpool-storage-order-8-7": ([helper.make_node("MaxPool", ["xi"], ["y"], kernel_shape=[2, 2],
                                                    storage_order=1)], [IMAGE], 8, 7),
    "maxpool-indices-8-7": ([helper.make_node("MaxPool", ["xi"], ["y", "ix"], kernel_shape=[2, 2])],
                            [IMAGE], 8, 7),
    **{
        f"{op.lower()}-{kind}-18-17": ([helper.make_node(op, [value.name], ["y"])], [value], 18, 17)
        for op in ("OptionalHasElement", "OptionalGetElement")
        for kind, value in (("optional", OPT), ("tensor", X))
    },
    # numpy broadcasting down to opset 6's broadcast flag; Sum, Max at 7 without broadcasting
    "add-suffix-8-5": ([helper.make_node("Add", ["x", "r"], ["y"])], [X, R5], 8, 5),
    "mul-ones-8-6": ([helper.make_node("Mul", ["x", "r"], ["y"])], [X, _info("r", TensorProto.FLOAT, [1, 5])],
                     8, 6),
    "sub-same-8-6": ([helper.make_node("Sub", ["x", "x"], ["y"])], [X], 8, 6),
    "div-not-suffix-8-6": ([helper.make_node("Div", ["x", "r"], ["y"])],
                           [X, _info("r", TensorProto.FLOAT, [4, 1])], 8, 6),
    "pow-first-smaller-8-6": ([helper.make_node("Pow", ["r", "x"], ["y"])], [X, R5], 8, 6),
    "add-unknown-shape-8-6": ([helper.make_node("Add", ["xu", "xu"], ["y"])], [XU], 8, 6),
    "sum-same-8-7": ([helper.make_node("Sum", ["x", "x", "x"], ["y"])], [X], 8, 7),
    "max-same-8-7": ([helper.make_node("Max", ["x", "x"], ["y"])], [X], 8, 7),
    # Gemm's C: a broadcast flag (6) or numpy broadcasting (7)
    "gemm-row-bias-7-6": ([helper.make_node("Gemm", ["x", "w", "c"], ["y"])], [X, W, C3], 7, 6),
    "gemm-full-bias-7-6": ([helper.make_node("Gemm", ["x", "w", "c"], ["y"])],
                           [X, W, _info("c", TensorProto.FLOAT, [4, 3])], 7, 6),
    "gemm-transposed-8-5": ([helper.make_node("Gemm", ["x", "w", "c"], ["y"], transA=1, transB=1)],
                            [X, _info("w", TensorProto.FLOAT, [3, 4]), _info("c", TensorProto.FLOAT, [5, 1])],
                            8, 5),
    "gemm-column-bias-bad-7-6": ([helper.make_node("Gemm", ["x", "w", "c"], ["y"])],
                                 [X, W, _info("c", TensorProto.FLOAT, [4, 1, 1])], 7, 6),
    "gemm-broadcast-flag-6-7": ([helper.make_node("Gemm", ["x", "w", "c"], ["y"], broadcast=1)],
                                [X, W, C3], 6, 7),
    "gemm-no-flag-6-9": ([helper.make_node("Gemm", ["x", "w", "c"], ["y"])],
                         [X, W, _info("c", TensorProto.FLOAT, [4, 3])], 6, 9),
    "hardmax-last-axis-12-13": ([helper.make_node("Hardmax", ["x"], ["y"], axis=1)], [X], 12, 13),
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


@pytest.mark.parametrize(
    ("op", "axis", "rank"),
    [("Softmax", 1, 3), ("LogSoftmax", 0, 3), ("Hardmax", 1, 3), ("Hardmax", -2, 4), ("Softmax", 1, 2)],
)
def test_softmax_12_13_computes_what_opset_12_did(op: str, axis: int, rank: int) -> None:
    """Run by onnxruntime on the model's own data: the opset-13 model we make (its input's
    rank unknown, as in PaddleOCR's exports) gives what the opset-12 model gave. (onnx keeps
    a Hardmax's axis as it was, which computes another thing: we rewrite it as Softmax.)"""
    ort = pytest.importorskip("onnxruntime", reason="the converted model is run to show it computes the same")
    import numpy as np

    graph = helper.make_graph([helper.make_node(op, ["xu"], ["y"], axis=axis)], "g", [XU], [Y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    model.ir_version = 8
    converted = convert_version(decode(ModelProto, model.SerializeToString()), 13)
    assert [n.op_type for n in converted.graph.node] == ["Shape", "Flatten", op, "Reshape"]
    data = np.random.default_rng(7).standard_normal((2, 3, 4, 5)[:rank]).astype(np.float32)
    data[(0,) * rank] = 10.0  # a clear maximum for Hardmax

    def run(payload: bytes) -> Any:
        session = ort.InferenceSession(payload, providers=["CPUExecutionProvider"])
        return session.run(None, {"xu": data})[0]

    np.testing.assert_allclose(run(converted.SerializeToString()), run(model.SerializeToString()), rtol=1e-6)


@pytest.mark.parametrize(
    ("elem_type", "mode"),
    [(TensorProto.FLOAT, "constant"), (TensorProto.DOUBLE, "constant"), (TensorProto.FLOAT16, "constant"),
     (TensorProto.FLOAT, "reflect"), (TensorProto.DOUBLE, "edge")],
)  # fmt: skip
def test_pad_10_11_computes_what_opset_10_did(elem_type: int, mode: str) -> None:
    """Run by onnxruntime: the opset-11 Pad we make gives what the opset-10 one gave, for
    double and float16 data too (onnx writes a float constant value there, which opset 11
    refuses: Pad-11's value has the data's type)."""
    ort = pytest.importorskip("onnxruntime", reason="the converted model is run to show it computes the same")
    import numpy as np

    dtype = helper.tensor_dtype_to_np_dtype(elem_type)
    graph = helper.make_graph(
        [helper.make_node("Pad", ["x"], ["y"], pads=[1, 2, 0, 1], mode=mode, value=3.0)],
        "g", [_info("x", elem_type, [3, 4])], [_info("y", elem_type, None)],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 10)])
    model.ir_version = 8
    converted = convert_version(decode(ModelProto, model.SerializeToString()), 11)
    assert [n.op_type for n in converted.graph.node][-1] == "Pad"
    data = (np.arange(12).reshape(3, 4) * 2).astype(dtype)

    def run(payload: bytes) -> Any:
        session = ort.InferenceSession(payload, providers=["CPUExecutionProvider"])
        return session.run(None, {"x": data})[0]

    ours, before = run(converted.SerializeToString()), run(model.SerializeToString())
    assert ours.dtype == before.dtype
    np.testing.assert_array_equal(ours, before)


def test_group_normalization_20_21_computes_what_opset_18_did() -> None:
    """GroupNormalization-21 takes a scale and bias per channel: ours repeats the per-group
    ones (Reshape, Expand, Reshape) and gives what the opset-18 model gave in onnxruntime.
    onnx 1.23's converter leaves the node as it was (it never calls its own adapter for
    the deprecated GroupNormalization-18), a model onnxruntime then refuses."""
    ort = pytest.importorskip("onnxruntime", reason="the converted model is run to show it computes the same")
    import numpy as np

    node = helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=3, epsilon=1e-3)
    graph = helper.make_graph(
        [node], "g",
        [_info("x", TensorProto.FLOAT, [2, 6, 3, 3]), _info("s", TensorProto.FLOAT, [3]),
         _info("b", TensorProto.FLOAT, [3])],
        [Y],
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 9
    converted = convert_version(decode(ModelProto, model.SerializeToString()), 21)
    assert [n.op_type for n in converted.graph.node].count("Expand") == 2
    feeds = {
        "x": np.random.default_rng(1).standard_normal((2, 6, 3, 3)).astype(np.float32),
        "s": np.array([1.0, 2.0, 3.0], np.float32),
        "b": np.array([0.0, 1.0, -1.0], np.float32),
    }

    def run(payload: bytes) -> Any:
        return ort.InferenceSession(payload, providers=["CPUExecutionProvider"]).run(None, feeds)[0]

    np.testing.assert_allclose(run(converted.SerializeToString()), run(model.SerializeToString()), atol=1e-5)


@pytest.mark.parametrize("target", [7, 9])
def test_upsample_6_7_nodes_as_onnx_writes_them(target: int) -> None:
    """Upsample-1's height_scale and width_scale become scales. The nodes are onnx's; the
    output's inferred shape is not compared (wirecodec infers a rank-4 shape for
    Upsample-1, onnx none)."""
    node = helper.make_node("Upsample", ["xi"], ["y"], height_scale=2.0, width_scale=3.0, mode="bilinear")
    model = helper.make_model(helper.make_graph([node], "g", [IMAGE], [Y]),
                              opset_imports=[helper.make_opsetid("", 6)])  # fmt: skip
    theirs = version_converter.convert_version(model, target).graph.node
    ours = convert_version(decode(ModelProto, model.SerializeToString()), target).graph.node
    assert [n.SerializeToString() for n in ours] == [n.SerializeToString() for n in theirs]
    assert len(ours) == (1 if target == 7 else 2)


@pytest.mark.parametrize(("op", "axis"), [("Softmax", 0), ("Softmax", 1), ("LogSoftmax", -2), ("Softmax", 2)])
def test_softmax_13_12_computes_what_opset_13_did(op: str, axis: int) -> None:
    """Going down to 12 off the last axis, the axis is transposed to the end and back (onnx
    keeps the axis, which at opset 12 normalises over every axis from it on)."""
    ort = pytest.importorskip("onnxruntime", reason="the converted model is run to show it computes the same")
    import numpy as np

    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], axis=axis)], "g",
                              [_info("x", TensorProto.FLOAT, [2, 3, 4])], [Y])  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    converted = convert_version(decode(ModelProto, model.SerializeToString()), 12)
    last = axis in (2, -1)
    assert [n.op_type for n in converted.graph.node] == ([op] if last else ["Transpose", op, "Transpose"])
    data = np.random.default_rng(3).standard_normal((2, 3, 4)).astype(np.float32)

    def run(payload: bytes) -> Any:
        return ort.InferenceSession(payload, providers=["CPUExecutionProvider"]).run(None, {"x": data})[0]

    np.testing.assert_allclose(run(converted.SerializeToString()), run(model.SerializeToString()), rtol=1e-5)


def test_softmax_13_12_off_the_last_axis_of_an_unknown_rank_is_refused() -> None:
    graph = helper.make_graph([helper.make_node("Softmax", ["xu"], ["y"], axis=1)], "g", [XU], [Y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(ConvertError, match="unknown rank has no opset 12 form") as caught:
        convert_version(decode(ModelProto, model.SerializeToString()), 12)
    assert caught.value.path == "graph.node[0]"


@pytest.mark.parametrize(
    ("axis", "second", "axes"), [(0, [2, 3], [2, 3]), (1, [3, 4], [2]), (-3, [3, 4], [2])]
)
def test_broadcast_from_an_axis_6_7_unsqueezes_the_second_input(
    axis: int, second: list[int], axes: list[int]
) -> None:
    """Add-6 with broadcast=1 and an axis aligns the second input at that axis; opset 7
    broadcasts from the right, so the second input gets trailing 1s up to the first's last
    axis. For axis 0 the nodes are onnx's (onnx pads to the first's rank, which misaligns
    any other axis: there it differs). The inferred types are not compared: wirecodec's
    shape inference does not read Add-6's axis broadcast."""
    node = helper.make_node("Add", ["a", "b"], ["y"], broadcast=1, axis=axis)
    inputs = [_info("a", TensorProto.FLOAT, [2, 3, 4, 5]), _info("b", TensorProto.FLOAT, second)]
    graph = helper.make_graph([node], "g", inputs, [Y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    ours = convert_version(decode(ModelProto, model.SerializeToString()), 7).graph.node
    assert [n.op_type for n in ours] == ["Unsqueeze", "Add"]
    assert list(ours[0].attribute[0].ints) == axes and list(ours[1].attribute) == []
    if axis == 0:
        theirs = version_converter.convert_version(model, 7).graph.node
        assert [n.SerializeToString() for n in ours] == [n.SerializeToString() for n in theirs]
