"""``onnx.inliner``: replace calls of a model's local functions by the functions' bodies.

Each call is expanded in place: the body's formal inputs and outputs become the call's
actual names, every other name in the body (subgraphs included) becomes
``<name>__<n>`` — ``n`` counting the calls expanded so far — made unique against every
name of the model with ``_<k>`` (``k`` counting such clashes), as onnx names them;
attribute references take the call's attribute, else are dropped (onnx does not use the
function's defaults). A subgraph is a scope of its own. Calls inside an expanded body,
and in subgraphs, are expanded in turn; a function that calls itself (directly or not) is
a ``CheckError`` (onnx's ``checker.ValidationError``). The functions inlined leave
``model.functions``.

>>> from wirecodec.onnx_compat import parser
>>> model = parser.parse_model('''
... <ir_version: 10, opset_import: ["" : 18, "local" : 1]>
... g (float[N] X) => (float[N] Y) { Y = local.square(X) }
... <domain: "local", opset_import: ["" : 18]>
... square (x) => (y) { t = Mul(x, x)
...                     y = Relu(t) }
... ''')
>>> [(n.op_type, list(n.input), list(n.output)) for n in inline_local_functions(model).graph.node]
[('Mul', ['X', 'X'], ['t__1']), ('Relu', ['t__1'], ['Y'])]

Not provided: ``convert_version=True`` (the opset issue) and ``inline_schema_functions``
(:class:`~wirecodec.onnx_compat.NotProvidedError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from schema_dsl.onnx import AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto
from wirecodec.checker.violation import Violation
from wirecodec.errors import CheckError
from wirecodec.onnx_compat._unsupported import not_provided

__all__ = ["inline_local_functions", "inline_selected_functions"]

FunctionId = tuple[str, str]


def _graphs_of(node: NodeProto) -> Iterator[GraphProto]:
    for attribute in node.attribute:
        if attribute.type == AttributeProto.GRAPH:
            yield attribute.g
        elif attribute.type == AttributeProto.GRAPHS:
            yield from attribute.graphs


def _names_in(graph: GraphProto) -> Iterator[str]:
    for value in (*graph.input, *graph.output, *graph.value_info):
        yield value.name
    for tensor in graph.initializer:
        yield tensor.name
    for sparse in graph.sparse_initializer:
        yield sparse.values.name
    for node in graph.node:
        yield from node.input
        yield from node.output
        for sub in _graphs_of(node):
            yield from _names_in(sub)


class _Inliner:
    def __init__(self, model: ModelProto, functions: dict[tuple[str, str, str], FunctionProto]) -> None:
        self.functions = functions
        self.used = set(_names_in(model.graph))
        self.calls = 0
        self.clashes = 0
        self.active: list[tuple[str, str, str]] = []  # the functions being expanded, outermost first

    def unique(self, base: str) -> str:
        candidate = base
        while candidate in self.used:
            candidate = f"{base}_{self.clashes}"
            self.clashes += 1
        self.used.add(candidate)
        return candidate

    def graph(self, graph: GraphProto) -> None:
        expanded = self.nodes(graph.node)
        del graph.node[:]
        graph.node.extend(expanded)

    def nodes(self, nodes: Iterable[NodeProto]) -> list[NodeProto]:
        out: list[NodeProto] = []
        for node in nodes:
            function = self.functions.get((node.domain, node.op_type, node.overload))
            if function is None:
                for sub in _graphs_of(node):
                    self.graph(sub)
                out.append(node)
            else:
                key = (function.domain, function.name, function.overload)
                if key in self.active:  # a function calling itself, directly or not, never ends
                    chain = " -> ".join(f"{d}.{n}" for d, n, _ in (*self.active, key))
                    raise CheckError(
                        [Violation(f"functions[{function.domain}.{function.name}]", "function-cycle", chain)]
                    )
                self.calls += 1
                self.active.append(key)
                out.extend(self.nodes(self.expand(node, function, self.calls)))
                self.active.pop()
        return out

    def expand(self, call: NodeProto, function: FunctionProto, n: int) -> list[NodeProto]:
        renames: dict[str, str] = {"": ""}
        for i, formal in enumerate(function.input):
            renames[formal] = call.input[i] if i < len(call.input) else ""
        for i, formal in enumerate(function.output):
            renames[formal] = call.output[i] if i < len(call.output) else ""
        given = {a.name: a for a in call.attribute}
        body = []
        for node in function.node:
            copy = NodeProto()
            copy.CopyFrom(node)
            self.rename_node(copy, renames, n, given)
            body.append(copy)
        return body

    def name(self, name: str, renames: dict[str, str], n: int) -> str:
        """The new name of ``name`` in a scope (one made on first sight)."""
        found = renames.get(name)
        if found is None:
            found = renames[name] = self.unique(f"{name}__{n}")
        return found

    def rename_node(
        self,
        node: NodeProto,
        renames: dict[str, str],
        n: int,
        given: dict[str, AttributeProto],
    ) -> None:
        node.input[:] = [self.name(x, renames, n) for x in node.input]
        kept = []
        for attribute in node.attribute:
            if attribute.ref_attr_name:
                # The call's value (its graphs name the caller's values: not renamed); a
                # reference the call leaves unset is dropped, the function's default unused, as onnx.
                source = given.get(attribute.ref_attr_name)
                if source is not None:
                    value = AttributeProto()
                    value.CopyFrom(source)
                    value.name = attribute.name
                    kept.append(value)
                continue
            if attribute.type == AttributeProto.GRAPH:
                self.rename_graph(attribute.g, renames, n, given)
            for sub in attribute.graphs:
                self.rename_graph(sub, renames, n, given)
            kept.append(attribute)
        del node.attribute[:]
        node.attribute.extend(kept)
        node.output[:] = [self.name(x, renames, n) for x in node.output]
        if node.name:
            node.name = self.unique(f"{node.name}__{n}")

    def rename_graph(
        self,
        graph: GraphProto,
        renames: dict[str, str],
        n: int,
        given: dict[str, AttributeProto],
    ) -> None:
        # A scope of its own: an enclosing name keeps its new name (even where the subgraph
        # defines it again), a name first seen here stays here (a sibling gets another).
        scope = dict(renames)
        for value in graph.input:
            value.name = self.name(value.name, scope, n)
        for tensor in graph.initializer:
            tensor.name = self.name(tensor.name, scope, n)
        for node in graph.node:
            self.rename_node(node, scope, n, given)
        for value in (*graph.output, *graph.value_info):
            value.name = self.name(value.name, scope, n)


def _inline(model: ModelProto, chosen: set[tuple[str, str]]) -> ModelProto:
    result = ModelProto()
    result.CopyFrom(model)
    functions = {(f.domain, f.name, f.overload): f for f in result.functions if (f.domain, f.name) in chosen}
    inliner = _Inliner(result, functions)
    inliner.graph(result.graph)
    kept = [f for f in result.functions if (f.domain, f.name) not in chosen]
    for function in kept:  # calls inside the functions that stay are expanded too
        expanded = inliner.nodes(function.node)
        del function.node[:]
        function.node.extend(expanded)
    del result.functions[:]
    result.functions.extend(kept)
    return result


def inline_local_functions(model: ModelProto, convert_version: bool = False) -> ModelProto:
    """A copy of ``model`` with every call of its local functions expanded, and no functions left."""
    if convert_version:
        not_provided("onnx.inliner.inline_local_functions(convert_version=True)", "see the opset issue")
    return _inline(model, {(f.domain, f.name) for f in model.functions})


def inline_selected_functions(
    model: ModelProto,
    function_ids: list[FunctionId],
    exclude: bool = False,
    inline_schema_functions: bool = False,
) -> ModelProto:
    """A copy of ``model`` with the calls of the functions ``function_ids`` (``(domain, name)``)
    expanded, or, with ``exclude=True``, of every local function but those."""
    if inline_schema_functions:
        not_provided("onnx.inliner.inline_selected_functions(inline_schema_functions=True)", "not yet")
    ids = {(d, n) for d, n in function_ids}
    local = {(f.domain, f.name) for f in model.functions}
    return _inline(model, local - ids if exclude else local & ids)
