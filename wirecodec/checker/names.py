"""Value names (IR.md, "Names Within a Graph"): single assignment, topological order, defined uses.

Walks each graph with its lexical scope: a nested subgraph sees the names its
enclosing graphs defined before the node that holds it; a training algorithm sees
the whole inference graph (onnx.proto, TrainingInfoProto.algorithm).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto, ValueInfoProto
from wirecodec._graphs import named_bodies
from wirecodec.checker.violation import Report, Rule

__all__ = ["RULES", "check_names"]

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
class _Scope:
    """The names one graph has defined so far, and the graph enclosing it."""

    parent: _Scope | None
    defined: dict[str, str] = field(default_factory=dict)  # name -> path of its definition
    producers: dict[str, int] = field(default_factory=dict)  # node output -> index of its last producer
    position: int = 0  # index of the node being checked

    def outer(self, name: str) -> str | None:
        scope = self.parent
        while scope is not None:
            if name in scope.defined:
                return scope.defined[name]
            scope = scope.parent
        return None

    def visible(self, name: str) -> bool:
        return name in self.defined or self.outer(name) is not None

    def produced_later(self, name: str) -> bool:
        # The node being checked counts as "later": using its own output is a cycle.
        scope: _Scope | None = self
        while scope is not None:
            if scope.producers.get(name, -1) >= scope.position:
                return True
            scope = scope.parent
        return False


def check_names(model: ModelProto, report: Report) -> None:
    """Report every naming violation in the model's graphs, training graphs and functions."""
    checker = _NameChecker(report, model.ir_version if model.HasField("ir_version") else None)
    main: _Scope | None = None
    if model.HasField("graph"):
        main = checker.graph("graph", model.graph, None, main=True)
    for i, info in enumerate(model.training_info):
        if info.HasField("initialization"):
            checker.graph(f"training_info[{i}].initialization", info.initialization, None, main=False)
        if info.HasField("algorithm"):
            # Concatenated with the inference graph (onnx.proto): it sees every name of it.
            checker.graph(f"training_info[{i}].algorithm", info.algorithm, main, main=False)
    for i, function in enumerate(model.functions):
        checker.function(f"functions[{i}]", function)


class _NameChecker:
    def __init__(self, report: Report, ir_version: int | None) -> None:
        self.report = report
        self.ir_version = ir_version

    def define(self, scope: _Scope, name: str, path: str, *, node_output: bool) -> None:
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

    def graph(self, path: str, graph: GraphProto, parent: _Scope | None, *, main: bool) -> _Scope:
        scope = _Scope(parent)
        inputs: dict[str, str] = {}
        for i, value in enumerate(graph.input):
            self.define(scope, value.name, f"{path}.input[{i}].name", node_output=False)
            inputs.setdefault(value.name, f"{path}.input[{i}]")
        self.initializers(path, graph, scope, inputs, main=main)
        self.value_infos(path, "value_info", graph.value_info)
        self.nodes(path, graph.node, scope)
        scope.position = len(graph.node)
        for i, value in enumerate(graph.output):
            self.use_output(scope, value.name, f"{path}.output[{i}].name")
        return scope

    def initializers(
        self, path: str, graph: GraphProto, scope: _Scope, inputs: dict[str, str], *, main: bool
    ) -> None:
        names = [(f"{path}.initializer[{i}]", t.name) for i, t in enumerate(graph.initializer)]
        names += [
            (f"{path}.sparse_initializer[{i}].values", s.values.name)
            for i, s in enumerate(graph.sparse_initializer)
        ]
        seen: dict[str, str] = {}
        for where, name in names:
            if not name:
                continue
            if name in seen:
                self.report.add(
                    f"{where}.name", INITIALIZER_UNIQUE, f"{name!r} is already an initializer at {seen[name]}"
                )
                continue
            seen[name] = where
            if name in inputs:
                if not main:
                    self.report.add(
                        f"{where}.name",
                        SUBGRAPH_INPUT_INITIALIZER,
                        f"{name!r} is both an input ({inputs[name]}) and an initializer of a nested subgraph",
                    )
                continue  # the input already defined it
            if main and self.ir_version is not None and self.ir_version < 4:
                self.report.add(
                    f"{where}.name",
                    INITIALIZER_NOT_INPUT,
                    f"initializer {name!r} is not a graph input, which IR version {self.ir_version} requires",
                )
            self.define(scope, name, f"{where}.name", node_output=False)

    def value_infos(self, path: str, field_name: str, values: Iterable[ValueInfoProto]) -> None:
        seen: dict[str, str] = {}
        for i, value in enumerate(values):
            where = f"{path}.{field_name}[{i}].name"
            if value.name in seen:
                self.report.add(
                    where, VALUE_INFO_UNIQUE, f"{value.name!r} already has value_info at {seen[value.name]}"
                )
            elif value.name:
                seen[value.name] = where

    def nodes(self, path: str, nodes: list[NodeProto], scope: _Scope) -> None:
        for i, node in enumerate(nodes):
            for name in node.output:
                scope.producers[name] = i
        for i, node in enumerate(nodes):
            scope.position = i
            where = f"{path}.node[{i}]"
            for j, name in enumerate(node.input):
                if name and not scope.visible(name):
                    self.undefined_input(scope, name, f"{where}.input[{j}]")
            for _, body_path, body in named_bodies(node, where):
                self.graph(body_path, body, scope, main=False)
            for j, name in enumerate(node.output):
                self.define(scope, name, f"{where}.output[{j}]", node_output=True)

    def undefined_input(self, scope: _Scope, name: str, path: str) -> None:
        if scope.produced_later(name):
            self.report.add(path, TOPOLOGICAL_ORDER, f"{name!r} is produced by a node that comes later")
        else:
            self.report.add(path, UNDEFINED_INPUT, f"{name!r} is not defined before this node")

    def use_output(self, scope: _Scope, name: str, path: str) -> None:
        if not name or name in scope.defined:
            return
        if scope.outer(name) is not None:
            # onnx refuses it too: a body passes an outer value on through a node (Identity).
            message = f"Graph output {name!r} is not an output of any node: it is only in an outer scope"
        else:
            message = f"output {name!r} is not defined"
        self.report.add(path, UNDEFINED_OUTPUT, message)

    def function(self, path: str, function: FunctionProto) -> None:
        scope = _Scope(None)
        for i, name in enumerate(function.input):
            self.define(scope, name, f"{path}.input[{i}]", node_output=False)
        self.value_infos(path, "value_info", function.value_info)
        self.nodes(path, function.node, scope)
        for i, name in enumerate(function.output):
            self.use_output(scope, name, f"{path}.output[{i}]")
