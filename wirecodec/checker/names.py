"""Value names (IR.md, "Names Within a Graph"): single assignment, topological order, defined uses.

Walks each graph with its lexical scope: a nested subgraph sees the names its
enclosing graphs defined before the node that holds it; a training algorithm sees
the whole inference graph (onnx.proto, TrainingInfoProto.algorithm).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.graphs.scopes import GraphScope, body_scopes, produced_after, root_scope, visible_at
from wirecodec.protobuf.fieldpath import join

if TYPE_CHECKING:
    from wirecodec.checker.values import GraphValues

__all__ = ["RULES", "NodeNames", "body_holders", "check_names", "node_names"]

_NAMES = "IR.md: Names Within a Graph"

SSA = Rule(
    "ssa",
    _NAMES,
    "a value name is defined once per graph: graph inputs, initializers and node outputs "
    "(a main-graph input MAY share its name with an initializer)",
)
SSA_OUTER = Rule(
    "ssa-outer-scope",
    _NAMES,
    "a node output in a nested subgraph does not reuse a name visible from an outer scope",
)
SUBGRAPH_INPUT_INITIALIZER = Rule(
    "subgraph-input-initializer",
    _NAMES,
    "a nested subgraph does not use one name as both an input and an initializer",
)
TOPOLOGICAL_ORDER = Rule(
    "topological-order",
    "IR.md: Graphs",
    "nodes are sorted topologically: a node's inputs are produced before it",
)
UNDEFINED_INPUT = Rule(
    "undefined-input",
    "IR.md: Nodes",
    "a node input names a graph input, an initializer, an earlier node output or an outer-scope value "
    "('' omits an optional input)",
)
UNDEFINED_OUTPUT = Rule(
    "undefined-output",
    _NAMES,
    "a graph (or function) output names a value defined in that graph, not only in an outer scope",
)
INITIALIZER_UNIQUE = Rule(
    "initializer-unique",
    "onnx.proto: GraphProto.initializer",
    "initializer names are unique across initializer and sparse_initializer",
)
INITIALIZER_NOT_INPUT = Rule(
    "initializer-not-input",
    "onnx.proto: Version, IR_VERSION_2019_1_22",
    "before IR version 4 every initializer of the main graph is also a graph input",
)
VALUE_INFO_UNIQUE = Rule(
    "value-info-unique",
    "onnx.proto: GraphProto.value_info, FunctionProto.value_info",
    "value_info names are distinct",
)

RULES = (
    SSA,
    SSA_OUTER,
    SUBGRAPH_INPUT_INITIALIZER,
    TOPOLOGICAL_ORDER,
    UNDEFINED_INPUT,
    UNDEFINED_OUTPUT,
    INITIALIZER_UNIQUE,
    INITIALIZER_NOT_INPUT,
    VALUE_INFO_UNIQUE,
)


@dataclass
class _Names:
    """What one graph (or function body) under check has defined so far, read with its
    scope from the one scope walk (which says what the enclosing graphs define before the
    holding node, and what they produce after it)."""

    before: Mapping[str, str]  # what the enclosing graphs define before the holder (GraphScope.before)
    later: AbstractSet[str]  # what they produce at or after it (GraphScope.later)
    defined: dict[str, str] = field(default_factory=dict)  # name -> path of its definition
    producers: dict[str, int] = field(default_factory=dict)  # node output -> index of its last producer
    position: int = 0  # index of the node being checked

    def outer(self, name: str) -> str | None:
        return self.before.get(name)

    def visible(self, name: str) -> bool:
        return name in self.defined or self.before.get(name) is not None

    def produced_later(self, name: str) -> bool:
        # The node being checked counts as "later": using its own output is a cycle.
        if self.producers.get(name, -1) >= self.position:
            return True
        return name in self.later


def body_holders(body_paths: Iterable[str]) -> frozenset[str]:
    """The paths of the graphs (or function bodies) whose nodes hold the bodies at
    ``body_paths`` (``graph.node[3].attribute[0].g`` is held in ``graph``)."""
    return frozenset(path.rpartition(".node[")[0] for path in body_paths)


def _by_holder(scopes: list[GraphScope]) -> dict[int, list[GraphScope]]:
    held: dict[int, list[GraphScope]] = {}
    for scope in scopes:
        held.setdefault(scope.index, []).append(scope)
    return held


NodeNames = tuple[tuple[str, ...], tuple[str, ...]]
"""A node's ``input`` and ``output`` names."""


