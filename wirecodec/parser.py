"""Read the ONNX textual syntax into messages, as ``onnx.parser`` does.

>>> from wirecodec.parser import parse_model, parse_node
>>> model = parse_model('''
...   <ir_version: 8, opset_import: ["" : 18]>
...   agraph (float[N, 128] X, float[128, 10] W) => (float[N, 10] Y) {
...     Y = MatMul(X, W)
...   }
... ''')
>>> model.graph.node[0].op_type, model.opset_import[0].version
('MatMul', 18)
>>> node = parse_node('Y = Transpose <perm = [1, 0]> (X)')
>>> list(node.attribute[0].ints)
[1, 0]

The messages encode to the same bytes as the reference parser's (``encode(parse_model(t))
== onnx.parser.parse_model(t).SerializeToString()``), which is also why fields are set
exactly where it sets them. Malformed text raises :class:`wirecodec.errors.ParseError`
with the 1-based line and column of the offending token. Unlike the reference, text
left over after a graph, node or function is an error, not silently ignored.
See ``docs/textual-syntax.md`` for the grammar.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    ValueInfoProto,
)
from wirecodec._textual.values import ValueReader

__all__ = ["parse_function", "parse_graph", "parse_model", "parse_node"]

_M = TypeVar("_M")


def parse_model(text: str) -> ModelProto:
    """A model: an optional ``<key: value, ...>`` header, a graph, then functions."""
    return _parse(text, _Reader.model, "model")


def parse_graph(text: str) -> GraphProto:
    """A graph: ``name (inputs) => (outputs) <initializers, value infos> {nodes}``."""
    return _parse(text, _Reader.graph, "graph")


def parse_function(text: str) -> FunctionProto:
    """A function: ``<domain: "d", opset_import: [...]> name <attrs> (inputs) => (outputs) {nodes}``."""
    return _parse(text, _Reader.function, "function")


def parse_node(text: str) -> NodeProto:
    """A node: ``[name] outputs = domain.Op <attributes> (inputs)``."""
    return _parse(text, _Reader.node, "node")


def _parse(text: str, read: Callable[[_Reader], _M], what: str) -> _M:
    if not isinstance(text, str):
        raise TypeError(f"the text to parse must be a str, not {type(text).__name__}")
    reader = _Reader(text)
    result = read(reader)
    if not reader.at_end():
        reader.fail(f"unexpected text after the {what}")
    return result


class _Reader(ValueReader):
    """The graph-level grammar: models, functions, graphs, nodes."""

    # -- models and functions ---------------------------------------------------------

    def model(self) -> ModelProto:
        model = ModelProto()
        if self.accept("<"):
            self.separated(lambda: self._model_entry(model))
            self.expect(">")
        model.graph = self.graph()
        while not self.at_end():
            model.functions.append(self.function())
        return model

    def _model_entry(self, model: ModelProto) -> None:
        start = self.mark()
        key = self.identifier("a model header key")
        self.expect(":")
        if key in ("ir_version", "model_version"):
            setattr(model, key, self.int64())
        elif key in ("producer_name", "producer_version", "domain", "doc_string"):
            setattr(model, key, self.string())
        elif key == "opset_import":
            model.opset_import.extend(self._opsets())
        elif key == "metadata_props":
            self.expect("[")
            if not self.accept("]"):
                model.metadata_props.extend(self.string_pairs())
                self.expect("]")
        else:
            self.fail(f"unknown model header key {key!r}", start)

    def _opsets(self) -> list[OperatorSetIdProto]:
        """``["domain" : version, ...]``."""
        self.expect("[")
        if self.accept("]"):
            return []
        opsets = self.separated(self._opset)
        self.expect("]")
        return opsets

    def _opset(self) -> OperatorSetIdProto:
        domain = self.string("an opset domain in double quotes")
        self.expect(":")
        return OperatorSetIdProto(domain=domain, version=self.int64("an opset version"))

    def function(self) -> FunctionProto:
        fn = FunctionProto()
        if self.accept("<"):
            self.separated(lambda: self._function_entry(fn))
            self.expect(">")
        fn.name = self.quotable_identifier("a function name")
        if self.accept("<"):
            self.separated(lambda: self._function_attribute(fn))
            self.expect(">")
        self._function_signature(fn.input, fn.value_info)
        self.expect("=")
        self.expect(">", skip=False)
        self._function_signature(fn.output, fn.value_info)
        if self.accept("<") and not self.accept(">"):
            fn.value_info.extend(self.separated(self.value_info))
            self.expect(">")
        fn.node.extend(self.node_list())
        return fn

    def _function_attribute(self, fn: FunctionProto) -> None:
        """An attribute's name, or a name with a default value (``beta: float = 0.5``)."""
        name = self.quotable_identifier("an attribute name")
        if self.peek() in (":", "="):
            default = AttributeProto()
            self.attribute_body(default, name)
            fn.attribute_proto.append(default)
        else:
            fn.attribute.append(name)

    def _function_entry(self, fn: FunctionProto) -> None:
        start = self.mark()
        key = self.identifier("a function header key")
        self.expect(":")
        if key == "opset_import":
            fn.opset_import.extend(self._opsets())
        elif key in ("doc_string", "domain", "overload"):
            setattr(fn, key, self.string())
        else:
            self.fail(f"unknown function header key {key!r}", start)

    def _function_signature(self, names: list[str], infos: list[ValueInfoProto]) -> None:
        """``(x, float[N] y)``: names, each optionally typed; a typed one is also a value info."""
        self.expect("(")
        if self.accept(")"):
            return
        for info in self.separated(self.value_info):
            names.append(info.name)
            if info.HasField("type"):
                infos.append(info)
        self.expect(")")

    # -- graphs -----------------------------------------------------------------------

    def graph(self) -> GraphProto:
        graph = GraphProto(name=self.quotable_identifier("a graph name"))
        if self.accept("(") and not self.accept(")"):
            graph.input.extend(info for info, _ in self.separated(lambda: self._value_or_initializer(graph)))
            self.expect(")")
        self.expect("=")
        self.expect(">", skip=False)
        self.expect("(")
        if not self.accept(")"):
            graph.output.extend(self.separated(self.value_info))
            self.expect(")")
        if self.accept("<") and not self.accept(">"):
            entries = self.separated(lambda: self._value_or_initializer(graph))
            graph.value_info.extend(info for info, is_initializer in entries if not is_initializer)
            self.expect(">")
        graph.node.extend(self.node_list())
        return graph

    def value_info(self) -> ValueInfoProto:
        """``[type] name``."""
        info = ValueInfoProto()
        if self.next_is_type():
            info.type = self.type_proto()
        info.name = self.quotable_identifier("a value name")
        return info

    def _value_or_initializer(self, graph: GraphProto) -> tuple[ValueInfoProto, bool]:
        """``type name``, or ``type name = value`` which also adds an initializer (True)."""
        start = self.mark()
        info = self.value_info()
        if not self.accept("="):
            return info, False
        tensor = graph.initializer.add(name=info.name)  # added first: its place is in the order read
        self.tensor_data(tensor, info.type, start)
        return info, True

    # -- nodes ------------------------------------------------------------------------

    def node_list(self) -> list[NodeProto]:
        """``{ node node ... }``."""
        self.expect("{")
        nodes = []
        while not self.accept("}"):
            if self.at_end():
                self.fail("expected '}' to close the node list")
            nodes.append(self.node())
        return nodes

    def node(self) -> NodeProto:
        node = NodeProto()
        if self.accept("["):
            node.name = self.string() if self.peek() == '"' else self.optional_identifier()
            self.expect("]")
        node.output.extend(self._names())
        self.expect("=")
        domain, op_type = "", self.optional_identifier()
        while self.accept("."):
            domain = f"{domain}.{op_type}" if domain else op_type
            op_type = self.identifier("an operator name")
        node.domain, node.op_type = domain, op_type
        if self.accept(":"):
            node.overload = self.identifier("an overload name")
        attributes = self.attribute_list()
        self.expect("(")
        node.input.extend(self._names())
        self.expect(")")
        # Attributes may come before or after the inputs.
        node.attribute.extend(attributes or self.attribute_list())
        return node

    def _names(self) -> list[str]:
        """Comma-separated names, where a missing name before a comma means '' (``(, x)``)."""
        names: list[str] = []
        while True:
            if self.peek() == '"':
                names.append(self.string())
            else:
                name = self.optional_identifier()
                if not name and self.peek() != ",":
                    return names
                names.append(name)
            if not self.accept(","):
                return names
