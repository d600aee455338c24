"""Small facts about graphs that several tools share: the bodies a node holds, and the names
a graph gives values before any node runs."""

from __future__ import annotations

from collections.abc import Iterator

from schema_dsl.onnx import GraphProto, NodeProto

__all__ = ["bodies", "bodies_in", "given_names"]


def bodies(node: NodeProto) -> Iterator[GraphProto]:
    """The graphs ``node``'s attributes hold (If branches, a Loop or Scan body)."""
    for attribute in node.attribute:
        if attribute.HasField("g"):
            yield attribute.g
        yield from attribute.graphs


def bodies_in(graph: GraphProto) -> Iterator[GraphProto]:
    """The bodies held directly by ``graph``'s nodes (not their own bodies' bodies)."""
    for node in graph.node:
        yield from bodies(node)


def given_names(graph: GraphProto) -> set[str]:
    """The values ``graph`` has before its first node: inputs, initializers, sparse initializers."""
    names = {value.name for value in graph.input}
    names.update(tensor.name for tensor in graph.initializer)
    names.update(sparse.values.name for sparse in graph.sparse_initializer)
    return names
