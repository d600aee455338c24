"""Every path the checker reports reads back to what the finding is about (issue 47, item 5).

Paths come from one formatter (``fieldpath.join`` beside ``fieldpath.format_path``), so
``fieldpath.parse`` + ``fieldpath.resolve`` of a violation's path must reach the element it
names: the value a name rule quotes, the node, attribute or tensor field a rule is about,
inside bodies (If, Loop, Scan, a GRAPHS attribute), functions and training graphs alike. A
finding about a missing message field names that field: then its parent resolves.
Rows: the check-verdict matrix's models (tests/differential/test_check_verdicts.py) and a
few more broken models built with onnx.helper.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

onnx = pytest.importorskip("onnx", reason="the broken models are built with onnx.helper")
from onnx import TensorProto, helper  # noqa: E402

from schema_dsl.onnx import ModelProto  # noqa: E402
from wirecodec.checker import violations  # noqa: E402
from wirecodec.errors import PathError  # noqa: E402
from wirecodec.protobuf.fieldpath import format_path, join, parse, resolve  # noqa: E402

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL

# Rules whose message starts with the quoted name the path points at.
_NAMED = {
    "ssa",
    "ssa-outer-scope",
    "undefined-input",
    "topological-order",
    "undefined-output",
    "initializer-unique",
    "subgraph-input-initializer",
    "initializer-not-input",
    "value-info-unique",
}


def _vi(name: str, elem: int = F, shape: list[Any] | None = None) -> Any:
    return helper.make_tensor_value_info(name, elem, [1] if shape is None else shape)


def _model(nodes: list[Any], inputs: list[Any], outputs: list[Any], **kw: Any) -> Any:
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("custom", 1)]
    return helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, **kw), opset_imports=opsets)


def _body(nodes: list[Any], inputs: list[Any], outputs: list[Any], **kw: Any) -> Any:
    return helper.make_graph(nodes, "body", inputs, outputs, **kw)


def graphs_body_reads_undefined() -> Any:
    node = helper.make_node("Foo", ["x"], ["y"], domain="custom")
    good = _body([helper.make_node("Identity", ["x"], ["a"])], [], [_vi("a")])
    bad = _body([helper.make_node("Identity", ["nowhere"], ["b"])], [], [_vi("b")])
    node.attribute.append(helper.make_attribute("bodies", [good, bad]))
    return _model([node], [_vi("x")], [_vi("y")])


def nested_body_redefines_outer_and_reads_later() -> Any:
    loop_body = _body(
        [helper.make_node("Identity", ["late"], ["x"]), helper.make_node("Identity", ["c"], ["c2"])],
        [_vi("i", I64, []), _vi("c", B, [])],
        [_vi("c2", B, [])],
    )
    then = _body(
        [
            helper.make_node("Loop", ["", "cond"], [], body=loop_body),
            helper.make_node("Identity", ["x"], ["t"]),
        ],
        [],
        [_vi("t")],
    )
    other = _body([helper.make_node("Identity", ["x"], ["e"])], [], [_vi("e")])
    nodes = [
        helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other),
        helper.make_node("Neg", ["y"], ["late"]),
    ]
    return _model(nodes, [_vi("x"), _vi("cond", B, [])], [_vi("late")])


def body_input_is_also_initializer() -> Any:
    scan_body = _body(
        [helper.make_node("Add", ["s", "e"], ["s2"]), helper.make_node("Identity", ["s2"], ["o"])],
        [_vi("s"), _vi("e")],
        [_vi("s2"), _vi("o")],
        initializer=[helper.make_tensor("e", F, [1], [1.0]), helper.make_tensor("e", F, [1], [2.0])],
    )
    node = helper.make_node("Scan", ["x", "xs"], ["s_end", "ys"], body=scan_body, num_scan_inputs=1)
    return _model([node], [_vi("x"), _vi("xs", F, [3, 1])], [_vi("s_end"), _vi("ys", F, [3, 1])])


def attribute_and_tensor_faults() -> Any:
    node = helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", F, [1], [1.0]))
    node.attribute[0].f = 2.0  # a tensor attribute also carrying a float
    extra = helper.make_node("Relu", ["c"], ["y"])
    extra.attribute.append(helper.make_attribute("alpha", 1.0))
    extra.attribute.append(helper.make_attribute("alpha", 2.0))
    bad = helper.make_tensor("w", F, [2], [1.0, 2.0])
    bad.dims[0] = -2
    external = helper.make_tensor("ext", F, [1], [1.0])
    external.data_location = TensorProto.EXTERNAL
    del external.float_data[:]
    entry = external.external_data.add()
    entry.key, entry.value = "where", "w.bin"  # no location
    return _model([node, extra], [], [_vi("y")], initializer=[bad, external])


def function_and_training_faults() -> Any:
    body = [helper.make_node("Identity", ["nowhere"], ["o"])]
    imports = [helper.make_opsetid("", 18), helper.make_opsetid("ai.onnx", 17)]  # one domain twice
    function = helper.make_function("custom", "Fn", ["i"], ["o"], body, imports)
    model = _model([helper.make_node("Fn", ["x"], ["y"], domain="custom")], [_vi("x")], [_vi("y")])
    model.functions.extend([function, function])
    model.opset_import[1].version = 0
    algorithm = _body([helper.make_node("Identity", ["unknown"], ["z"])], [], [_vi("z")])
    model.training_info.add().algorithm.CopyFrom(algorithm)
    return model


_EXTRA: dict[str, Callable[[], Any]] = {
    fn.__name__: fn
    for fn in (
        graphs_body_reads_undefined,
        nested_body_redefines_outer_and_reads_later,
        body_input_is_also_initializer,
        attribute_and_tensor_faults,
        function_and_training_faults,
    )
}


def _rows() -> dict[str, Callable[[], Any]]:
    from tests.differential.test_check_verdicts import CASES

    return {**CASES, **_EXTRA}


def _reaches(model: ModelProto, path: str) -> Any:
    """What ``path`` resolves to; for a missing message field, its parent (which must resolve)."""
    assert format_path(parse(path)) == path, f"{path!r} does not read back as itself"
    try:
        return resolve(model, path)
    except PathError as exc:
        assert str(exc).endswith("is not set"), exc
        steps = parse(path)
        return resolve(model, format_path(steps[:-1]))


@pytest.mark.parametrize("name", sorted(_rows()))
def test_every_finding_path_reaches_its_element(name: str) -> None:
    model = ModelProto.FromString(_rows()[name]().SerializeToString())
    for finding in violations(model, full=True):
        reached = _reaches(model, finding.path)
        if finding.rule in _NAMED:
            quoted = re.match(r"(?:Graph output |output )?'([^']*)'", finding.message)
            assert quoted is not None, finding
            assert reached == quoted.group(1), (finding, reached)


@pytest.mark.quick
def test_findings_inside_bodies_functions_and_training_graphs_name_them() -> None:
    found: dict[str, list[tuple[str, str]]] = {}
    for name, build in _EXTRA.items():
        model = ModelProto.FromString(build().SerializeToString())
        found[name] = [(v.path, v.rule) for v in violations(model, full=True)]
    assert ("graph.node[0].attribute[0].graphs[1].node[0].input[0]", "undefined-input") in found[
        "graphs_body_reads_undefined"
    ]
    loop = join(join(join(join("graph", "node", 0), "attribute", 1), "g"), "node", 0) + ".attribute[0].g"
    nested = found["nested_body_redefines_outer_and_reads_later"]
    assert (f"{loop}.node[0].input[0]", "topological-order") in nested
    assert (f"{loop}.node[0].output[0]", "ssa-outer-scope") in nested
    scan = "graph.node[0].attribute[0].g"
    assert (f"{scan}.initializer[0].name", "subgraph-input-initializer") in found[
        "body_input_is_also_initializer"
    ]
    assert (f"{scan}.initializer[1].name", "initializer-unique") in found["body_input_is_also_initializer"]
    training = found["function_and_training_faults"]
    assert ("functions[0].node[0].input[0]", "undefined-input") in training
    assert ("training_info[0].algorithm.node[0].input[0]", "undefined-input") in training
    assert any(path.startswith("functions[1]") for path, _ in training)
    assert ("functions[0].opset_import[1].domain", "opset-duplicate-domain") in training
    assert ("opset_import[1].version", "opset-version") in training
    faults = {rule: path for path, rule in found["attribute_and_tensor_faults"]}
    assert faults["tensor-dims"] == "graph.initializer[0].dims"
    assert faults["attribute-unique"] == "graph.node[1].attribute[1].name"
