"""The evaluator's error for a node input that is neither fed nor computed names that input
(its index and name), not a blank optional input before it."""

from __future__ import annotations

import numpy as np
import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import helper
from wirecodec.errors import EvaluationError
from wirecodec.reference import ReferenceEvaluator


@pytest.mark.quick
def test_the_missing_input_after_a_blank_optional_one_is_named() -> None:
    node = helper.make_node("Clip", ["x", "", "high"], ["y"])
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(EvaluationError, match=r"Clip: input 2 'high' is neither fed nor computed") as caught:
        ReferenceEvaluator(model).run(None, {"x": np.ones(3, np.float32)})
    assert "graph.node[0]" in str(caught.value)
