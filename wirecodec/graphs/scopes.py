"""Graphs and their scopes, one way for every tool: the bodies a node holds, the names a graph
gives values before any node runs, and the walk over a model's graphs with their paths and
the names in scope (the checker's name rules, shape inference, extraction, compose, edit's
renames, draw).

A body is any graph an attribute *holds*: ``g`` when it is set, and every element of
``graphs`` — whatever the attribute's ``type`` says (a ``g`` set under a missing type is
still a graph every tool must see, as onnx's own walks do).

Every path here is built by :func:`wirecodec.protobuf.fieldpath.join`, so it is one that
:func:`wirecodec.protobuf.fieldpath.resolve` reads back.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import cast

from schema_dsl.onnx import GraphProto, NodeProto
from wirecodec.protobuf.fieldpath import join
from wirecodec.protobuf.lazy import elements

__all__ = [
    "GraphScope",
    "bodies",
    "bodies_in",
    "body_scopes",
    "definitions",
    "given_names",
    "inner_scopes",
    "named_bodies",
    "outer_reads",
    "produced_after",
    "root_scope",
    "walk_bodies",
    "visible_at",
    "walk_graphs",
]


def named_bodies(node: NodeProto, where: str = "") -> Iterator[tuple[str, str, GraphProto]]:
    """``(attribute name, path, body)`` for every graph ``node``'s attributes hold; ``path`` is
    the body's field path under ``where`` (the node's own path): ``where.attribute[0].g``,
    ``where.attribute[1].graphs[2]``."""
    for j, attribute in enumerate(node.attribute):
        if attribute.HasField("g"):
            yield attribute.name, join(join(where, "attribute", j), "g"), attribute.g
        # elements(): most attributes hold no graphs; reading the field would store an empty list
        for k, body in enumerate(elements(attribute, "graphs")):
            path = join(join(where, "attribute", j), "graphs", k)
            yield f"{attribute.name}[{k}]", path, cast(GraphProto, body)


def bodies(node: NodeProto) -> Iterator[GraphProto]:
    """The graphs ``node``'s attributes hold (If branches, a Loop or Scan body)."""
    for _, _, body in named_bodies(node):
        yield body


@dataclass(frozen=True)
class GraphScope:
    """One graph met by :func:`walk_graphs`, with everything a tool asks of its scope.

    - ``path``: its field path (``graph.node[2].attribute[0].g``); ``graph``: the graph;
    - ``outer``: every name of the enclosing graphs (inputs, initializers, every node's
      outputs), what a body may read at all; empty for the main graph;
    - ``before``: the names visible where the body is held — what the enclosing graphs
      define before the holding node — each with the path of its (nearest) definition;
    - ``later``: the names an enclosing graph's node at or after the holder produces (a body
      reading one breaks the topological order);
    - ``depth`` (0 for the root), ``holder`` (the node holding it, or None), ``holder_path``,
      ``label`` (the attribute holding it: ``then_branch``, ``bodies[1]`` for a ``graphs``
      element), ``parent`` (the scope of the enclosing graph, or None), ``index`` (the
      holder's place among its graph's nodes; -1 for the root), ``in_graphs`` (it, or a
      body enclosing it, is an element of a ``graphs`` attribute: what onnx's type
      inference never enters).

    What the graph itself defines is :meth:`defines`; what it reads from outside is
    :meth:`reads`; the bodies of its nodes are :meth:`inner`.
    """

    path: str
    graph: GraphProto
    outer: frozenset[str]
    depth: int
    holder: NodeProto | None
    holder_path: str = ""
    label: str = ""
    before: Mapping[str, str] = field(default_factory=dict, repr=False)
    later: AbstractSet[str] = field(default=frozenset(), repr=False)
    parent: GraphScope | None = field(default=None, repr=False, compare=False)
    index: int = -1
    in_graphs: bool = False

    def defines(self) -> dict[str, str]:
        """The names this graph defines, each with the path of its first definition."""
        return definitions(self.graph, self.path)

    def reads(self) -> set[str]:
        """The names this graph's nodes (at any depth) read but the graph does not define."""
        return outer_reads(self.graph)

    def inner(self, index: int | None = None) -> list[GraphScope]:
        """The scopes of the bodies held by node ``index`` (every node's, in node order, by default)."""
        return inner_scopes(self, index)

    def chain(self) -> Iterator[GraphScope]:
        """This scope, then each enclosing one outwards."""
        scope: GraphScope | None = self
        while scope is not None:
            yield scope
            scope = scope.parent


