"""onnx_compat's client-facing names where a call order, a domain's spelling or a missing
name matters, against onnx: a schema registered after ``get_all_schemas_with_history()``
was first called is in the next call's answer; ``infer_function_output_types`` of a function
importing ``ai.onnx`` (not ``""``) refuses a body node lacking a required attribute as onnx
does; ``net_drawer`` labels an unnamed operator by its type alone (onnx 1.18's label)."""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec.onnx_compat as compat
from wirecodec.onnx_compat import defs as compat_defs

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def _schema(defs: Any) -> Any:
    s = defs.OpSchema
    return s(
        "Audit5Op",
        "audit5.domain",
        1,
        "doc",
        inputs=[s.FormalParameter("X", "T")],
        outputs=[s.FormalParameter("Y", "T")],
        type_constraints=[("T", ["tensor(float)"], "floats")],
    )


def _names(defs: Any) -> set[tuple[str, str, int]]:
    return {
        (s.domain, s.name, s.since_version)
        for s in defs.get_all_schemas_with_history()
        if s.domain == "audit5.domain"
    }


def test_a_schema_registered_after_the_history_was_read_is_in_it() -> None:
    for defs in (compat_defs, onnx.defs):
        assert _names(defs) == set()  # read once: the history is built
        defs.register_schema(_schema(defs))
        try:
            assert _names(defs) == {("audit5.domain", "Audit5Op", 1)}, defs.__name__
        finally:
            defs.deregister_schema("Audit5Op", 1, "audit5.domain")
        assert _names(defs) == set()


def _unbound_cast(module: Any, opset_domain: str) -> str:
    helper = module.helper
    cast = helper.make_node("Cast", ["a"], ["b"])
    cast.attribute.append(helper.make_attribute_ref("to", 2))  # the call gives no 'to'
    fn = helper.make_function(
        "my", "F", ["a"], ["b"], [cast], [helper.make_opsetid(opset_domain, 18)], ["to"]
    )
    try:
        module.shape_inference.infer_function_output_types(fn, [helper.make_tensor_type_proto(1, [2])], [])
    except module.shape_inference.InferenceError:
        return "InferenceError"
    return "inferred"


@pytest.mark.parametrize("opset_domain", ["", "ai.onnx"])
def test_a_function_importing_ai_onnx_checks_its_body_as_onnx(opset_domain: str) -> None:
    assert _unbound_cast(compat, opset_domain) == _unbound_cast(onnx, opset_domain)


def test_net_drawer_labels_an_unnamed_operator_by_its_type() -> None:
    pytest.importorskip("pydot", reason="net_drawer draws with pydot")
    from wirecodec.onnx_compat import helper
    from wirecodec.onnx_compat.tools.net_drawer import get_pydot_graph

    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["y"], ["z"], name="n1")],
        "g",
        [],
        [],
    )
    labels = {node.get_name() for node in get_pydot_graph(graph).get_nodes()}
    # onnx 1.18's net_drawer: 'Relu (op#0)' for an unnamed node, 'n1/Neg (op#1)' for a named one
    assert any(label.strip('"').startswith("Relu (op#0)") for label in labels), labels
    assert any(label.strip('"').startswith("n1/Neg (op#1)") for label in labels), labels
