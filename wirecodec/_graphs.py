"""Graphs and their scopes, one way for every tool: the bodies a node holds, the names a graph
gives values before any node runs, and the walk over a model's graphs with their paths and
the names in scope (the checker's name rules, extraction, compose, edit's renames, draw).

A body is any graph an attribute *holds*: ``g`` when it is set, and every element of
``graphs`` — whatever the attribute's ``type`` says (a ``g`` set under a missing type is
still a graph every tool must see, as onnx's own walks do).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from schema_dsl.onnx import GraphProto, NodeProto
from wirecodec.protobuf.lazy import elements

__all__ = ["GraphScope", "bodies", "bodies_in", "given_names", "named_bodies", "walk_graphs"]


def named_bodies(node: NodeProto, where: str = "") -> Iterator[tuple[str, str, GraphProto]]:
    """``(attribute name, path, body)`` for every graph ``node``'s attributes hold; ``path`` is
    the body's field path under ``where`` (the node's own path): ``where.attribute[0].g``,
    ``where.attribute[1].graphs[2]``."""
    for j, attribute in enumerate(node.attribute):
        if attribute.HasField("g"):
            yield attribute.name, f"{where}.attribute[{j}].g", attribute.g
        # elements(): most attributes hold no graphs; reading the field would store an empty list
        for k, body in enumerate(elements(attribute, "graphs")):
            yield f"{attribute.name}[{k}]", f"{where}.attribute[{j}].graphs[{k}]", cast(GraphProto, body)


def bodies(node: NodeProto) -> Iterator[GraphProto]:
    """The graphs ``node``'s attributes hold (If branches, a Loop or Scan body)."""
    for _, _, body in named_bodies(node):
        yield body


@dataclass(frozen=True)
class GraphScope:
    """One graph met by :func:`walk_graphs`: its field ``path``, the ``graph``, the names of
    the enclosing graphs visible in it (``outer``: empty for the main graph), how deep it is,
    and the node that holds it (None for the main graph)."""

    path: str
    graph: GraphProto
    outer: frozenset[str]
    depth: int
    holder: NodeProto | None


def walk_graphs(graph: GraphProto, path: str = "graph") -> Iterator[GraphScope]:
    """Every graph under ``graph``, itself first, then each node's bodies in node order (depth
    first), each with the names in scope from its enclosing graphs: what the graph has before
    its first node, and every node's outputs (a body may read any value of its enclosing
    graphs, as the IR's scoping allows; the checker adds the order rules on top)."""
    todo: list[GraphScope] = [GraphScope(path, graph, frozenset(), 0, None)]
    while todo:
        scope = todo.pop()
        yield scope
        here = scope.outer | given_names(scope.graph)
        here |= {name for node in scope.graph.node for name in node.output if name}
        inner = [
            GraphScope(body_path, body, frozenset(here), scope.depth + 1, node)
            for i, node in enumerate(scope.graph.node)
            for _, body_path, body in named_bodies(node, f"{scope.path}.node[{i}]")
        ]
        todo.extend(reversed(inner))


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