def definitions(graph: GraphProto, path: str, nodes: Sequence[NodeProto] | None = None) -> dict[str, str]:
    """Name -> path of its first definition in ``graph``: inputs, initializers, sparse
    initializers, then the outputs of ``nodes`` (all of the graph's by default); empty names
    are left out."""
    defined: dict[str, str] = {}
    for i, value in enumerate(graph.input):
        if value.name:
            defined.setdefault(value.name, join(join(path, "input", i), "name"))
    for i, tensor in enumerate(graph.initializer):
        if tensor.name:
            defined.setdefault(tensor.name, join(join(path, "initializer", i), "name"))
    for i, sparse in enumerate(graph.sparse_initializer):
        if sparse.values.name:
            where = join(join(join(path, "sparse_initializer", i), "values"), "name")
            defined.setdefault(sparse.values.name, where)
    for i, node in enumerate(graph.node if nodes is None else nodes):
        for j, name in enumerate(node.output):
            if name:
                defined.setdefault(name, join(join(path, "node", i), "output", j))
    return defined


class _Visible(Mapping[str, str]):
    """The names visible at node ``limit`` of the graph at ``path``: what it has before its
    first node (``given``), the outputs of its nodes before ``limit`` (``own``: name ->
    (node index, output index) of its first producer), else the enclosing graphs' names
    (``outside``). A view: one table per graph, shared by its bodies, so a walk over a long
    graph with many bodies neither copies the names for each nor builds every path."""

    __slots__ = ("_given", "_limit", "_outside", "_own", "_path")

    def __init__(
        self,
        outside: Mapping[str, str],
        given: Mapping[str, str],
        own: dict[str, tuple[int, int]],
        path: str,
        limit: int,
    ) -> None:
        self._outside = outside
        self._given = given
        self._own = own
        self._path = path
        self._limit = limit

    def __getitem__(self, name: str) -> str:
        where = self._given.get(name)
        if where is not None:
            return where
        found = self._own.get(name)
        if found is not None and found[0] < self._limit:
            return join(join(self._path, "node", found[0]), "output", found[1])
        return self._outside[name]

    def __iter__(self) -> Iterator[str]:
        mine = [*self._given, *(name for name, (at, _) in self._own.items() if at < self._limit)]
        yield from mine
        seen = set(mine)
        yield from (name for name in self._outside if name not in seen)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Later(AbstractSet[str]):
    """The names a graph's nodes at or after ``start`` produce (``last``: name -> index of its
    last producer), and what the enclosing graphs produce after their holders (``outside``)."""

    __slots__ = ("_last", "_outside", "_start")

    def __init__(self, outside: AbstractSet[str], last: dict[str, int], start: int) -> None:
        self._outside = outside
        self._last = last
        self._start = start

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        return self._last.get(name, -1) >= self._start or name in self._outside

    def __iter__(self) -> Iterator[str]:
        mine = [name for name, at in self._last.items() if at >= self._start]
        yield from mine
        seen = set(mine)
        yield from (name for name in self._outside if name not in seen)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def visible_at(
    outside: Mapping[str, str],
    given: Mapping[str, str],
    own: dict[str, tuple[int, int]],
    path: str,
    limit: int,
) -> Mapping[str, str]:
    """What :attr:`GraphScope.before` is for a body held by node ``limit`` of the graph at
    ``path``, from names read without the graph: ``outside`` (the graph's own ``before``),
    ``given`` (:func:`definitions` of its inputs and initializers) and ``own`` (each node
    output's first producer, as (node index, output index))."""
    return _Visible(outside, given, own, path, limit)


def produced_after(outside: AbstractSet[str], last: dict[str, int], start: int) -> AbstractSet[str]:
    """What :attr:`GraphScope.later` is for a body held by node ``start``: ``last`` maps each
    node output of the graph to its last producer, ``outside`` is the graph's own ``later``."""
    return _Later(outside, last, start)


