"""What a model is made of, for ``inspect``: its precision, its quantization, and where its
parameters go (by the kind of node that uses them).

All of it from the graph's structure and the tensors' headers: no payload is read.

- precision: the element type holding most parameters, and the ``Cast`` nodes at the
  graph's edges (an fp16 export casts its float32 inputs in and its outputs back);
- quantization: the quantizing operators by count, and whether each QuantizeLinear /
  DequantizeLinear scale is per tensor (one value) or per channel (one per channel);
- parameters by operator: each weight counted once, for the node that uses it; through
  the nodes that only pass it on in another form (DequantizeLinear, Cast, Transpose...),
  so an int8 weight dequantized for a MatMul counts for MatMul.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any, Final

from schema_dsl.message import Message
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec.cli.facts import TensorFacts, tensor_facts
from wirecodec.graphs.scopes import bodies
from wirecodec.protobuf.lazy import elements
from wirecodec.protobuf.walk import fields_toward

__all__ = ["QUANTIZING", "Nodes", "as_packed", "make_up", "packed_weights", "percent"]

QUANTIZING: Final = frozenset(
    {
        "QuantizeLinear",
        "DequantizeLinear",
        "DynamicQuantizeLinear",
        "ConvInteger",
        "MatMulInteger",
        "QLinearConv",
        "QLinearMatMul",
        "QLinearAdd",
        "QLinearMul",
        "MatMulNBits",
        "DynamicQuantizeMatMul",
        "QGemm",
        "QAttention",
    }
)
"""Operators (ai.onnx and com.microsoft) that only a quantized model holds."""

# Nodes that hand a weight on in another form: the weight is counted for whoever reads their output.
_PASS_ON: Final = frozenset(
    {"DequantizeLinear", "Cast", "Transpose", "Reshape", "Identity", "Squeeze", "Unsqueeze", "Flatten"}
)
_SCALED: Final = frozenset({"QuantizeLinear", "DequantizeLinear"})


class Nodes:
    """Every node of a graph, its bodies' nodes at any depth included, read once and held.

    The report looks at the nodes several times (packed weights, weights, quantizers,
    readers, nested operators). A long graph's elements are views built again by each
    read unless someone holds them, and a node's bodies are found by reading its
    attributes: so both are read here once, for the length of the report.
    """

    def __init__(self, graph: GraphProto) -> None:
        self.graph = graph
        self.all: list[NodeProto] = []  # depth first: a node, then its bodies' nodes
        self._own: dict[int, list[NodeProto]] = {}  # id(graph) -> its nodes (the graph is held)
        self._bodies: dict[int, list[GraphProto]] = {}  # id(node) -> its bodies (the node is held)
        self._graphs: list[GraphProto] = []  # every graph read, held so that its id stays its own
        self.bare: set[int] = set()  # id() of each node below which no tensor can be
        self._read(graph)
        self.main = self._own[id(graph)]

    def _read(self, graph: GraphProto) -> None:
        own = list(graph.node)
        self._graphs.append(graph)
        self._own[id(graph)] = own
        for node in own:
            self.all.append(node)
            if _bare(node):
                self.bare.add(id(node))
            held = list(bodies(node))
            if held:
                self._bodies[id(node)] = held
                for body in held:
                    self._read(body)

    def of(self, graph: GraphProto) -> list[NodeProto]:
        """The nodes of ``graph`` (the main graph or a body read here)."""
        own = self._own.get(id(graph))
        return list(graph.node) if own is None else own

    def bodies(self, node: NodeProto) -> list[GraphProto]:
        """The bodies ``node`` (one read here) holds."""
        return self._bodies.get(id(node), [])

    def in_bodies(self) -> Iterator[NodeProto]:
        """Every node inside a body, at any depth, in the order of :attr:`all`."""
        main = {id(node) for node in self.main}
        return (node for node in self.all if id(node) not in main)


# The fields through which a node (and then an attribute) can hold a tensor, from the schema
# as the one walk reads it: an attribute's t, tensors, sparse tensors and graphs.
_NODE_TOWARD: Final = tuple((spec.name, spec.repeated) for spec in fields_toward(NodeProto, (TensorProto,)))
_ATTRIBUTE_TOWARD: Final = tuple(
    (spec.name, spec.repeated) for spec in fields_toward(AttributeProto, (TensorProto,))
)


def _holds(message: Message, fields: tuple[tuple[str, bool], ...]) -> Iterator[Message]:
    """What ``message`` holds in ``fields`` (each element of a repeated one)."""
    for name, repeated in fields:
        if repeated:
            yield from elements(message, name)
        elif message.HasField(name):
            yield getattr(message, name)


def _bare(node: NodeProto) -> bool:
    """Whether no tensor can be below ``node``: none of its attributes holds a tensor or a
    graph (the walk for tensors need not enter it)."""
    for held in _holds(node, _NODE_TOWARD):
        if not isinstance(held, AttributeProto) or any(True for _ in _holds(held, _ATTRIBUTE_TOWARD)):
            return False
    return True


def _nodes(graph: GraphProto) -> Iterator[NodeProto]:
    for node in graph.node:
        yield node
        for body in bodies(node):
            yield from _nodes(body)


def nodes_in_bodies(nodes: Iterable[NodeProto]) -> Iterator[NodeProto]:
    """Every node inside the bodies (If branches, Loop and Scan bodies, at any depth) of ``nodes``."""
    for node in nodes:
        for body in bodies(node):
            yield from _nodes(body)


def _int_attribute(node: NodeProto, name: str, default: int) -> int:
    return next((int(a.i) for a in node.attribute if a.name == name), default)


def packed_weights(graph: GraphProto, nodes: Nodes | None = None) -> dict[str, tuple[str, int]]:
    """What the packed weights of ``graph`` (bodies included) are, by name: ``(element type,
    count)``. com.microsoft's MatMulNBits holds its ``bits``-bit weights (``N`` by ``K``)
    packed into UINT8 blocks, and its zero points too when they are UINT8 (one per block,
    ``bits`` wide): counted as ``UINT4`` (for 4 bits) parameters, not as bytes. ``nodes``:
    the graph's :class:`Nodes`, when the caller has read them."""
    packed: dict[str, tuple[str, int]] = {}
    for node in _nodes(graph) if nodes is None else nodes.all:
        if node.op_type != "MatMulNBits" or node.domain != "com.microsoft" or len(node.input) < 2:
            continue
        bits = _int_attribute(node, "bits", 4)
        k, n = _int_attribute(node, "K", 0), _int_attribute(node, "N", 0)
        block = _int_attribute(node, "block_size", 0)
        kind = f"UINT{bits}"
        if n > 0 and k > 0:
            packed[node.input[1]] = (kind, n * k)
        if len(node.input) > 3 and node.input[3] and n > 0 and block > 0:
            packed[node.input[3]] = (kind, n * -(-k // block))  # UINT8 ones only (as_packed)
    return packed


def as_packed(facts: TensorFacts, packed: dict[str, tuple[str, int]]) -> TensorFacts:
    """``facts`` with the element type and count of what a packed (UINT8) tensor holds."""
    found = packed.get(facts.name)
    if found is None or facts.dtype != "UINT8":
        return facts
    return dataclasses.replace(facts, dtype=found[0], elements=found[1])


def percent(share: float) -> str:
    """``share`` as a percentage that is 100% only when it is all and 0% only when it is
    none: 0.9998 is "99.98%", not "100%"."""
    for digits in range(4):
        text = f"{share * 100:.{digits}f}"
        if float(text) not in (0.0, 100.0) or share in (0.0, 1.0):
            return text + "%"
    return f"{share * 100:.4g}%"


def _weights(graph: GraphProto, packed: dict[str, tuple[str, int]], nodes: Nodes) -> dict[str, TensorFacts]:
    """Every weight by the name it is read as: initializers, sparse ones, Constant values;
    packed quantized weights as what they hold (:func:`packed_weights`)."""
    found: dict[str, TensorFacts] = {}
    for tensor in graph.initializer:
        found[tensor.name] = as_packed(tensor_facts(tensor), packed)
    for sparse in graph.sparse_initializer:
        found[sparse.values.name] = tensor_facts(sparse.values)
    for node in nodes.of(graph):
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and node.output:
            for attribute in node.attribute:
                if attribute.name == "value" and attribute.HasField("t"):
                    found[node.output[0]] = tensor_facts(attribute.t)
        for body in nodes.bodies(node):
            for name, facts in _weights(body, packed, nodes).items():
                found.setdefault(name, facts)
    return found


def _by_operator(nodes: list[NodeProto], weights: dict[str, TensorFacts]) -> dict[str, int]:
    readers: dict[str, list[NodeProto]] = collections.defaultdict(list)
    for node in nodes:
        for name in node.input:
            if name:
                readers[name].append(node)
    counts: collections.Counter[str] = collections.Counter()
    for name, facts in weights.items():
        user = _user(name, readers)
        if user is not None:
            counts[user] += facts.elements
    return dict(counts.most_common())


def _user(name: str, readers: dict[str, list[NodeProto]], hops: int = 4) -> str | None:
    """The operator a weight is for: its first reader, or past the readers that pass it on."""
    first = next(iter(readers.get(name, ())), None)
    if first is None:
        return None
    if first.op_type in _PASS_ON and hops and first.output and first.input[0] == name:
        beyond = _user(first.output[0], readers, hops - 1)
        if beyond is not None:
            return beyond
    return first.op_type


def _edge_casts(graph: GraphProto, nodes: list[NodeProto]) -> dict[str, list[str]]:
    """The Cast nodes (of ``nodes``, the graph's) reading a graph input or making a graph
    output, by the type they cast to."""
    inputs = {value.name for value in graph.input}
    outputs = {value.name for value in graph.output}
    casts: dict[str, list[str]] = {}
    for node in nodes:
        if node.op_type != "Cast" or not node.input:
            continue
        if node.input[0] in inputs or any(name in outputs for name in node.output):
            to = next((a.i for a in node.attribute if a.name == "to"), 0)
            side = "input" if node.input[0] in inputs else "output"
            try:
                kind = TensorProto.DataType(to).name
            except ValueError:
                kind = f"data_type {to}"
            casts.setdefault(f"{side} to {kind}", []).append(node.name or node.output[0])
    return casts


def _scales(nodes: list[NodeProto], weights: dict[str, TensorFacts]) -> dict[str, int]:
    granularity: collections.Counter[str] = collections.Counter()
    for node in nodes:
        if node.op_type in _SCALED and len(node.input) > 1:
            scale = weights.get(node.input[1])
            if scale is None:
                granularity["computed"] += 1  # a scale made at run time (DynamicQuantizeLinear's)
            elif scale.elements <= 1:
                granularity["per tensor"] += 1
            else:
                granularity["per channel"] += 1
    return dict(granularity)


def make_up(
    model: ModelProto, packed: dict[str, tuple[str, int]] | None = None, read: Nodes | None = None
) -> dict[str, Any]:
    """Precision, quantization and parameters by operator (see the module documentation);
    ``packed``: what :func:`packed_weights` of the main graph gives, and ``read``: the main
    graph's :class:`Nodes`, when the caller has them."""
    graph = model.graph
    read = Nodes(graph) if read is None else read
    nodes = read.all
    weights = _weights(graph, packed_weights(graph, read) if packed is None else packed, read)
    by_dtype: collections.Counter[str] = collections.Counter()
    for facts in weights.values():
        by_dtype[facts.dtype] += facts.elements
    total = sum(by_dtype.values())
    main_type = by_dtype.most_common(1)[0][0] if by_dtype else None
    quantizing = collections.Counter(node.op_type for node in nodes if node.op_type in QUANTIZING)
    return {
        "precision": {
            "weights": main_type,
            "share": by_dtype[main_type] / total if main_type and total else None,
            "edge_casts": _edge_casts(graph, read.main),
        },
        "quantization": {
            "operators": dict(quantizing.most_common()),
            "scales": _scales(nodes, weights),
        },
        "parameters_by_operator": _by_operator(nodes, weights),
    }


def text(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, text) pairs for inspect's text form; only what has something to say."""
    rows: list[tuple[str, str]] = []
    precision = summary["precision"]
    if precision["weights"] is not None:
        share = f" ({percent(precision['share'])} of parameters)" if precision["share"] < 1 else ""
        casts = "; ".join(
            f"Cast at the {side} ×{len(names)} ({', '.join(names[:2])}{', ...' if len(names) > 2 else ''})"
            for side, names in precision["edge_casts"].items()
        )
        rows.append(("precision", f"{precision['weights']} weights{share}" + (f"; {casts}" if casts else "")))
    quantization = summary["quantization"]
    if quantization["operators"]:
        ops = ", ".join(f"{op}×{n}" for op, n in quantization["operators"].items())
        scales = ", ".join(f"{n} {kind}" for kind, n in quantization["scales"].items())
        rows.append(("quantized", ops + (f"; scales: {scales}" if scales else "")))
    by_op = summary["parameters_by_operator"]
    if by_op:
        rows.append(("params by op", ", ".join(f"{op} {n:,}" for op, n in by_op.items())))
    return rows
