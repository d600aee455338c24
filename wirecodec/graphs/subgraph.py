"""Which nodes, tensors and value_info a cut of a graph keeps: onnx.utils.Extractor's selection.

The rules are onnx's (``onnx.utils.Extractor``), so a model cut here serializes to the
same bytes as one cut by onnx wherever onnx's result is a valid model:

- the new inputs and outputs are the graph's ``ValueInfoProto`` of those names, looked
  up among ``value_info``, then ``input``, then ``output`` (a later list wins a name,
  keeping the first list's position);
- the kept nodes are those reached walking back from the outputs, stopping at the new
  inputs, in their original order;
- initializers and value_info are those whose names the kept nodes read or write, in
  the original order; model-local functions the kept nodes call (directly or through
  other functions), in the order they are first met;
- the model keeps ``ir_version`` and ``opset_import`` and names itself
  ``"Extracted from {<graph name>}"``, produced by ``onnx.utils.extract_model``.

One difference: a node's If/Loop/Scan bodies may read tensors of the enclosing graph
without naming them as inputs. onnx ignores those reads (its result then refers to
tensors it dropped, and does not check); here they count as inputs of the node, so the
initializers and the nodes that make them are kept (value_info stays onnx's selection).
And where onnx refuses a graph with sparse initializers or quantization annotations,
the cut keeps those its nodes use.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from schema_dsl.onnx import (
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    SparseTensorProto,
    TensorAnnotation,
    TensorProto,
    ValueInfoProto,
)
from wirecodec.checker import check
from wirecodec.errors import GraphError
from wirecodec.graphs.scopes import root_scope
from wirecodec.helper import make_graph, make_model
from wirecodec.protobuf.fieldpath import join

__all__ = ["Extractor", "extract"]

PRODUCER = "onnx.utils.extract_model"
"""The ``producer_name`` of an extracted model (onnx's, so the bytes match)."""


def _implicit_inputs(graph: GraphProto) -> dict[int, list[str]]:
    """By node index: the tensors of ``graph`` that the node's bodies read without naming
    them as inputs (what each body's scope reads from outside, from the one scope walk)."""
    reads: dict[int, set[str]] = {}
    for scope in root_scope(graph).inner():
        reads.setdefault(scope.index, set()).update(scope.reads())
    return {index: sorted(names) for index, names in reads.items()}


def _by_name(items: Iterable[ValueInfoProto]) -> dict[str, ValueInfoProto]:
    return {item.name: item for item in items}


@dataclass
class _Kept:
    initializer: list[TensorProto]
    value_info: list[ValueInfoProto]
    sparse_initializer: list[SparseTensorProto]
    quantization_annotation: list[TensorAnnotation]


class Extractor:
    """A graph's cut between tensor names, as ``onnx.utils.Extractor`` makes it.

    >>> from wirecodec.examples.build_mlp import build
    >>> from wirecodec.helper import make_tensor_value_info
    >>> model = build()
    >>> [(node.op_type, node.output[0]) for node in model.graph.node]
    [('Gemm', 'h'), ('Relu', 'a'), ('Gemm', 'y')]
    >>> model.graph.value_info.append(make_tensor_value_info("a", TensorProto.FLOAT, ["N", 16]))
    >>> cut = Extractor(model).extract_model(["x"], ["a"])
    >>> [node.op_type for node in cut.graph.node], cut.producer_name
    (['Gemm', 'Relu'], 'onnx.utils.extract_model')
    """

    def __init__(self, model: ModelProto) -> None:
        self.model = model
        self.graph = model.graph
        self.initializers: dict[str, TensorProto] = {t.name: t for t in self.graph.initializer}
        self.value_infos = _by_name(self.graph.value_info)
        self.value_infos.update(_by_name(self.graph.input))
        self.value_infos.update(_by_name(self.graph.output))
        self.nodes = list(self.graph.node)
        self.producer: dict[str, int] = {}
        self.reads: list[list[str]] = []
        implicit = _implicit_inputs(self.graph)
        for index, node in enumerate(self.nodes):
            for name in node.output:
                if not name:
                    continue
                if name in self.producer:
                    first = self.producer[name]
                    where = join(join("graph", "node", index), "output")
                    raise GraphError(
                        f"{where}: {name!r} is already the output of {join('graph', 'node', first)}"
                    )
                self.producer[name] = index
            self.reads.append([name for name in node.input if name] + implicit.get(index, []))

    def _value_infos(self, names: Sequence[str], role: str) -> list[ValueInfoProto]:
        missing = [name for name in names if name not in self.value_infos]
        if missing:
            known = set(self.producer) | set(self.initializers)
            untyped = [name for name in missing if name in known]
            unknown = [name for name in missing if name not in known]
            parts = []
            if unknown:
                parts.append(f"{', '.join(map(repr, unknown))} not found in the graph")
                nodes = {node.name: node for node in self.nodes if node.name}
                parts += [
                    f"{name!r} names a node: its outputs are {', '.join(map(repr, nodes[name].output))}"
                    for name in unknown
                    if name in nodes
                ]
            if untyped:
                parts.append(
                    f"{', '.join(map(repr, untyped))} without a type: the graph has no value_info for "
                    "them (wirecodec has no operator schemas to infer one: run shape inference on "
                    "the model first)"
                )
            raise GraphError(f"{role}: " + "; ".join(parts))
        return [self.value_infos[name] for name in names]

    def _reachable(self, input_names: Sequence[str], output_names: Sequence[str]) -> list[int]:
        stop = set(input_names)
        reached: set[int] = set()
        stack = list(output_names)
        while stack:
            name = stack.pop()
            if name in stop:
                continue
            index = self.producer.get(name)
            if index is not None and index not in reached:
                reached.add(index)
                stack.extend(self.reads[index])
        return sorted(reached)

    def _functions(self, nodes: list[NodeProto]) -> list[FunctionProto]:
        waiting = {(f.name, f.domain): f for f in self.model.functions}
        found: list[FunctionProto] = []
        queue = deque(nodes)
        while queue:
            node = queue.popleft()
            function = waiting.pop((node.op_type, node.domain), None)
            if function is not None:
                found.append(function)
                queue.extend(function.node)
        return found

    def _tensors(self, indices: list[int]) -> _Kept:
        named: set[str] = set()  # what the kept nodes name as inputs and outputs
        implicit: set[str] = set()  # what their bodies read from this graph
        for index in indices:
            node = self.nodes[index]
            named.update(node.input)
            named.update(node.output)
            implicit.update(self.reads[index])
        used = named | implicit
        # value_info exactly as onnx selects it (an outer name already has its entry when
        # onnx's result is valid); initializers read by bodies too (without them it is not).
        return _Kept(
            initializer=[tensor for name, tensor in self.initializers.items() if name in used],
            value_info=[info for name, info in self.value_infos.items() if name in named],
            # onnx refuses graphs with these two; keeping what the cut uses is the obvious meaning.
            sparse_initializer=[s for s in self.graph.sparse_initializer if s.values.name in used],
            quantization_annotation=[q for q in self.graph.quantization_annotation if q.tensor_name in used],
        )

    def undefined(self, model: ModelProto) -> list[str]:
        """What the cut ``model`` reads but nothing in it defines, as ``graph.node[i]: 'name'``."""
        graph = model.graph
        defined = {value.name for value in graph.input} | {tensor.name for tensor in graph.initializer}
        defined.update(sparse.values.name for sparse in graph.sparse_initializer)
        problems = []
        implicit = _implicit_inputs(graph)
        for index, node in enumerate(graph.node):
            for name in [name for name in node.input if name] + implicit.get(index, []):
                if name not in defined:
                    problems.append(f"{join('graph', 'node', index)} ({node.op_type}) reads {name!r}")
            defined.update(node.output)
        return problems

    def extract_model(self, input_names: Sequence[str], output_names: Sequence[str]) -> ModelProto:
        """The model computing ``output_names`` from ``input_names`` (see the module documentation)."""
        inputs = self._value_infos(input_names, "input_names")
        outputs = self._value_infos(output_names, "output_names")
        indices = self._reachable(input_names, output_names)
        nodes = [self.nodes[index] for index in indices]
        kept = self._tensors(indices)
        graph = make_graph(
            nodes,
            "Extracted from {" + self.graph.name + "}",
            inputs,
            outputs,
            initializer=kept.initializer,
            value_info=kept.value_info,
            sparse_initializer=kept.sparse_initializer,
        )
        graph.quantization_annotation = kept.quantization_annotation
        return make_model(
            graph,
            ir_version=self.model.ir_version,
            opset_imports=list(self.model.opset_import),
            producer_name=PRODUCER,
            functions=self._functions(nodes),
        )


def _names(names: Sequence[str], what: str) -> list[str]:
    if isinstance(names, str):
        raise GraphError(f"{what}: a list of tensor names is expected, not the string {names!r}")
    names = list(names)
    if not names:
        raise GraphError(f"{what}: no tensor names given")
    repeated = [name for name, count in Counter(names).items() if count > 1]
    if repeated:
        raise GraphError(f"{what}: {', '.join(map(repr, repeated))} given more than once")
    return names


def extract(
    model: ModelProto, input_names: Sequence[str], output_names: Sequence[str], *, check_model: bool = True
) -> ModelProto:
    """``model``'s part computing ``output_names`` from ``input_names``, as a new model.

    The names are checked as ``onnx.utils.extract_model`` checks them (given, not
    repeated, known to the graph); with ``check_model`` the source and the result are
    checked with :func:`wirecodec.check`, and a cut that leaves a node's input undefined
    is a :class:`~wirecodec.GraphError` naming the node and the tensor.
    """
    inputs = _names(input_names, "input_names")
    outputs = _names(output_names, "output_names")
    if check_model:
        check(model)
    extractor = Extractor(model)
    extracted = extractor.extract_model(inputs, outputs)
    if check_model:
        undefined = extractor.undefined(extracted)
        if undefined:
            raise GraphError(
                "the cut leaves inputs undefined (add them to input_names): " + "; ".join(undefined)
            )
        check(extracted)
    return extracted
