"""Every opset step at which an ai.onnx operator changes and no adapter converts it (onnx
has none either), and every step down below the version an operator came in: a
ConvertError naming the node (``graph.node[0]``, or the node inside a body), the
operator and its version, and the model given left byte for byte as it was."""

from __future__ import annotations

import re
from typing import Any

import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import defs, helper
from wirecodec.defs._registry import registry
from wirecodec.errors import ConvertError
from wirecodec.version_converter import convert_version
from wirecodec.version_converter._table import adapters


def _paths() -> list[tuple[str, int, int]]:
    """(operator, from, to) for each one-version step the table has no adapter for, where the
    operator exists at ``from`` and its schema changes at the step."""
    known = defs.domain_version_range("")
    assert known is not None
    low, high = known
    table = adapters()
    found: list[tuple[str, int, int]] = []
    for domain, op in list(registry().by_op):
        if domain != "":
            continue
        history = registry().versions(op, "")
        for schema in history:
            since = schema.since_version
            for start, end in ((since - 1, since), (since, since - 1)):
                if min(start, end) < low or max(start, end) > high or (op, start, end) in table:
                    continue
                if history[0].since_version <= start:
                    found.append((op, start, end))
    return sorted(found)


PATHS = _paths()


def _one_node_model(op: str, opset: int) -> ModelProto:
    schema = registry().schema(op, opset, "")
    assert schema is not None
    inputs = [f"x{i}" for i in range(max(schema.min_input, 1) if schema.max_input else 0)]
    outputs = [f"y{i}" for i in range(max(schema.min_output, 1))]
    graph = helper.make_graph(
        [helper.make_node(op, inputs, outputs)],
        "g",
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in inputs],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in outputs],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def test_the_paths_are_the_ones_onnx_lacks_too() -> None:
    """The list is not empty and holds the known holes (a table that grew an entry by
    mistake, or a registry that lost its history, shows here)."""
    assert len(PATHS) >= 250, len(PATHS)
    for expected in [("Hardmax", 11, 10), ("Add", 14, 13), ("GroupNormalization", 21, 20), ("Gelu", 20, 19)]:
        assert expected in PATHS
    assert ("Hardmax", 13, 12) not in PATHS  # converted (below)


@pytest.mark.parametrize(("op", "start", "end"), PATHS, ids=[f"{o}-{s}-{e}" for o, s, e in PATHS])
def test_no_adapter_is_a_named_error_and_the_model_is_untouched(op: str, start: int, end: int) -> None:
    model = _one_node_model(op, start)
    before = model.SerializeToString()
    with pytest.raises(ConvertError) as caught:
        convert_version(model, end)
    error = caught.value
    assert error.path == "graph.node[0]", error
    history = registry().versions(op, "")
    since = [s.since_version for s in history if s.since_version <= start][-1]
    if history[0].since_version == start and end < start:
        assert re.search(rf"\b{op} came in opset {start}\b", error.reason), error
        assert f"keep the model at opset {start}" in error.reason
    else:
        assert f"{op}-{since} changed at opset {max(start, end)}" in error.reason, error
        assert f"from opset {start} to {end}" in error.reason
    assert model.SerializeToString() == before


@pytest.mark.quick
def test_a_refusal_inside_a_body_names_the_inner_node() -> None:
    """An And-1 in a then-branch, going up to 7 (no adapter: And-7 broadcasts another
    way): the path goes through the If's attribute to the inner node; the outer model is
    unchanged."""
    inner = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("And", ["t", "t"], ["b"])],
        "body",
        [],
        [helper.make_tensor_value_info("b", TensorProto.BOOL, None)],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["b"])],
        "else",
        [],
        [helper.make_tensor_value_info("b", TensorProto.BOOL, None)],
    )
    node = helper.make_node("If", ["c"], ["y"], then_branch=inner, else_branch=other)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.BOOL, [2, 3]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.BOOL, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 6)])
    before = model.SerializeToString()
    with pytest.raises(ConvertError, match="And-1 changed at opset 7") as caught:
        convert_version(model, 7)
    assert caught.value.path == "graph.node[0].attribute[1].g.node[1]"  # attributes sorted: then is [1]
    assert model.SerializeToString() == before


def _hardmax_model(axis: int | None, shape: list[int] | None) -> ModelProto:
    attributes: dict[str, Any] = {} if axis is None else {"axis": axis}
    graph = helper.make_graph(
        [helper.make_node("Hardmax", ["x"], ["y"], **attributes)],
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


@pytest.mark.quick
@pytest.mark.parametrize(("axis", "nodes"), [(None, ["Hardmax"]), (2, ["Hardmax"]), (0, ["Transpose"] * 2)])
def test_hardmax_13_12_last_axis_kept_another_transposed(axis: int | None, nodes: list[str]) -> None:
    converted = convert_version(_hardmax_model(axis, [2, 3, 4]), 12)
    ops = [n.op_type for n in converted.graph.node]
    assert ops == (["Hardmax"] if nodes == ["Hardmax"] else ["Transpose", "Hardmax", "Transpose"])
    hardmax = next(n for n in converted.graph.node if n.op_type == "Hardmax")
    assert [(a.name, a.i) for a in hardmax.attribute] == [("axis", 2)]
    assert converted.opset_import[0].version == 12


def test_hardmax_13_12_off_the_last_axis_of_an_unknown_rank_is_refused() -> None:
    model = _hardmax_model(1, None)
    before = model.SerializeToString()
    with pytest.raises(ConvertError, match="Hardmax along axis 1 of an input of unknown rank") as caught:
        convert_version(model, 12)
    assert caught.value.path == "graph.node[0]"
    assert model.SerializeToString() == before


@pytest.mark.parametrize("axis", [None, -1, 3, 0, 1, -2])
def test_hardmax_13_12_computes_what_opset_13_did(axis: int | None) -> None:
    """Run by onnxruntime on data with ties and a clear maximum: the opset-12 model we make
    gives what the opset-13 model gave (onnx's converter has no Hardmax 13 -> 12 adapter
    and refuses)."""
    ort = pytest.importorskip("onnxruntime", reason="the converted model is run to show it computes the same")
    import numpy as np

    model = _hardmax_model(axis, [2, 3, 4, 5])
    converted = convert_version(model, 12)
    data = np.random.default_rng(11).integers(0, 4, (2, 3, 4, 5)).astype(np.float32)  # ties

    def run(payload: bytes) -> Any:
        session = ort.InferenceSession(payload, providers=["CPUExecutionProvider"])
        return session.run(None, {"x": data})[0]

    ours, given = run(converted.SerializeToString()), run(model.SerializeToString())
    np.testing.assert_array_equal(ours, given)
    assert float(ours.sum()) == data.size / data.shape[axis if axis is not None else -1]
