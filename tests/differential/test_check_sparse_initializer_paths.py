"""A finding about a sparse initializer names its ``values`` tensor, which holds the name
(``graph.sparse_initializer[0].values.name``): a SparseTensorProto has no ``name`` of its
own, so a path without ``values`` resolves to nothing. The paths the checker prints are the
ones ``dump``, ``edit`` and ``resolve`` read (docs/checker.md); onnx refuses the same models."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wirecodec
from tests.support.reference import require_onnx
from wirecodec import checker
from wirecodec.protobuf.fieldpath import resolve

onnx = require_onnx()
helper, numpy_helper = onnx.helper, onnx.numpy_helper


def _model(values_name: str, dense: list[str]) -> Any:
    values = numpy_helper.from_array(np.ones((2,), np.float32), values_name)
    indices = numpy_helper.from_array(np.array([0, 1], np.int64), "indices")
    graph = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", 1, [2])],
        [helper.make_tensor_value_info("y", 1, [2])],
        initializer=[numpy_helper.from_array(np.ones((2,), np.float32), name) for name in dense],
        sparse_initializer=[helper.make_sparse_tensor(values, indices, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _findings(model: Any) -> list[tuple[str, str]]:
    loaded = wirecodec.load(model.SerializeToString())
    found = [(v.rule, v.path) for v in checker.violations(loaded)]
    for _, path in found:
        resolve(loaded, path)  # a PathError if the path names nothing
    return found


def test_a_sparse_initializer_without_a_name_is_reported_at_its_values_name() -> None:
    model = _model("", [])
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    assert _findings(model) == [("initializer-name", "graph.sparse_initializer[0].values.name")]


def test_a_sparse_initializer_named_as_an_initializer_is_reported_at_its_values_name() -> None:
    model = _model("w", ["w"])
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(model)
    assert _findings(model) == [("initializer-unique", "graph.sparse_initializer[0].values.name")]
