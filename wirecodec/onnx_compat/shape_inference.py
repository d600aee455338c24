"""``onnx.shape_inference``: :mod:`wirecodec.shape_inference` under onnx's names.

``infer_shapes`` and ``infer_shapes_path`` have onnx's signatures and meaning
(docs/shape-inference.md); ``InferenceError`` is the class both raise, and what
``onnx_compat.printer.to_text`` raises for a tensor whose data does not fit its dims.
``infer_node_outputs`` infers one node's outputs from its inputs' types (and constant
inputs), as onnx's does, through the same inference run on a one-node model.
``infer_function_output_types`` infers a function's output types from its inputs' types
and the attributes of a call, through the same inference run on a model that calls it once.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from schema_dsl.onnx import (
    IR_VERSION,
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    SparseTensorProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec.defs import OpSchema
from wirecodec.errors import CheckError, TensorError
from wirecodec.onnx_compat._inference_context import GraphInferencer, InferenceContext
from wirecodec.shape_inference import InferenceError, infer_shapes, infer_shapes_path

if TYPE_CHECKING:
    from wirecodec.checker.violation import Violation

__all__ = [
    "DataSizeError",
    "GraphInferencer",
    "InferenceContext",
    "InferenceError",
    "infer_function_output_types",
    "infer_node_outputs",
    "infer_shapes",
    "infer_shapes_path",
]


class FullCheckInferenceError(CheckError, InferenceError):
    """A full check (``checker.check_model(..., full_check=True)``) that failed in shape
    inference: a :class:`~wirecodec.CheckError` listing the violations (rule
    ``shape-inference``), as wirecodec's checker reports it, and an ``InferenceError``
    naming the first node that failed, as onnx raises it."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        CheckError.__init__(self, violations)
        self.reason = str(self)
        self.node = self.violations[0].path if self.violations else ""


class DataSizeError(InferenceError, TensorError):
    """A tensor whose data does not fit its dims, as onnx's printer reports it: an
    ``InferenceError`` as in onnx, and a :class:`~wirecodec.TensorError` as in wirecodec."""


def infer_node_outputs(
    schema: OpSchema,
    node: NodeProto,
    input_types: dict[str, TypeProto],
    input_data: dict[str, TensorProto] | None = None,
    input_sparse_data: dict[str, SparseTensorProto] | None = None,
    opset_imports: list[OperatorSetIdProto] | None = None,
    ir_version: int = IR_VERSION,
) -> dict[str, TypeProto]:
    """The types of ``node``'s outputs (by name) given its inputs' types: onnx's ``infer_node_outputs``.

    ``input_data`` gives the value of constant inputs (a Reshape's shape); the node is read
    at the opset of ``opset_imports``, else at the ``since_version`` of ``schema``. A node
    whose inference fails raises :class:`InferenceError`; a node input missing from
    ``input_types`` is a ``KeyError``, as in onnx.

    >>> from wirecodec import helper
    >>> from wirecodec.onnx_compat import defs
    >>> x = helper.make_tensor_type_proto(TensorProto.FLOAT, [2, 3])
    >>> out = infer_node_outputs(defs.get_schema("Relu"), helper.make_node("Relu", ["x"], ["y"]), {"x": x})
    >>> [d.dim_value for d in out["y"].tensor_type.shape.dim]
    [2, 3]
    """
    data = dict(input_data or {})
    sparse = dict(input_sparse_data or {})
    present = [name for name in node.input if name]
    types = {name: input_types[name] for name in present}  # a KeyError for a missing one, as onnx
    types.update({k: v for k, v in input_types.items() if k not in types})
    versions = {schema.domain: schema.since_version}
    versions.update({o.domain: o.version for o in opset_imports or ()})
    graph = GraphProto(
        name="infer_node_outputs",
        node=[node],
        input=[ValueInfoProto(name=name, type=value) for name, value in types.items()],
        initializer=[_named(data[name], name) for name in present if name in data],
        sparse_initializer=[_named_sparse(sparse[name], name) for name in present if name in sparse],
    )
    model = ModelProto(
        ir_version=ir_version,
        graph=graph,
        opset_import=[OperatorSetIdProto(domain=d, version=v) for d, v in versions.items()],
    )
    inferred = infer_shapes(model, strict_mode=True, data_prop=True)
    found = {v.name: v.type for v in (*inferred.graph.value_info, *inferred.graph.output)}
    given = {d.dim_param for t in types.values() for d in _dims(t)}
    outputs = {name: found[name] for name in node.output if name and name in found}
    for output in outputs.values():
        for dim in _dims(output):
            # A model's inference names the dims it cannot know (unk__0); a node's leaves them blank.
            if dim.dim_param.startswith("unk__") and dim.dim_param not in given:
                dim.ClearField("dim_param")
    return outputs