def node_names(node: NodeProto) -> NodeNames:
    """What the names rules read of a node, as plain tuples (which hold no view of it)."""
    return tuple(node.input), tuple(node.output)


def check_names(
    model: ModelProto,
    report: Report,
    values: dict[str, GraphValues] | None = None,
    holders: AbstractSet[str] | None = None,
    nodes: Mapping[str, Sequence[NodeNames]] | None = None,
    bodies: Iterable[str] | None = None,
) -> None:
    """Report every naming violation in the model's graphs, training graphs and functions;
    ``values``: every graph's values read once (:func:`wirecodec.checker.values.read_values`),
    else they are read here; ``holders``: the paths of the graphs and functions whose nodes
    hold bodies (:func:`body_holders`), else every node is looked at for bodies; ``nodes``:
    each graph's :func:`node_names` by the graph's path, read as the one walk met each node
    (a long graph's node is a view built anew by each read), else they are read here.
    With ``values``, ``nodes`` and ``bodies`` (the paths of every body, as the walk found
    them) the graphs are checked from what the walk read, and no graph is read here: a
    body is an element of its holder's view, and holding every body until its scope was
    known would hold every holder."""
    ir = model.ir_version if model.HasField("ir_version") else None
    read = values is not None and nodes is not None and bodies is not None  # every graph read
    if bodies is not None:
        bodies = list(bodies)
        holders = body_holders(bodies)
    checker = _NameChecker(report, ir, values or {}, holders, nodes or {})
    for body in bodies or ():
        holder, _, rest = body.rpartition(".node[")
        checker.held_bodies.setdefault(holder, {}).setdefault(int(rest[: rest.index("]")]), []).append(body)
    main: dict[str, str] = {}
    if model.HasField("graph"):
        main = (
            checker.graph_read("graph", {}, frozenset(), main=True)
            if read
            else checker.graph(root_scope(model.graph, "graph"), main=True)
        )
    for i, info in enumerate(model.training_info):
        where = join("", "training_info", i)
        if info.HasField("initialization"):
            path = join(where, "initialization")
            if read:
                checker.graph_read(path, {}, frozenset(), main=False)
            else:
                checker.graph(root_scope(info.initialization, path), main=False)
        if info.HasField("algorithm"):
            # Concatenated with the inference graph (onnx.proto): it sees every name of it.
            path = join(where, "algorithm")
            if read:
                checker.graph_read(path, main, frozenset(), main=False)
            else:
                checker.graph(root_scope(info.algorithm, path, main), main=False)
    for i, function in enumerate(model.functions):
        checker.function(join("", "functions", i), function)


def _initializers(path: str, graph: GraphProto) -> list[tuple[str, str]]:
    """Each initializer's (and sparse initializer's values') path and name, as
    :class:`wirecodec.checker.values.GraphValues` lists them."""
    names = [(join(path, "initializer", i), t.name) for i, t in enumerate(graph.initializer)]
    names += [
        (join(join(path, "sparse_initializer", i), "values"), s.values.name)
        for i, s in enumerate(graph.sparse_initializer)
    ]
    return names


