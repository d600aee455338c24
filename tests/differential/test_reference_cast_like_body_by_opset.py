"""Differential (issue 43): CastLike's body built per node (``wirecodec.reference._bodies``)
at every opset that changed CastLike, run through ``OpRunExpand``, gives what onnx's
evaluator gives expanding the body onnx's C++ builds: from opset 19 on, the Cast it builds
carries the node's ``saturate`` (a value out of float8's range then becomes NaN, or the
largest float8, as the node says); before 19 there is no such attribute."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's evaluator is the reference")
pytest.importorskip("ml_dtypes", reason="float8 arrays")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator as OnnxEvaluator  # noqa: E402
from onnx.reference.op_run import OpRunExpand as OnnxExpand  # noqa: E402

from wirecodec.reference import OpRunExpand, ReferenceEvaluator  # noqa: E402


def _expanded(base: type) -> type:
    return type("CastLike", (base,), {"op_domain": ""})


def _model(opset: int, target: int, **attrs: Any) -> Any:
    nodes = [
        helper.make_node("Cast", ["X"], ["like"], to=target),
        helper.make_node("CastLike", ["X", "like"], ["Y"], **attrs),
        helper.make_node("Cast", ["Y"], ["Z"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


X = np.array([0.0, 1.5, -3.25, 1e7, -1e7, 100.0], np.float32)
CASES = [
    (15, TensorProto.INT32, {}),
    (15, TensorProto.DOUBLE, {}),
    *[
        (opset, target, {"saturate": saturate})
        for opset in (19, 21)
        for target in (TensorProto.FLOAT8E4M3FN, TensorProto.FLOAT8E5M2)
        for saturate in (0, 1)
    ],
]


@pytest.mark.parametrize(("opset", "target", "attrs"), CASES, ids=str)
def test_cast_like_body_at_its_opset(opset: int, target: int, attrs: dict[str, int]) -> None:
    model = _model(opset, target, **attrs)
    ours = ReferenceEvaluator(model.SerializeToString(), new_ops=[_expanded(OpRunExpand)])
    (got,) = ours.run(None, {"X": X})
    (theirs,) = OnnxEvaluator(model, new_ops=[_expanded(OnnxExpand)]).run(None, {"X": X})
    (implemented,) = ReferenceEvaluator(model.SerializeToString()).run(None, {"X": X})
    np.testing.assert_array_equal(got, theirs)
    np.testing.assert_array_equal(got, implemented)
