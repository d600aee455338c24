"""``sess.rt_nodes_[i].run(*args)`` runs one node by itself, as onnx.reference's does; an
argument of None is an absent optional input (in the middle or at the end), as code written
against onnx.reference passes it. Compared with onnx.reference's own rt_nodes_."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="onnx.reference is the oracle")

from onnx import helper  # noqa: E402

X = np.array([-2.0, 0.5, 3.0], np.float32)
LOW, HIGH = np.array(-1.0, np.float32), np.array(1.0, np.float32)


def _clip() -> Any:
    graph = helper.make_graph(
        [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])],
        "g",
        [helper.make_tensor_value_info(n, 1, None) for n in ("x", "lo", "hi")],
        [helper.make_tensor_value_info("y", 1, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.quick
@pytest.mark.parametrize(
    "args",
    [(X, LOW, HIGH), (X, None, HIGH), (X, LOW, None), (X, None, None)],
    ids=["both", "no-low", "no-high", "neither"],
)
def test_an_rt_node_runs_with_absent_optional_inputs_as_onnx_reference(args: tuple[Any, ...]) -> None:
    from onnx.reference import ReferenceEvaluator as Theirs

    from wirecodec.reference import ReferenceEvaluator

    model = _clip()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (theirs,) = Theirs(model).rt_nodes_[0].run(*args)
    (ours,) = ReferenceEvaluator(model).rt_nodes_[0].run(*args)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)
