"""Constant folding: compute, once, every node of the main graph whose inputs are all constant.

>>> import numpy as np
>>> from wirecodec import helper, numpy_helper
>>> from wirecodec.reference.fold import fold_constants
>>> two = numpy_helper.from_array(np.array([2.0], np.float32), "two")
>>> nodes = [helper.make_node("Mul", ["two", "two"], ["four"]), helper.make_node("Add", ["x", "four"], ["y"])]
>>> io = [helper.make_tensor_value_info(n, 1, [1]) for n in ("x", "y")]
>>> graph = helper.make_graph(nodes, "g", io[:1], io[1:], [two])
>>> folded = fold_constants(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]))
>>> [n.op_type for n in folded.graph.node], [t.name for t in folded.graph.initializer]
(['Add'], ['four'])

The rules (docs/reference-evaluator.md, "Constant folding"):

- A value is constant when it is an initializer that is not also a graph input (an input
  may override it), or an output of a node folded before it (nodes are visited in their
  order in the graph).
- A node is folded when every input it names is constant (a node without inputs, such as
  ``Constant``, too), it is in the ONNX domain (``""``/``ai.onnx``) or ``ai.onnx.ml``, it
  is not random (``RandomNormal``, ``Multinomial``, ...), it holds no subgraph (``If``,
  ``Loop``, ``Scan`` are left alone, bodies included: folding inside a body would have to
  know which outer names are constant in every iteration), none of its outputs is a graph
  output, the evaluator computes it, every result is a tensor, and its results take at
  most ``limit`` bytes together.
- The results become initializers (appended in node order, named as the outputs); the
  folded nodes go; an initializer no node (nor any subgraph) reads any more and that is
  not a graph output goes too, and so do ``value_info`` entries of values that no longer
  exist.

The model given is not changed; a new one is returned. ``read`` gives an initializer's
array (default :func:`wirecodec.numpy_helper.to_array`: an external tensor is read from
the working directory; the command line passes the model's own data).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import Any

from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec.graphs.scopes import bodies

__all__ = ["DEFAULT_LIMIT", "RANDOM_OPS", "FoldReport", "fold_constants", "fold_constants_report"]

DEFAULT_LIMIT = 1 << 20
"""Folded results take at most this many bytes per node unless told otherwise (1 MiB)."""

RANDOM_OPS = frozenset(
    {"RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Multinomial", "Bernoulli"}
)
"""Operators whose result differs from run to run: never folded."""

_DOMAINS = ("", "ai.onnx", "ai.onnx.ml")


class FoldReport:
    """What :func:`fold_constants_report` did: nodes folded, initializers added and
    removed, and the nodes with constant inputs left alone (with why), by name or index."""

    def __init__(self) -> None:
        self.nodes = 0
        self.initializers_added = 0
        self.initializers_removed = 0
        self.skipped: list[str] = []

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "initializers_added": self.initializers_added,
            "initializers_removed": self.initializers_removed,
            "skipped": list(self.skipped),
        }


Reader = Callable[[TensorProto], Any]


def fold_constants(
    model: ModelProto, limit: int = DEFAULT_LIMIT, *, read: Reader | None = None
) -> ModelProto:
    """A copy of ``model`` with its constant nodes folded (see the module's rules)."""
    return fold_constants_report(model, limit, read=read)[0]


def fold_constants_report(
    model: ModelProto, limit: int = DEFAULT_LIMIT, *, read: Reader | None = None
) -> tuple[ModelProto, FoldReport]:
    """:func:`fold_constants`, and what it did."""
    from wirecodec.errors import WireCodecError
    from wirecodec.numpy_helper import to_array

    if limit < 0:
        raise WireCodecError(f"fold limit: expected 0 or more bytes, got {limit}")
    folded = copy.deepcopy(model)
    report = FoldReport()
    opsets = {o.domain or "": int(o.version) for o in folded.opset_import}
    _fold_graph(folded.graph, opsets, limit, report, read or to_array)
    return folded, report


def _fold_graph(
    graph: GraphProto, opsets: dict[str, int], limit: int, report: FoldReport, read: Reader
) -> None:
    from wirecodec.numpy_helper import from_array

    inputs = {value.name for value in graph.input}
    outputs = {value.name for value in graph.output}
    values: dict[str, Any] = {}
    for tensor in graph.initializer:
        if tensor.name not in inputs:
            values[tensor.name] = tensor
    kept: list[NodeProto] = []
    added: list[Any] = []
    for index, node in enumerate(graph.node):
        where = node.name or f"node[{index}] ({node.op_type})"
        named = [name for name in node.input if name]
        if not all(name in values for name in named):
            kept.append(node)
            continue
        why = _why_not(node, outputs)
        results = None if why else _evaluate(node, values, opsets, read)
        if why is None and results is None:
            why = "the evaluator could not compute it"
        if why is None and results is not None:
            size = sum(int(getattr(r, "nbytes", 0)) for r in results)
            if not all(_is_tensor(r) for r in results):
                why = "a result is not a tensor"
            elif size > limit:
                why = f"its results take {size} bytes, over the limit of {limit}"
        if why is not None or results is None:
            report.skipped.append(f"{where}: {why}")
            kept.append(node)
            continue
        for name, result in zip(node.output, results, strict=False):
            if not name:
                continue
            tensor = from_array(result, name)
            values[name] = tensor
            added.append(tensor)
        report.nodes += 1
    del graph.node[:]
    graph.node.extend(kept)
    graph.initializer.extend(added)
    report.initializers_added = len(added)
    wanted = _names_read(graph) | outputs
    before = len(graph.initializer)
    live = [t for t in graph.initializer if t.name in wanted or t.name in inputs]
    del graph.initializer[:]
    graph.initializer.extend(live)
    report.initializers_removed = before - len(live)
    existing = inputs | {t.name for t in graph.initializer} | {o for n in graph.node for o in n.output}
    infos = [info for info in graph.value_info if info.name in existing]
    if len(infos) != len(graph.value_info):
        del graph.value_info[:]
        graph.value_info.extend(infos)


def _why_not(node: NodeProto, outputs: set[str]) -> str | None:
    if node.domain not in _DOMAINS:
        return f"domain {node.domain!r} is not folded"
    if node.op_type in RANDOM_OPS:
        return "a random operator"
    if any(True for _ in bodies(node)):
        return "it holds a subgraph (left alone)"
    if any(name in outputs for name in node.output):
        return "an output is a graph output"
    return None


def _evaluate(
    node: NodeProto, values: dict[str, Any], opsets: dict[str, int], read: Reader
) -> list[Any] | None:
    from wirecodec.errors import WireCodecError
    from wirecodec.reference import ReferenceEvaluator

    feeds = {name: read(values[name]) for name in node.input if name}
    try:
        evaluator = ReferenceEvaluator(node, opsets=opsets)
        return list(evaluator.run(None, feeds))
    except (WireCodecError, ArithmeticError, ValueError, TypeError, NotImplementedError):
        return None


def _is_tensor(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape") and value.dtype != object


def _names_read(graph: GraphProto) -> set[str]:
    """Every name a node of ``graph`` or of any subgraph under it reads."""
    names: set[str] = set()
    stack: list[Iterable[NodeProto]] = [graph.node]
    while stack:
        for node in stack.pop():
            names.update(node.input)
            for body in bodies(node):
                stack.append(body.node)
                names.update(value.name for value in body.output)
    return names
