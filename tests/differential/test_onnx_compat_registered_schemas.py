"""Schemas registered at run time, side by side with onnx: a schema's Python inference
function runs in shape inference (its context's reads and refusals as onnx's), a graph
attribute is inferred through the context, ``onnx_opset_version()`` grows with a
registration, and ``get_function_ops`` names onnx's operators."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.reference import require_onnx

onnx = require_onnx()


def _compat() -> Any:
    import wirecodec.onnx_compat as compat

    return compat


def _custom_schema(package: Any, domain: str, seen: list[Any]) -> Any:
    """out_i = (N, La * Lb, out_len[i]) from a (N, La) and b (N, Lb); records what the
    context returned for the reads and refusals onnx documents."""
    defs = package.defs
    schema = defs.OpSchema(
        "CustomOp",
        domain,
        1,
        inputs=[defs.OpSchema.FormalParameter("a", "float"), defs.OpSchema.FormalParameter("b", "float")],
        outputs=[
            defs.OpSchema.FormalParameter(
                "out", "float", param_option=defs.OpSchema.FormalParameterOption.Variadic
            )
        ],
        attributes=[defs.OpSchema.Attribute("out_len", defs.OpSchema.AttrType.INTS)],
    )

    def infer(ctx: Any) -> None:
        a, b = ctx.get_input_type(0), ctx.get_input_type(1)
        n, la = (d.dim_value for d in a.tensor_type.shape.dim)
        lb = b.tensor_type.shape.dim[1].dim_value
        out_len = ctx.get_attribute("out_len").ints
        for i in range(ctx.get_num_outputs()):
            out = ctx.get_output_type(i)
            out.tensor_type.elem_type = a.tensor_type.elem_type
            for size in (n, la * lb, out_len[i]):
                out.tensor_type.shape.dim.add().dim_value = size
            ctx.set_output_type(i, out)
        found = [ctx.get_num_inputs(), ctx.get_num_outputs(), ctx.has_input(0), ctx.has_input(2)]
        found += [ctx.has_output(0), ctx.has_output(5), ctx.get_attribute("nope") is None]
        found += [ctx.get_input_data(0) is None, ctx.get_input_sparse_data(0) is None]
        found.append(ctx.get_symbolic_input(0) is None)
        for call, arg in (
            (ctx.has_input, -1),
            (ctx.has_output, -1),
            (ctx.get_input_type, 10),
            (ctx.get_input_data, 10),
            (ctx.get_symbolic_input, 10),
            (ctx.get_output_type, 10),
            (ctx.get_graph_attribute_inferencer, "nope"),
        ):
            try:
                call(arg)
                found.append("no error")
            except TypeError:
                found.append("TypeError")
            except package.shape_inference.InferenceError:
                found.append("InferenceError")
            except RuntimeError:
                found.append("RuntimeError")
        seen.append(found)

    schema.set_type_and_shape_inference_function(infer)
    return schema


def _graph_schema(package: Any, domain: str) -> Any:
    """Outputs as its graph attribute's, inferred from the node's inputs."""
    defs = package.defs
    variadic = defs.OpSchema.FormalParameterOption.Variadic
    schema = defs.OpSchema(
        "DummyGraph",
        domain,
        1,
        inputs=[defs.OpSchema.FormalParameter("in", "float", param_option=variadic)],
        outputs=[defs.OpSchema.FormalParameter("out", "float", param_option=variadic)],
        attributes=[defs.OpSchema.Attribute("graph", defs.OpSchema.AttrType.GRAPH)],
    )

    def infer(ctx: Any) -> None:
        inferencer = ctx.get_graph_attribute_inferencer("graph")
        n = ctx.get_num_inputs()
        outputs = inferencer.do_inferencing(
            [ctx.get_input_type(i) for i in range(n)], [ctx.get_input_data(i) for i in range(n)]
        )
        for i, out in enumerate(outputs):
            ctx.set_output_type(i, out)

    schema.set_type_and_shape_inference_function(infer)
    return schema


@pytest.fixture
def registered() -> Iterator[tuple[list[Any], list[Any]]]:
    """Both schemas registered with onnx and with onnx_compat (in a domain of their own), and
    what each side's context returned; deregistered after."""
    compat, domain = _compat(), "test.shapeinf2"
    seen: tuple[list[Any], list[Any]] = ([], [])
    for package, found in ((onnx, seen[0]), (compat, seen[1])):
        package.defs.register_schema(_custom_schema(package, domain, found))
        package.defs.register_schema(_graph_schema(package, domain))
    try:
        yield seen
    finally:
        for package in (onnx, compat):
            package.defs.deregister_schema("CustomOp", 1, domain)
            package.defs.deregister_schema("DummyGraph", 1, domain)


