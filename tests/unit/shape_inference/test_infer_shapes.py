"""Unit tests of the inference core: merging, fresh symbols, strict mode, scopes, functions, data_prop."""

from __future__ import annotations

import pathlib

import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper
from wirecodec.cli import main
from wirecodec.protobuf.codec import encode
from wirecodec.shape_inference import InferenceError, infer_shapes, infer_shapes_path
from wirecodec.shape_inference._types import TensorType, from_proto
from wirecodec.shape_inference.ops._util import broadcast

F = TensorProto.FLOAT
_vi = helper.make_tensor_value_info


def _model(nodes: list, inputs: list, outputs: list, **kw: object) -> ModelProto:
    graph = helper.make_graph(nodes, "g", inputs, outputs, **kw)  # type: ignore[arg-type]
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _types(model: ModelProto) -> dict[str, object]:
    g = model.graph
    return {v.name: from_proto(v.type) for v in (*g.value_info, *g.output) if v.HasField("type")}


def test_broadcast_keeps_sizes_and_one_symbol() -> None:
    assert broadcast([(3, 1, "N"), (4, "N")]) == (3, 4, "N")
    assert broadcast([("A",), ("B",)]) == (None,)
    with pytest.raises(InferenceError):
        broadcast([(3,), (4,)])


def test_unknown_axes_get_fresh_symbols_that_avoid_existing_ones() -> None:
    x = _vi("x", F, ["unk__0", None])
    model = _model([helper.make_node("NonZero", ["x"], ["y"])], [x], [_vi("y", 7, None)])
    assert _types(infer_shapes(model))["y"] == TensorType(7, (2, "unk__1"))


def test_declared_types_are_refined_not_replaced() -> None:
    x = _vi("x", F, ["N", 3])
    declared = _vi("r", F, [None, "M"])
    model = _model([helper.make_node("Relu", ["x"], ["r"])], [x], [_vi("r", F, None)])
    model.graph.value_info.append(declared)
    # an inferred size wins over a declared symbol; a declared symbol over an unknown
    assert _types(infer_shapes(model))["r"] == TensorType(F, ("N", 3))


def test_a_contradiction_is_skipped_unless_strict() -> None:
    x = _vi("x", F, [2, 3])
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [x], [_vi("y", F, [5, 3])])
    assert _types(infer_shapes(model))["y"] == TensorType(F, (5, 3))
    with pytest.raises(InferenceError, match="inferred size 2"):
        infer_shapes(model, strict_mode=True)


def test_reshape_uses_constant_and_data_prop_uses_shape_chain() -> None:
    x = _vi("x", F, ["B", 4, 6])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["b"], axis=0),
        helper.make_node("Concat", ["b", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    inits = [
        helper.make_tensor("zero", TensorProto.INT64, [1], [0]),
        helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1]),
    ]
    model = _model(nodes, [x], [_vi("y", F, None)], initializer=inits)
    assert _types(infer_shapes(model))["y"] == TensorType(F, ("unk__0", "unk__1"))
    assert _types(infer_shapes(model, data_prop=True))["y"] == TensorType(F, ("B", "unk__0"))


def test_if_branches_and_model_functions() -> None:
    then_g = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t"])],
        "then",
        [],
        [_vi("t", F, None)],
    )
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"])], "else", [], [_vi("e", F, None)])
    fn = helper.make_function(
        "local",
        "Double",
        ["a"],
        ["b"],
        [helper.make_node("Add", ["a", "a"], ["b"])],
        [helper.make_opsetid("", 18)],
    )
    nodes = [
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
        helper.make_node("Double", ["y"], ["z"], domain="local"),
    ]
    inputs = [
        _vi("c", TensorProto.BOOL, []),
        _vi("x", F, [2, "N"]),
    ]
    graph = helper.make_graph(nodes, "g", inputs, [_vi("z", F, None)])
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)], functions=[fn]
    )
    types = _types(infer_shapes(model))
    assert types["y"] == TensorType(F, (2, "N"))
    assert types["z"] == TensorType(F, (2, "N"))


def test_path_and_cli_keep_the_layout(tmp_path: pathlib.Path) -> None:
    x = _vi("x", F, ["N", 3])
    model = _model([helper.make_node("Relu", ["x"], ["y"])], [x], [_vi("y", F, None)])
    src = tmp_path / "m.onnx"
    src.write_bytes(encode(model))
    infer_shapes_path(src, tmp_path / "out.onnx")
    assert main(["infer-shapes", str(src), str(tmp_path / "out.onnxz")]) == 0
    from wirecodec.files.load import load
    from wirecodec.files.zip.container import load_zip

    for loaded in (load(str(tmp_path / "out.onnx")), load_zip(str(tmp_path / "out.onnxz"))):
        assert _types(loaded)["y"] == TensorType(F, ("N", 3))
    assert main(["infer-shapes", str(tmp_path / "missing.onnx"), str(tmp_path / "x.onnx")]) == 1
