"""The context a registered schema's inference function sees (onnx's ``InferenceContext``).

``onnx.defs.OpSchema.set_type_and_shape_inference_function(fn)`` gives a schema a Python
function; once the schema is registered, shape inference calls ``fn(ctx)`` for each node of
that operator with a context that reads the node's input types, attributes, stored input
values and (with ``data_prop``) computed shapes, and takes the output types it sets. The
names and their refusals are onnx's: a negative index is a ``TypeError`` (onnx takes an
unsigned index), an index past the inputs a ``RuntimeError``, an unknown graph attribute an
``InferenceError``. Types travel as ``TypeProto`` messages, copies both ways.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from schema_dsl.onnx import AttributeProto, SparseTensorProto, TensorProto, TensorShapeProto, TypeProto
from wirecodec.shape_inference._types import InferenceError, from_proto, to_proto

if TYPE_CHECKING:
    from wirecodec.shape_inference._context import NodeContext

__all__ = ["GraphInferencer", "InferenceContext", "schema_rule"]


def _index(i: object, what: str) -> int:
    if not isinstance(i, int) or isinstance(i, bool) or i < 0:
        raise TypeError(f"{what}: the index must be a non-negative int, got {i!r}")
    return i


class GraphInferencer:
    """Infers a graph attribute of the node (onnx's ``GraphInferencer``)."""

    def __init__(self, ctx: NodeContext, graph: Any) -> None:
        self._ctx = ctx
        self._graph = graph

    def do_inferencing(
        self, input_types: Sequence[TypeProto | None], input_data: Sequence[TensorProto | None] = ()
    ) -> list[TypeProto]:
        """The types of the graph's outputs, given the types of its inputs (the graph is
        inferred in place, as a body of the node)."""
        types = [from_proto(t) if t is not None else None for t in input_types]
        outputs = self._ctx.infer_subgraph(self._graph, types)
        return [to_proto(t) if t is not None else TypeProto() for t in outputs]


class InferenceContext:
    """One node as a registered inference function sees it."""

    def __init__(self, ctx: NodeContext) -> None:
        self._ctx = ctx

    def get_num_inputs(self) -> int:
        return len(self._ctx.node.input)

    def get_num_outputs(self) -> int:
        return len(self._ctx.node.output)

    def has_input(self, i: int) -> bool:
        return self._ctx.has_input(_index(i, "has_input"))

    def has_output(self, i: int) -> bool:
        return self._ctx.has_output(_index(i, "has_output"))

    def _input(self, i: int, what: str) -> int:
        i = _index(i, what)
        if i >= self.get_num_inputs():
            raise RuntimeError(f"{what}: input {i} is out of bounds ({self.get_num_inputs()} inputs)")
        return i

    def _output(self, i: int, what: str) -> int:
        i = _index(i, what)
        if i >= self.get_num_outputs():
            raise RuntimeError(f"{what}: output {i} is out of bounds ({self.get_num_outputs()} outputs)")
        return i

    def get_input_type(self, i: int) -> TypeProto | None:
        t = self._ctx.input_type(self._input(i, "get_input_type"))
        return to_proto(t) if t is not None else None

    def get_input_data(self, i: int) -> TensorProto | None:
        i = self._input(i, "get_input_data")
        data = self._ctx._data[i] if i < len(self._ctx._data) and self._ctx.has_input(i) else None
        return data if isinstance(data, TensorProto) else None

    def get_input_sparse_data(self, i: int) -> SparseTensorProto | None:
        self._input(i, "get_input_sparse_data")
        return None  # sparse values are not propagated to nodes

    def get_symbolic_input(self, i: int) -> TensorShapeProto | None:
        i = self._input(i, "get_symbolic_input")
        if self._ctx.ints(i) is not None:
            return None  # a stored value: get_input_data has it
        values = self._ctx.dims_of(i)
        if values is None:
            return None
        shape = TensorShapeProto()
        for d in values:
            dim = shape.dim.add()
            if isinstance(d, int):
                dim.dim_value = d
            elif isinstance(d, str):
                dim.dim_param = d
        return shape

    def get_attribute(self, name: str) -> AttributeProto | None:
        return self._ctx.attrs.get(name)

    def get_output_type(self, i: int) -> TypeProto:
        i = _index(i, "get_output_type")
        if i >= self.get_num_outputs():
            raise RuntimeError(
                f"get_output_type: output {i} is out of bounds ({self.get_num_outputs()} outputs)"
            )
        t = self._ctx.outputs[i]
        return to_proto(t) if t is not None else TypeProto()

    def set_output_type(self, i: int, type_proto: TypeProto) -> None:
        i = _index(i, "set_output_type")
        if i >= self.get_num_outputs():
            raise RuntimeError(
                f"set_output_type: output {i} is out of bounds ({self.get_num_outputs()} outputs)"
            )
        if not isinstance(type_proto, TypeProto):
            raise TypeError(f"set_output_type: expected a TypeProto, got {type(type_proto).__name__}")
        self._ctx.outputs[i] = from_proto(type_proto)

    def get_graph_attribute_inferencer(self, name: str) -> GraphInferencer:
        attr = self._ctx.attrs.get(name)
        if attr is None or attr.type != AttributeProto.AttributeType.GRAPH:
            raise InferenceError(f"attribute {name!r} is not a graph attribute of this node")
        return GraphInferencer(self._ctx, attr.g)


def schema_rule(function: Callable[[InferenceContext], None]) -> Callable[[NodeContext], None]:
    """The inference rule that runs ``function`` (a registered schema's) on a node."""

    def run(ctx: NodeContext) -> None:
        function(InferenceContext(ctx))

    return run
