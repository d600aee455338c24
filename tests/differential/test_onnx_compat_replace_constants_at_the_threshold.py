"""``replace_initializer_by_constant_of_shape`` replaces what holds *more* than ``threshold``
elements: an initializer or a Constant's value of exactly ``threshold`` elements stays, one
more is replaced. Below, at and above the threshold (the default 128 and a given one), the
result's bytes are onnx's."""

from __future__ import annotations

from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="onnx.tools.replace_constants is the oracle")

from onnx import helper, numpy_helper  # noqa: E402
from onnx.tools.replace_constants import replace_initializer_by_constant_of_shape as theirs  # noqa: E402


def _model(count: int, constant: bool) -> Any:
    value = numpy_helper.from_array(np.ones((count,), np.float32), "w")
    nodes = [helper.make_node("Add", ["x", "w"], ["y"])]
    initializers = [value]
    if constant:
        nodes.insert(0, helper.make_node("Constant", [], ["w"], value=value))
        initializers = []
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", 1, [count])],
        [helper.make_tensor_value_info("y", 1, [count])],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize("constant", [False, True], ids=["initializer", "constant"])
@pytest.mark.parametrize(("threshold", "count"), [(128, 127), (128, 128), (128, 129), (5, 5), (5, 6)])
def test_replaced_only_above_the_threshold_as_onnx(threshold: int, count: int, constant: bool) -> None:
    import wirecodec
    from wirecodec.onnx_compat.tools.replace_constants import replace_initializer_by_constant_of_shape
    from wirecodec.protobuf.codec import encode

    model = _model(count, constant)
    expected = theirs(model, threshold=threshold).SerializeToString()
    ours = replace_initializer_by_constant_of_shape(
        wirecodec.load(model.SerializeToString()), threshold=threshold
    )
    assert encode(ours) == expected
    replaced = any(node.op_type == "ConstantOfShape" for node in ours.graph.node)
    assert replaced == (count > threshold)
