"""Shape inference at edges the corpus does not reach, against onnx's: a reverse Slice to
the start, an axis equal to the rank, and fresh symbols beside ones used only in a branch.
Each model is built with onnx's helper and inferred by both; the results must be the same
bytes (or, in strict mode, both must refuse)."""

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
INT64_MIN = np.iinfo(np.int64).min


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], **graph: Any) -> Any:
    made = helper.make_graph(nodes, "g", inputs, outputs, **graph)
    return helper.make_model(made, opset_imports=[helper.make_opsetid("", 18)])


def _constants(**values: list[int]) -> list[Any]:
    return [onnx.numpy_helper.from_array(np.array(v, np.int64), name) for name, v in values.items()]


def _both(model: Any, strict: bool = False) -> tuple[bytes, bytes]:
    theirs = onnx.shape_inference.infer_shapes(model, strict_mode=strict).SerializeToString()
    ours = encode(infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=strict))
    return ours, theirs


@pytest.mark.parametrize(
    ("starts", "ends", "steps"),
    [([-1], [INT64_MIN], [-1]), ([4], [-6], [-2]), ([3], [-100], [-1]), ([-1], [0], [-1]), ([0], [5], [2])],
)
def test_slice_lengths_as_onnx(starts: list[int], ends: list[int], steps: list[int]) -> None:
    model = _model(
        [helper.make_node("Slice", ["x", "starts", "ends", "axes", "steps"], ["y"])],
        [helper.make_tensor_value_info("x", F, [5, 3])],
        [helper.make_tensor_value_info("y", F, None)],
        initializer=_constants(starts=starts, ends=ends, axes=[0], steps=steps),
    )
    ours, theirs = _both(model)
    assert ours == theirs


@pytest.mark.parametrize(
    ("op", "attributes"), [("Gather", {"axis": 2}), ("Concat", {"axis": 2}), ("Flatten", {"axis": 3})]
)
def test_an_axis_past_the_rank_is_refused_in_strict_mode_as_onnx_refuses_it(
    op: str, attributes: dict[str, int]
) -> None:
    inputs = ["x", "i"] if op == "Gather" else ["x", "x"] if op == "Concat" else ["x"]
    model = _model(
        [helper.make_node(op, inputs, ["y"], **attributes)],
        [helper.make_tensor_value_info("x", F, [2, 3])],
        [helper.make_tensor_value_info("y", F, None)],
        initializer=_constants(i=[0]),
    )
    with pytest.raises(onnx.shape_inference.InferenceError):
        onnx.shape_inference.infer_shapes(model, strict_mode=True)
    with pytest.raises(InferenceError):
        infer_shapes(decode(ModelProto, model.SerializeToString()), strict_mode=True)
    ours, theirs = _both(model)  # not strict: both leave y as declared
    assert ours == theirs


def test_fresh_symbols_skip_one_used_only_inside_a_branch() -> None:
    # unk__0 appears only in a then-branch's output type; the NonZero in the main graph
    # needs a fresh symbol, and onnx reserves every symbol of the model, branches too.
    branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", F, ["unk__0", 3])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"])],
        "else",
        [],
        [helper.make_tensor_value_info("e", F, ["unk__0", 3])],
    )
    model = _model(
        [
            helper.make_node("If", ["c"], ["b"], then_branch=branch, else_branch=other),
            helper.make_node("NonZero", ["x"], ["nz"]),
        ],
        [
            helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            helper.make_tensor_value_info("x", F, [2, 3]),
        ],
        [
            helper.make_tensor_value_info("b", F, None),
            helper.make_tensor_value_info("nz", onnx.TensorProto.INT64, None),
        ],
    )
    ours, theirs = _both(model)
    assert b"unk__1" in theirs and ours == theirs


@pytest.mark.parametrize(
    ("a", "b"), [([1, 3], [1, 1]), ([1], [1, 1, 1]), (["N", 1], [1, 1]), ([1, "N"], ["M", 1]), ([2, 1], [1])]
)
def test_broadcast_shapes_as_onnx(a: list[Any], b: list[Any]) -> None:
    model = _model(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        [helper.make_tensor_value_info("a", F, a), helper.make_tensor_value_info("b", F, b)],
        [helper.make_tensor_value_info("y", F, None)],
    )
    ours, theirs = _both(model)
    assert ours == theirs
