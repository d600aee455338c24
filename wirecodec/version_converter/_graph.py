"""One graph being converted: its nodes, the element types of its values, and new names.

A new value (a constant input an adapter makes) is named ``_v_<n>`` as onnx's converter
names it: ``n`` counts the values the graph defined when it was read (its inputs, its
initializers that are not inputs, every output slot of its nodes, the outer values it
uses) plus two, and goes up by one for each value made since.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from schema_dsl.onnx import AttributeProto, GraphProto, NodeProto, TensorProto, TypeProto
from wirecodec.errors import ConvertError
from wirecodec.protobuf.fieldpath import join

__all__ = ["Scope", "drop_boundary_types", "graph_attributes"]

_GRAPH = AttributeProto.GRAPH


def graph_attributes(node: NodeProto) -> Iterator[tuple[int, GraphProto]]:
    """The subgraphs a node holds in single-graph attributes, with the attribute's index
    (onnx's converter visits these, not lists of graphs)."""
    for index, attribute in enumerate(node.attribute):
        if attribute.type == _GRAPH or (attribute.type == 0 and attribute.HasField("g")):
            yield index, attribute.g


@dataclass
class Scope:
    """A graph, where it sits (``path``), and what its values are known to be."""

    graph: GraphProto
    path: str
    outer_types: dict[str, int] = field(default_factory=dict)
    _next_value: int = -1

    def element_types(self) -> dict[str, int]:
        """Element type of every named value whose type is known here (0 when not a tensor)."""
        types = dict(self.outer_types)
        for info in (*self.graph.input, *self.graph.value_info, *self.graph.output):
            if info.HasField("type"):
                element = _element_type(info.type)
                if element is not None:
                    types[info.name] = element
        for tensor in self.graph.initializer:
            types.setdefault(tensor.name, tensor.data_type)
        return types

    def new_value_name(self) -> str:
        if self._next_value < 0:
            self._next_value = self._values_read() + 2
        name = f"_v_{self._next_value}"
        self._next_value += 1
        return name

    def _values_read(self) -> int:
        graph = self.graph
        defined = {info.name for info in graph.input}
        count = len(graph.input)
        for tensor in graph.initializer:
            if tensor.name not in defined:
                defined.add(tensor.name)
                count += 1
        outer: set[str] = set()
        for node in graph.node:
            outer.update(name for name in node.input if name and name not in defined)
            count += len(node.output)
            defined.update(node.output)
        return count + len(outer - defined)

    def forget(self, name: str) -> None:
        """Drop the inferred type of a value that is gone."""
        for at, info in enumerate(self.graph.value_info):
            if info.name == name:
                del self.graph.value_info[at]
                return

    def node_path(self, index: int) -> str:
        return join(self.path, "node", index)

    def uses(self, name: str) -> int:
        """How many node inputs and graph outputs of this graph (and its subgraphs) read ``name``."""
        return _uses(self.graph, name)

    def producer(self, name: str) -> int | None:
        """The index of the node of this graph that outputs ``name``, if any."""
        for index, node in enumerate(self.graph.node):
            if name in node.output:
                return index
        return None

    def fail(self, index: int, reason: str) -> ConvertError:
        return ConvertError(reason, self.node_path(index))


def _element_type(kind: TypeProto) -> int | None:
    """The element type of a tensor, a sparse tensor, or the tensors a sequence or an
    optional holds (an operator's allowed types name those too); None for others."""
    for _ in range(8):  # optional(sequence(tensor)) is as deep as a type goes in practice
        if kind.HasField("tensor_type"):
            return int(kind.tensor_type.elem_type)
        if kind.HasField("sparse_tensor_type"):
            return int(kind.sparse_tensor_type.elem_type)
        if kind.HasField("sequence_type") and kind.sequence_type.HasField("elem_type"):
            kind = kind.sequence_type.elem_type
        elif kind.HasField("optional_type") and kind.optional_type.HasField("elem_type"):
            kind = kind.optional_type.elem_type
        else:
            return None
    return None


def _uses(graph: GraphProto, name: str) -> int:
    count = sum(1 for output in graph.output if output.name == name)
    for node in graph.node:
        count += sum(1 for value in node.input if value == name)
        for _, sub in graph_attributes(node):
            count += _uses(sub, name)
    return count


def int64_constant(values: list[int], scalar: bool = False) -> TensorProto:
    """The ``value`` of a Constant node holding int64 ``values`` (1-D unless ``scalar``)."""
    tensor = TensorProto(data_type=TensorProto.INT64, int64_data=values)
    if not scalar:
        tensor.dims.append(len(values))
    return tensor


def float_constant(value: float) -> TensorProto:
    """The ``value`` of a Constant node holding one float, as a scalar."""
    return TensorProto(data_type=TensorProto.FLOAT, float_data=[value])


def drop_boundary_types(graph: GraphProto) -> None:
    """Remove, in every subgraph, the value_info of the subgraph's own inputs and outputs
    (their types are declared there already; onnx's converter writes them once)."""
    for node in graph.node:
        for _, sub in graph_attributes(node):
            boundary = {info.name for info in (*sub.input, *sub.output)}
            keep = [info for info in sub.value_info if info.name not in boundary]
            if len(keep) != len(sub.value_info):
                del sub.value_info[:]
                sub.value_info.extend(keep)
            drop_boundary_types(sub)
