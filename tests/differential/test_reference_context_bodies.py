"""Differential (issue 43): the function bodies built per node (``wirecodec.reference._bodies``:
CastLike, SpaceToDepth and DepthToSpace at opset 28), run through ``OpRunExpand``, give what
the operators' implementations give, and what onnx's evaluator gives expanding the bodies
onnx's C++ builds, zero-sized dimensions included.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator as OnnxEvaluator  # noqa: E402
from onnx.reference.op_run import OpRunExpand as OnnxExpand  # noqa: E402

from wirecodec.reference import OpRunExpand, ReferenceEvaluator  # noqa: E402


def _model(op: str, dtype: int, opset: int, **attrs: Any) -> Any:
    node = helper.make_node(op, ["input"], ["output"], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("input", dtype, None)],
        [helper.make_tensor_value_info("output", dtype, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _expanded(base: type, op: str) -> type:
    return type(op, (base,), {"op_domain": ""})


SHAPES = {
    "SpaceToDepth": [(2, 3, 4, 6), (1, 1, 2, 0), (1, 0, 2, 2), (0, 2, 4, 4)],
    "DepthToSpace": [(2, 8, 3, 2), (1, 4, 2, 0), (1, 0, 2, 2)],
}


@pytest.mark.parametrize("mode", ["DCR", "CRD"])
@pytest.mark.parametrize(
    ("op", "shape"), [(op, shape) for op, shapes in SHAPES.items() for shape in shapes], ids=str
)
def test_space_and_depth_bodies(op: str, shape: tuple[int, ...], mode: str) -> None:
    model = _model(op, TensorProto.FLOAT, 28, blocksize=2, mode=mode)
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    ours = ReferenceEvaluator(model.SerializeToString(), new_ops=[_expanded(OpRunExpand, op)])
    (got,) = ours.run(None, {"input": x})
    (implemented,) = ReferenceEvaluator(model.SerializeToString()).run(None, {"input": x})
    (theirs,) = OnnxEvaluator(model, new_ops=[_expanded(OnnxExpand, op)]).run(None, {"input": x})
    assert got.shape == implemented.shape == theirs.shape and got.dtype == theirs.dtype
    np.testing.assert_array_equal(got, implemented)
    np.testing.assert_array_equal(got, theirs)


@pytest.mark.parametrize("saturate", [0, 1])
@pytest.mark.parametrize("target", [TensorProto.FLOAT8E4M3FNUZ, TensorProto.FLOAT8E5M2, TensorProto.INT32])
def test_cast_like_body(target: int, saturate: int) -> None:
    pytest.importorskip("ml_dtypes")
    nodes = [
        helper.make_node("Cast", ["X"], ["like"], to=target),
        helper.make_node("CastLike", ["X", "like"], ["Y"], saturate=saturate),
        helper.make_node("Cast", ["Y"], ["Z"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    x = np.array([0.0, 1.5, -3.25, 1e7, 100.0], np.float32)
    (got,) = ReferenceEvaluator(model.SerializeToString(), new_ops=[_expanded(OpRunExpand, "CastLike")]).run(
        None, {"X": x}
    )
    (implemented,) = ReferenceEvaluator(model.SerializeToString()).run(None, {"X": x})
    (theirs,) = OnnxEvaluator(model, new_ops=[_expanded(OnnxExpand, "CastLike")]).run(None, {"X": x})
    np.testing.assert_array_equal(got, implemented)
    np.testing.assert_array_equal(got, theirs)


def test_a_body_is_built_once_per_input_types() -> None:
    from wirecodec.reference import _bodies

    calls: list[tuple[Any, ...]] = []
    real = _bodies.BUILDERS[("", "SpaceToDepth")]

    def counting(attrs: Any, types: Any, opset: int) -> Any:
        calls.append(tuple(types))
        return real(attrs, types, opset)

    _bodies.BUILDERS[("", "SpaceToDepth")] = counting
    try:
        model = _model("SpaceToDepth", TensorProto.FLOAT, 28, blocksize=2)
        sess = ReferenceEvaluator(model.SerializeToString(), new_ops=[_expanded(OpRunExpand, "SpaceToDepth")])
        for dtype in (np.float32, np.float32, np.float64):
            sess.run(None, {"input": np.zeros((1, 1, 2, 2), dtype)})
    finally:
        _bodies.BUILDERS[("", "SpaceToDepth")] = real
    assert calls == [(TensorProto.FLOAT,), (TensorProto.DOUBLE,)]