def infer_function_output_types(
    function: FunctionProto, input_types: Sequence[TypeProto], attributes: Sequence[AttributeProto]
) -> list[TypeProto]:
    """The types of ``function``'s outputs, in order, when called on inputs of ``input_types``
    with ``attributes``: onnx's ``infer_function_output_types``.

    An input without a type (fewer ``input_types`` than inputs) is untyped, and an output
    whose type cannot be inferred is an empty ``TypeProto``; an inference that fails (inputs
    of the wrong type, a node that needs the type of an untyped input, an attribute the body
    needs and the call lacks) raises :class:`InferenceError`.

    >>> from wirecodec import helper
    >>> body = [helper.make_node("Transpose", ["a"], ["b"], perm=[1, 0])]
    >>> fn = helper.make_function("my", "T", ["a"], ["b"], body, [helper.make_opsetid("", 18)])
    >>> a = helper.make_tensor_type_proto(TensorProto.FLOAT, [2, "N"])
    >>> out = infer_function_output_types(fn, [a], [])
    >>> [(d.dim_value, d.dim_param) for d in out[0].tensor_type.shape.dim]
    [(0, 'N'), (2, '')]
    """
    given = {a.name: a for a in attributes}
    defaults = {a.name: a for a in function.attribute_proto}
    body = [_bound(node, given, defaults) for node in function.node]
    versions = {o.domain: o.version for o in function.opset_import}
    for index, node in enumerate(body):
        _require_attributes(node, versions, f"{function.name}.node[{index}] ({node.op_type})")
    graph = GraphProto(
        name=function.name or "infer_function_output_types",
        node=body,
        input=[
            ValueInfoProto(name=name, type=value) if value is not None else ValueInfoProto(name=name)
            for name, value in zip(
                function.input, [*input_types, *[None] * len(function.input)], strict=False
            )
        ],
        output=[ValueInfoProto(name=name) for name in function.output],
    )
    model = ModelProto(
        ir_version=IR_VERSION,
        graph=graph,
        opset_import=[OperatorSetIdProto(domain=o.domain, version=o.version) for o in function.opset_import],
    )
    inferred = infer_shapes(model, check_type=True, strict_mode=True)
    found = {
        v.name: v.type for v in (*inferred.graph.value_info, *inferred.graph.output) if v.HasField("type")
    }
    return [found[name] if name in found else TypeProto() for name in function.output]


def _bound(
    node: NodeProto, given: dict[str, AttributeProto], defaults: dict[str, AttributeProto]
) -> NodeProto:
    """``node`` of a function body with its attribute references replaced by the call's values
    (else the function's defaults; a reference to neither is dropped, as onnx drops it)."""
    if not any(a.ref_attr_name for a in node.attribute):
        return node
    bound = NodeProto()
    bound.CopyFrom(node)
    del bound.attribute[:]
    for attribute in node.attribute:
        if not attribute.ref_attr_name:
            bound.attribute.append(attribute)
            continue
        value = given.get(attribute.ref_attr_name, defaults.get(attribute.ref_attr_name))
        if value is not None:
            copy = AttributeProto()
            copy.CopyFrom(value)
            copy.name = attribute.name
            bound.attribute.append(copy)
    return bound


def _require_attributes(node: NodeProto, versions: dict[str, int], where: str) -> None:
    """onnx's refusal of a body node lacking a required attribute once the call's are bound."""
    from wirecodec.defs import get_schema

    domain = "" if node.domain == "ai.onnx" else node.domain
    version = versions.get(domain, versions.get("ai.onnx" if domain == "" else domain))
    schema = None if version is None else get_schema(node.op_type, version, domain)
    if schema is None:
        return
    present = {a.name for a in node.attribute}
    for name, attribute in schema.attributes.items():
        if attribute.required and name not in present:
            raise InferenceError(f"{where}: Value of attribute {name} not specified in node {node.op_type}")


def _dims(value: TypeProto) -> Iterator[TensorShapeProto.Dimension]:
    """Every dimension in a type, through sequences, optionals and maps."""
    for kind in ("tensor_type", "sparse_tensor_type"):
        if value.HasField(kind):
            yield from getattr(value, kind).shape.dim
    if value.HasField("sequence_type"):
        yield from _dims(value.sequence_type.elem_type)
    if value.HasField("optional_type"):
        yield from _dims(value.optional_type.elem_type)
    if value.HasField("map_type"):
        yield from _dims(value.map_type.value_type)


def _named(tensor: TensorProto, name: str) -> TensorProto:
    copy = TensorProto()
    copy.CopyFrom(tensor)
    copy.name = name
    return copy


def _named_sparse(tensor: SparseTensorProto, name: str) -> SparseTensorProto:
    copy = SparseTensorProto()
    copy.CopyFrom(tensor)
    copy.values.name = name
    return copy