def _model(package: Any, through_graph: bool, out_len: list[int]) -> Any:
    helper, f32 = package.helper, package.TensorProto.FLOAT
    domain = "test.shapeinf2"
    a = helper.make_tensor_value_info("a", f32, (3, 32))
    b = helper.make_tensor_value_info("b", f32, (3, 64))
    outs = [f"out{i}" for i in range(len(out_len))]
    custom = helper.make_node("CustomOp", ["a", "b"], outs, domain=domain, out_len=out_len)
    if through_graph:
        body = helper.make_graph(
            [custom], "body", [a, b], [helper.make_tensor_value_info(o, f32, None) for o in outs]
        )
        node = helper.make_node("DummyGraph", ["a", "b"], outs, domain=domain, graph=body)
    else:
        node = custom
    graph = helper.make_graph([node], "g", [a, b], [])
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid(domain, 1)]
    return helper.make_model(graph, opset_imports=opsets)


@pytest.mark.quick
@pytest.mark.parametrize("through_graph", [False, True])
@pytest.mark.parametrize("out_len", [[1], [1, 2]])
def test_registered_inference_function_as_onnx(
    registered: tuple[list[Any], list[Any]], through_graph: bool, out_len: list[int]
) -> None:
    compat = _compat()
    theirs = onnx.shape_inference.infer_shapes(
        _model(onnx, through_graph, out_len), check_type=True, strict_mode=True
    )
    ours = compat.shape_inference.infer_shapes(
        _model(compat, through_graph, out_len), check_type=True, strict_mode=True
    )
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert len(ours.graph.value_info) == len(out_len)
    assert registered[1] == registered[0] and registered[0]


def test_a_deregistered_function_no_longer_runs() -> None:
    compat, domain, seen = _compat(), "test.shapeinf2.gone", []
    schema = _custom_schema(compat, domain, seen)
    compat.defs.register_schema(schema)
    compat.defs.deregister_schema("CustomOp", 1, domain)
    model = _model(compat, False, [1])
    model.opset_import[1].domain = domain
    model.graph.node[0].domain = domain
    inferred = compat.shape_inference.infer_shapes(model)
    assert not inferred.graph.value_info and not seen


def test_inference_function_accessors_as_onnx() -> None:
    for package in (onnx, _compat()):
        schema = package.defs.OpSchema("Plain", "test.shapeinf2.plain", 1)
        assert not schema.has_type_and_shape_inference_function

        def infer(ctx: Any) -> None:
            del ctx

        schema.set_type_and_shape_inference_function(infer)
        assert schema.has_type_and_shape_inference_function
        assert package.defs.get_schema("Relu").has_type_and_shape_inference_function


@pytest.mark.quick
def test_get_function_ops_as_onnx() -> None:
    def key(s: Any) -> tuple[str, str, int]:
        return (s.domain, s.name, s.since_version)

    ours = _compat().defs.get_function_ops()
    assert sorted(map(key, ours)) == sorted(map(key, onnx.defs.get_function_ops()))
    assert all(isinstance(s, _compat().defs.OpSchema) for s in ours)


_OPSET_AFTER = """
import sys
if sys.argv[1] == "wirecodec":
    import wirecodec.onnx_compat as onnx
else:
    import onnx
defs = onnx.defs
found = [defs.onnx_opset_version()]
defs.register_schema(defs.OpSchema("Later", "", 30))
found.append(defs.onnx_opset_version())
defs.deregister_schema("Later", 30, "")
found.append(defs.onnx_opset_version())
defs.register_schema(defs.OpSchema("Elsewhere", "my.domain", 40))
found.append(defs.onnx_opset_version())
print(found)
"""


def test_onnx_opset_version_after_a_registration_as_onnx() -> None:
    # in a process of its own: the version stays raised after deregistering (in onnx too)
    def run(side: str) -> str:
        done = subprocess.run(
            [sys.executable, "-c", _OPSET_AFTER, side], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    assert run("wirecodec") == run("onnx") == "[28, 30, 30, 30]"


def test_onnx_ml_opset_version_as_onnx() -> None:
    assert _compat().defs.onnx_ml_opset_version() == onnx.defs.onnx_ml_opset_version()