def _scopes_of_nodes(
    nodes: Sequence[NodeProto],
    path: str,
    given: Mapping[str, str],
    parent: GraphScope | None,
    index: int | None = None,
) -> list[GraphScope]:
    """The scopes of the bodies held by ``nodes`` (only node ``index``'s, if given) of the graph
    or function body at ``path`` whose values before its first node are ``given``."""
    held: list[tuple[int, NodeProto]] = []
    own: dict[str, tuple[int, int]] = {}
    last: dict[str, int] = {}
    for i, node in enumerate(nodes):  # one pass: a long graph is read once
        if (index is None or i == index) and _holds_graphs(node):
            held.append((i, node))
        for j, name in enumerate(node.output):
            if name:
                last[name] = i
                own.setdefault(name, (i, j))
    if not held:
        return []
    outside: Mapping[str, str] = parent.before if parent is not None else {}
    above: AbstractSet[str] = parent.later if parent is not None else frozenset()
    outer = frozenset((parent.outer if parent is not None else frozenset()) | own.keys() | given.keys())
    depth = parent.depth + 1 if parent is not None else 1
    inherited_graphs = parent is not None and parent.in_graphs
    return [
        GraphScope(
            body_path,
            body,
            outer,
            depth,
            node,
            join(path, "node", i),
            label,
            _Visible(outside, given, own, path, i),
            _Later(above, last, i),
            parent,
            i,
            inherited_graphs or not body_path.endswith(".g"),
        )
        for i, node in held
        for label, body_path, body in named_bodies(node, join(path, "node", i))
    ]


def _holds_graphs(node: NodeProto) -> bool:
    attributes = elements(node, "attribute")
    return bool(attributes) and any(a.HasField("g") or elements(a, "graphs") for a in attributes)


def inner_scopes(scope: GraphScope, index: int | None = None) -> list[GraphScope]:
    """The scopes of the bodies ``scope``'s nodes hold (node ``index``'s only, if given)."""
    return _scopes_of_nodes(scope.graph.node, scope.path, _given(scope.graph, scope.path), scope, index)


def _given(graph: GraphProto, path: str) -> dict[str, str]:
    return definitions(graph, path, ())


def root_scope(graph: GraphProto, path: str = "graph", outer: Mapping[str, str] | None = None) -> GraphScope:
    """The scope of ``graph`` as the root of a walk (``outer`` as in :func:`walk_graphs`)."""
    return GraphScope(path, graph, frozenset(outer or ()), 0, None, before=dict(outer or {}))


def walk_graphs(
    graph: GraphProto, path: str = "graph", outer: Mapping[str, str] | None = None
) -> Iterator[GraphScope]:
    """Every graph under ``graph``, itself first, then each node's bodies in node order (depth
    first), each with its scope (:class:`GraphScope`). ``outer`` names what ``graph`` itself
    may read from outside, with where each is defined (a training algorithm reads the
    inference graph's values). A scope's bodies are looked at when the walk resumes after
    yielding it, so a caller may rename inside a graph before its bodies come."""
    todo: list[GraphScope] = [root_scope(graph, path, outer)]
    while todo:
        scope = todo.pop()
        yield scope
        todo.extend(reversed(inner_scopes(scope)))


def body_scopes(
    nodes: Sequence[NodeProto], path: str, given: Mapping[str, str], index: int | None = None
) -> list[GraphScope]:
    """The scopes of the bodies held by ``nodes`` (node ``index``'s only, if given), a node
    list at ``path`` that is not a graph: a model-local function's body, whose ``given``
    names (its inputs, with their paths) are what its nodes see before the first."""
    return _scopes_of_nodes(nodes, path, given, None, index)


def walk_bodies(nodes: Sequence[NodeProto], path: str, given: Mapping[str, str]) -> Iterator[GraphScope]:
    """The scopes of every body (at any depth) held by ``nodes``, a node list at ``path`` that
    is not a graph (see :func:`body_scopes`)."""
    todo = list(reversed(body_scopes(nodes, path, given)))
    while todo:
        scope = todo.pop()
        yield scope
        todo.extend(reversed(inner_scopes(scope)))


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


def outer_reads(graph: GraphProto) -> set[str]:
    """The names ``graph``'s nodes (at any depth) read but ``graph`` does not define: what a
    body takes from its enclosing graphs."""
    defined = given_names(graph)
    used: set[str] = set()
    for node in graph.node:
        used.update(node.input)
        for body in bodies(node):
            used.update(outer_reads(body))
        defined.update(node.output)
    used.discard("")
    return used - defined
