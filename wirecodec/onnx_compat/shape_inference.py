"""``onnx.shape_inference``: :mod:`wirecodec.shape_inference` under onnx's names.

``infer_shapes`` and ``infer_shapes_path`` have onnx's signatures and meaning
(docs/shape-inference.md); ``InferenceError`` is the class both raise, and what
``onnx_compat.printer.to_text`` raises for a tensor whose data does not fit its dims.
``infer_node_outputs`` infers one node's outputs from its inputs' types (and constant
inputs), as onnx's does, through the same inference run on a one-node model.
``infer_function_output_types`` raises :class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from schema_dsl.onnx import (
    IR_VERSION,
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
from wirecodec.errors import TensorError
from wirecodec.onnx_compat._unsupported import missing_module_getattr
from wirecodec.shape_inference import InferenceError, infer_shapes, infer_shapes_path

__all__ = ["DataSizeError", "InferenceError", "infer_node_outputs", "infer_shapes", "infer_shapes_path"]


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


__getattr__: Any = missing_module_getattr(
    "onnx.shape_inference",
    "inferring a function's output types is not provided",
    frozenset({"infer_function_output_types"}),
)
