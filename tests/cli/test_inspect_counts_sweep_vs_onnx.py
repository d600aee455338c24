"""``wirecodec inspect --json``'s operator and parameter counts over their edges, each
computed again from onnx's own reading of the model (wirecodec/cli/inspect.py):

* operators of the default domain spelled ``''`` and ``'ai.onnx'``, of ``ai.onnx.ml`` and of
  a custom domain, in the main graph and in an If branch: counted under one name per
  operator (``Conv``, ``ai.onnx.ml::Normalizer``), as onnx's (domain, op_type) pairs say;
* weights of several element types as dense initializers, sparse initializers (values of
  float and int64, indices of int64 and int32, linear and coordinate), and Constant values
  (``value`` and ``sparse_value``): tensors, element count and bytes per element type, and
  in total, as onnx.numpy_helper's arrays of the same tensors give them (a sparse tensor
  counts its stored values; its indices add bytes to the total only).
"""

from __future__ import annotations

import collections
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's reading of the model is the reference")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from wirecodec.cli import main  # noqa: E402

_DEFAULTS = ("", "ai.onnx")


def _name(domain: str, op_type: str) -> str:
    return op_type if domain in _DEFAULTS else f"{domain}::{op_type}"


def _sparse(name: str, values: Any, dtype_indices: Any, shape: list[int], linear: bool) -> Any:
    at = np.arange(len(values)) * 2
    if linear:
        indices = at.astype(dtype_indices)
    else:
        indices = np.stack(np.unravel_index(at, shape), axis=1).astype(dtype_indices)
    return helper.make_sparse_tensor(
        numpy_helper.from_array(np.asarray(values), name),
        numpy_helper.from_array(indices, name + "_i"),
        shape,
    )


def _model(domains: tuple[str, str], sparse_kinds: list[tuple[Any, Any, bool]]) -> Any:
    main_domain, branch_domain = domains
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], domain=main_domain),
        helper.make_node("Relu", ["r"], ["r2"], domain="" if main_domain else "ai.onnx"),
        helper.make_node("Normalizer", ["r2"], ["n"], domain="ai.onnx.ml", norm="MAX"),
        helper.make_node("Thing", ["n"], ["t"], domain="custom.op"),
        helper.make_node(
            "Constant",
            [],
            ["c"],
            domain=branch_domain,
            value=numpy_helper.from_array(np.ones(5, np.float16), "cv"),
        ),
        helper.make_node(
            "Constant",
            [],
            ["cs"],
            sparse_value=_sparse("csv", np.array([1, 2], np.int64), np.int64, [6], True),
        ),
    ]
    branch = helper.make_graph(
        [helper.make_node("Identity", ["t"], ["b"], domain=branch_domain)],
        "branch",
        [],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.zeros(3, np.int32), "bi")],
    )
    nodes.append(helper.make_node("If", ["cond"], ["y"], then_branch=branch, else_branch=branch))
    sparse = [
        _sparse(f"s{i}", np.arange(1, 4).astype(values), indices, [2, 4], linear)
        for i, (values, indices, linear) in enumerate(sparse_kinds)
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[numpy_helper.from_array(np.arange(4, dtype=np.float32), "w"),
                     numpy_helper.from_array(np.arange(6, dtype=np.int64), "k")],
        sparse_initializer=sparse,
    )  # fmt: skip
    imports = [
        helper.make_opsetid("", 18),
        helper.make_opsetid("ai.onnx.ml", 3),
        helper.make_opsetid("custom.op", 1),
    ]
    return helper.make_model(graph, opset_imports=imports)


def _expected(model: Any) -> tuple[dict[str, int], dict[str, int], dict[str, Any]]:
    """(main-graph operators, subgraph operators, parameters) from onnx's model."""
    main_ops = collections.Counter(_name(n.domain, n.op_type) for n in model.graph.node)
    sub_ops: collections.Counter[str] = collections.Counter()
    weights: list[tuple[Any, bool]] = []  # (array, is sparse indices)
    for n in model.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                sub_ops.update(_name(m.domain, m.op_type) for m in a.g.node)
                weights += [(numpy_helper.to_array(t), False) for t in a.g.initializer]
        if n.op_type == "Constant" and n.domain in _DEFAULTS:
            for a in n.attribute:
                if a.name == "value":
                    weights.append((numpy_helper.to_array(a.t), False))
                elif a.name == "sparse_value":
                    weights += [(numpy_helper.to_array(a.sparse_tensor.values), False),
                                (numpy_helper.to_array(a.sparse_tensor.indices), True)]  # fmt: skip
    weights += [(numpy_helper.to_array(t), False) for t in model.graph.initializer]
    for s in model.graph.sparse_initializer:
        weights += [(numpy_helper.to_array(s.values), False), (numpy_helper.to_array(s.indices), True)]
    by_dtype: dict[str, dict[str, int]] = {}
    total = {"tensors": 0, "count": 0, "bytes": 0}
    for array, is_indices in weights:
        total["bytes"] += array.nbytes
        if is_indices:
            continue
        name = TensorProto.DataType.Name(helper.np_dtype_to_tensor_dtype(array.dtype))
        entry = by_dtype.setdefault(name, {"tensors": 0, "count": 0, "bytes": 0})
        for bucket in (entry, total):
            bucket["tensors"] += 1
            bucket["count"] += array.size
        entry["bytes"] += array.nbytes
    return dict(main_ops), dict(sub_ops), {**total, "by_dtype": dict(sorted(by_dtype.items()))}


_SPARSE_KINDS = [
    [],
    [(np.float32, np.int64, True)],
    [(np.float32, np.int64, False), (np.int64, np.int64, True)],
    [(np.int64, np.int32, True), (np.float32, np.int32, False)],
]


@pytest.mark.parametrize(
    ("domains", "sparse_kinds"),
    list(itertools.product([("", ""), ("ai.onnx", "ai.onnx"), ("ai.onnx", "")], _SPARSE_KINDS)),
)
def test_operator_and_parameter_counts_are_onnx_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], domains: tuple[str, str], sparse_kinds: list[Any]
) -> None:
    model = _model(domains, sparse_kinds)
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    main(["inspect", "--json", str(path)])
    report = json.loads(capsys.readouterr().out)
    main_ops, sub_ops, parameters = _expected(model)
    assert report["operators"] == main_ops
    assert report["subgraph_operators"] == sub_ops
    assert report["parameters"] == parameters