class _NameChecker:
    def __init__(
        self,
        report: Report,
        ir_version: int | None,
        values: dict[str, GraphValues],
        holders: AbstractSet[str] | None,
        nodes: Mapping[str, Sequence[NodeNames]],
    ) -> None:
        self.report = report
        self.node_names = nodes  # each graph's node names, read in the walk (else read here)
        self.ir_version = ir_version
        self.values = values  # the names of each graph's values, read once (else read here)
        self.holders = holders  # where bodies are (None: unknown, every node is looked at)
        # The paths of the bodies, by holding graph and node index (for graph_read)
        self.held_bodies: dict[str, dict[int, list[str]]] = {}

    def bodies(self, path: str, scopes: Callable[[], list[GraphScope]]) -> dict[int, list[GraphScope]]:
        """The scopes of the bodies of the nodes at ``path``, by node index: none without
        reading a node when the walk found no body there."""
        if self.holders is not None and path not in self.holders:
            return {}
        return _by_holder(scopes())

    def define(self, scope: _Names, name: str, path: str, *, node_output: bool) -> None:
        if not name:
            return  # a missing name is the required-field rules' finding
        if name in scope.defined:
            self.report.add(path, SSA, f"{name!r} is already defined at {scope.defined[name]}")
            return
        if node_output:
            earlier = scope.outer(name)
            if earlier is not None:
                self.report.add(
                    path, SSA_OUTER, f"{name!r} is already defined in an outer scope at {earlier}"
                )
        scope.defined[name] = path

    def graph(self, where: GraphScope, *, main: bool) -> dict[str, str]:
        """Check the graph of ``where``; the names it defines, with their definitions."""
        graph, path = where.graph, where.path
        read = self.values.get(path)
        value_names = (
            read.names
            if read is not None
            else {
                "input": [value.name for value in graph.input],
                "output": [value.name for value in graph.output],
                "value_info": [value.name for value in graph.value_info],
            }
        )
        initializers = read.initializers if read is not None else _initializers(path, graph)
        read_nodes = self.node_names.get(path)
        if read_nodes is None:
            read_nodes = [node_names(node) for node in graph.node]
        held = {
            i: [functools.partial(self.graph, body, main=False) for body in bodies]
            for i, bodies in self.bodies(path, where.inner).items()
        }
        scope = _Names(where.before, where.later)
        return self.check_graph(path, scope, value_names, initializers, read_nodes, held, main=main)

    def graph_read(
        self, path: str, before: Mapping[str, str], later: AbstractSet[str], *, main: bool
    ) -> dict[str, str]:
        """Check the graph at ``path`` from what the one walk read of it (its values,
        initializers, node names and the paths of its bodies), reading no message: ``before``
        and ``later`` are its scope (as :class:`GraphScope`'s)."""
        read = self.values[path]
        nodes = self.node_names.get(path, [])
        bodies = self.held_bodies.get(path)
        held: dict[int, list[Callable[[], object]]] = {}
        if bodies:
            given: dict[str, str] = {}
            for i, name in enumerate(read.names["input"]):
                if name:
                    given.setdefault(name, join(join(path, "input", i), "name"))
            for where, name in read.initializers:
                if name:
                    given.setdefault(name, join(where, "name"))
            own: dict[str, tuple[int, int]] = {}
            last: dict[str, int] = {}
            for i, (_, outputs) in enumerate(nodes):
                for j, name in enumerate(outputs):
                    if name:
                        last[name] = i
                        own.setdefault(name, (i, j))
            for i, paths in bodies.items():
                inner, after = visible_at(before, given, own, path, i), produced_after(later, last, i)
                held[i] = [
                    functools.partial(self.graph_read, body, inner, after, main=False) for body in paths
                ]
        scope = _Names(before, later)
        return self.check_graph(path, scope, read.names, read.initializers, nodes, held, main=main)

    def check_graph(
        self,
        path: str,
        scope: _Names,
        value_names: Mapping[str, list[str]],
        initializers: list[tuple[str, str]],
        nodes: Sequence[NodeNames],
        held: Mapping[int, Sequence[Callable[[], object]]],
        *,
        main: bool,
    ) -> dict[str, str]:
        inputs: dict[str, str] = {}
        for i, name in enumerate(value_names["input"]):
            at = join(path, "input", i)
            self.define(scope, name, join(at, "name"), node_output=False)
            inputs.setdefault(name, at)
        self.initializers(initializers, scope, inputs, main=main)
        self.value_infos(path, "value_info", value_names["value_info"])
        self.nodes(path, nodes, scope, held)
        scope.position = len(nodes)
        for i, name in enumerate(value_names["output"]):
            self.use_output(scope, name, join(join(path, "output", i), "name"))
        return scope.defined

    def initializers(
        self, names: list[tuple[str, str]], scope: _Names, inputs: dict[str, str], *, main: bool
    ) -> None:
        seen: dict[str, str] = {}
        for where, name in names:
            if not name:
                continue
            if name in seen:
                self.report.add(
                    join(where, "name"),
                    INITIALIZER_UNIQUE,
                    f"{name!r} is already an initializer at {seen[name]}",
                )
                continue
            seen[name] = where
            if name in inputs:
                if not main:
                    self.report.add(
                        join(where, "name"),
                        SUBGRAPH_INPUT_INITIALIZER,
                        f"{name!r} is both an input ({inputs[name]}) and an initializer of a nested subgraph",
                    )
                continue  # the input already defined it
            if main and self.ir_version is not None and self.ir_version < 4:
                self.report.add(
                    join(where, "name"),
                    INITIALIZER_NOT_INPUT,
                    f"initializer {name!r} is not a graph input, which IR version {self.ir_version} requires",
                )
            self.define(scope, name, join(where, "name"), node_output=False)

    def value_infos(self, path: str, field_name: str, names: Iterable[str]) -> None:
        seen: dict[str, int] = {}  # name -> index of its first value_info (a path only when reported)
        for i, name in enumerate(names):
            if name in seen:
                where, first = (join(join(path, field_name, at), "name") for at in (i, seen[name]))
                self.report.add(where, VALUE_INFO_UNIQUE, f"{name!r} already has value_info at {first}")
            elif name:
                seen[name] = i

    def nodes(
        self,
        path: str,
        nodes: Sequence[NodeNames],
        scope: _Names,
        held: Mapping[int, Sequence[Callable[[], object]]],
    ) -> None:
        """Check ``nodes`` (their :func:`node_names`) in order; ``held[i]`` checks node ``i``'s
        bodies, each where the node is, before its outputs are defined."""
        for i, (_, outputs) in enumerate(nodes):
            for name in outputs:
                scope.producers[name] = i
        for i, (inputs, outputs) in enumerate(nodes):
            scope.position = i
            where = join(path, "node", i)
            for j, name in enumerate(inputs):
                if name and not scope.visible(name):
                    self.undefined_input(scope, name, join(where, "input", j))
            for body in held.get(i, ()):
                body()
            for j, name in enumerate(outputs):
                self.define(scope, name, join(where, "output", j), node_output=True)

    def undefined_input(self, scope: _Names, name: str, path: str) -> None:
        if scope.produced_later(name):
            self.report.add(path, TOPOLOGICAL_ORDER, f"{name!r} is produced by a node that comes later")
        else:
            self.report.add(path, UNDEFINED_INPUT, f"{name!r} is not defined before this node")

    def use_output(self, scope: _Names, name: str, path: str) -> None:
        if not name or name in scope.defined:
            return
        if scope.outer(name) is not None:
            # onnx refuses it too: a body passes an outer value on through a node (Identity).
            message = f"Graph output {name!r} is not an output of any node: it is only in an outer scope"
        else:
            message = f"output {name!r} is not defined"
        self.report.add(path, UNDEFINED_OUTPUT, message)

    def function(self, path: str, function: FunctionProto) -> None:
        scope = _Names({}, frozenset())
        for i, name in enumerate(function.input):
            self.define(scope, name, join(path, "input", i), node_output=False)
        self.value_infos(path, "value_info", [value.name for value in function.value_info])
        given = dict(scope.defined)
        held = {
            i: [functools.partial(self.graph, body, main=False) for body in bodies]
            for i, bodies in self.bodies(path, lambda: body_scopes(function.node, path, given)).items()
        }
        self.nodes(path, [node_names(node) for node in function.node], scope, held)
        for i, name in enumerate(function.output):
            self.use_output(scope, name, join(path, "output", i))
