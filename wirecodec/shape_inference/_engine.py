"""The graph walk: scopes, the merge of inferred and declared types, fresh symbols, functions.

It follows onnx's order of work so that results (down to the names of new symbols) agree:
declared types first (value_info, inputs, outputs, then initializers not declared as
inputs), then each node in order: its rule, the merge of each output into what the model
declares (a new ``value_info`` entry when it declares nothing), the values of ``Constant``
nodes, and with ``data_prop`` the values of small integer outputs. A node whose inference
fails leaves its outputs as they were unless ``strict_mode`` asks for the error.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from schema_dsl import Message
from schema_dsl.containers import append_valid
from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    SparseTensorProto,
    TensorProto,
    ValueInfoProto,
)
from wirecodec._helper.args import adopt, build
from wirecodec.graphs.scopes import GraphScope, bodies, named_bodies, root_scope, walk_graphs
from wirecodec.protobuf.fieldpath import join
from wirecodec.protobuf.lazy import elements
from wirecodec.shape_inference._check_types import (
    TypeCheckError,
    check_allowed_types,
    check_arity,
    check_shared_types,
    fill_single_types,
)
from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import PROPAGATORS, RULES, SCHEMA_RULES, Rule, domain_key
from wirecodec.shape_inference._types import (
    Dim,
    InferenceError,
    MapType,
    OptionalType,
    SequenceType,
    TensorType,
    Type,
    from_proto,
    merge,
    new_type_proto,
)
from wirecodec.shape_inference.ops.data_prop import SINCE

__all__ = ["Options", "infer_model"]

_SYMBOL_PREFIX = "unk__"
_INT64 = int(TensorProto.DataType.INT64)
_FLOAT = int(TensorProto.DataType.FLOAT)
_MAX_CALL_DEPTH = 64
_M = TypeVar("_M", bound=Message)
_BUILT_IN_DOMAINS = frozenset({"", "ai.onnx.ml", "ai.onnx.preview.training", "ai.onnx.preview"})


@dataclass(frozen=True)
class Options:
    """What the caller asked for (onnx's ``ShapeInferenceOptions``)."""

    check_type: bool = False
    strict_mode: bool = False
    data_prop: bool = False


@dataclass
class _Symbols:
    """The model's symbol table: every ``dim_param`` in use, and the next fresh one."""

    used: set[str] = field(default_factory=set)
    counter: int = 0
    # The declared type of each value info add_graph read, for the scope that declares it
    # (id -> the info, kept so that its id stays its own, and its type)
    declared: dict[int, tuple[ValueInfoProto, Type | None]] = field(default_factory=dict)

    def fresh(self) -> str:
        while True:
            name = f"{_SYMBOL_PREFIX}{self.counter}"
            self.counter += 1
            if name not in self.used:
                self.used.add(name)
                return name

    def add_type(self, t: Type | None) -> None:
        if isinstance(t, TensorType):
            self.used.update(d for d in t.shape or () if isinstance(d, str))
        elif isinstance(t, (SequenceType, OptionalType)):
            self.add_type(t.elem)
        elif isinstance(t, MapType):
            self.add_type(t.value)

    def add_graph(self, graph: GraphProto) -> None:
        """The symbols ``graph`` and its bodies declare; as onnx's table, not those of a body
        held in a ``graphs`` attribute (nor of the bodies inside one)."""
        self._add_infos(graph)
        if not any(map(_holds_bodies, graph.node)):  # (a graph of one node: no scope walk)
            return
        for scope in walk_graphs(graph):
            if scope.depth and not scope.in_graphs:
                self._add_infos(scope.graph)

    def _add_infos(self, graph: GraphProto) -> None:
        for info in (
            *_listed(graph, "input", ValueInfoProto),
            *_listed(graph, "output", ValueInfoProto),
            *_listed(graph, "value_info", ValueInfoProto),
        ):
            if info.HasField("type"):
                t = from_proto(info.type)
                self.declared[id(info)] = (info, t)
                self.add_type(t)

    def materialize(self, t: Type) -> Type:
        """``t`` with each unknown axis given a fresh symbol, as onnx names them."""
        if isinstance(t, TensorType):
            if t.shape is None or all(d is not None for d in t.shape):
                return t
            return TensorType(t.elem, tuple(self.fresh() if d is None else d for d in t.shape), t.sparse)
        if isinstance(t, (SequenceType, OptionalType)):
            return type(t)(self.materialize(t.elem)) if t.elem is not None else t
        if isinstance(t, MapType) and t.value is not None:
            return MapType(t.key, self.materialize(t.value))
        return t


def _listed(message: Message, name: str, of: type[_M]) -> Sequence[_M]:
    """The elements of repeated field ``name`` (of class ``of``), read without storing an
    empty list where the field is unset (wirecodec.protobuf.lazy.elements): a per-node loop
    infers a one-node model whose every other list is unset."""
    return cast("Sequence[_M]", elements(message, name))


def _holds_bodies(node: NodeProto) -> bool:
    """Whether an attribute of ``node`` holds a graph (``elements``: reading ``graphs`` of
    an attribute that has none would store an empty list)."""
    attributes = elements(node, "attribute")
    return bool(attributes) and any(a.HasField("g") or elements(a, "graphs") for a in attributes)


def _node_label(node: NodeProto) -> str:
    return f'{node.op_type} "{node.name}"' if node.name else node.op_type


def _initializer_type(tensor: TensorProto) -> TensorType:
    return TensorType(tensor.data_type, tuple(int(d) for d in tensor.dims))


class _Model:
    """What every scope of one run shares: options, symbols, functions, errors."""

    def __init__(self, model: ModelProto, options: Options) -> None:
        self.options = options
        self.ir_version = model.ir_version
        self.symbols = _Symbols()
        self.functions: dict[tuple[str, str, str], FunctionProto] = {
            (f.domain, f.name, f.overload): f for f in _listed(model, "functions", FunctionProto)
        }
        self.errors: list[str] = []
        self.depth = 0


class _Inference:
    """One graph or one function call under inference (onnx's ShapeInferenceImplBase).

    A graph comes with its scope from the one scope walk (``where``: its path, and the
    scopes of its nodes' bodies); a function call's body has none (``where`` None), its
    ``path`` being a label (the call's node path and the function's name).
    """

    def __init__(
        self,
        shared: _Model,
        opsets: dict[str, int],
        outer_types: dict[str, Type],
        symbols_data: dict[str, tuple[Dim, ...]],
        graph: GraphProto | None,
        where: GraphScope | str,
    ) -> None:
        self.shared = shared
        self.where = where if isinstance(where, GraphScope) else None
        self.path = where.path if isinstance(where, GraphScope) else where
        self.node_path = self.path  # the field path of the node under inference
        self._current: NodeProto | None = None
        self._index = -1
        self._held: dict[int, list[GraphScope]] | None = None  # the bodies' scopes, by holder
        self.opsets = opsets
        self.types: dict[str, Type] = dict(outer_types)
        self.slots: dict[str, ValueInfoProto] = {}
        self.untyped_outputs: dict[str, ValueInfoProto] = {}
        self.empty_typed: dict[str, ValueInfoProto] = {}
        self.data: dict[str, Any] = {}
        self.symbol_data = symbols_data
        self.graph = graph
        self.unbound: set[str] = set()
        self.has_unsupported = False
        # (where, what): the field path and label of each node whose inference failed
        self.errors: list[tuple[str, str]] = []
        # in a function's body (and the graphs its nodes hold): the call's attributes, which
        # the body's attribute references (``to: int = @target``) read
        self.bindings: dict[str, AttributeProto] | None = None

    # -- declared types ------------------------------------------------------------------
    def declare(self, info: ValueInfoProto) -> None:
        known = self.shared.symbols.declared.pop(id(info), None)
        if known is not None and known[0] is info:
            t = known[1]
        else:
            t = from_proto(info.type) if info.HasField("type") else None
        if t is not None:
            self.types[info.name] = t
            self.slots[info.name] = info
        elif info.HasField("type"):
            # a type that is there but says nothing (``type {}``): onnx fills it in place
            # and adds no value_info entry (one with no type at all gets both)
            self.empty_typed.setdefault(info.name, info)
        else:
            self.untyped_outputs[info.name] = info

    def run_graph(self, graph: GraphProto) -> None:
        # (``elements``: reading an unset list would store an empty one, on every one-node
        # model of a per-node loop)
        for info in _listed(graph, "value_info", ValueInfoProto):
            self.declare(info)
        for info in _listed(graph, "input", ValueInfoProto):
            self.declare(info)
        for info in _listed(graph, "output", ValueInfoProto):
            self.declare(info)
        for tensor in _listed(graph, "initializer", TensorProto):
            self.data[tensor.name] = tensor
            declared = self.types.get(tensor.name)
            if declared is not None:
                try:
                    merge(_initializer_type(tensor), declared, tensor.name)
                except InferenceError as exc:
                    raise InferenceError(
                        f"initializer {tensor.name!r} disagrees with its input: {exc.reason}"
                    ) from None
            elif self.shared.ir_version >= 4:
                self.types[tensor.name] = _initializer_type(tensor)
        for sparse in _listed(graph, "sparse_initializer", SparseTensorProto):
            name = sparse.values.name
            if name not in self.types and self.shared.ir_version >= 4:
                self.types[name] = TensorType(
                    sparse.values.data_type, tuple(int(d) for d in sparse.dims), True
                )
        for i, node in enumerate(graph.node):
            self.node_path = join(self.path, "node", i)
            self._index = i
            self.run_node(node)

    # -- one node ------------------------------------------------------------------------
    def _opset(self, node: NodeProto) -> int:
        version = self.opsets.get(node.domain)
        if version is None and node.domain == "":
            version = self.opsets.get("ai.onnx")
        if version is None:
            raise InferenceError(
                f"cannot infer types for node {_node_label(node)}: no opset import for domain {node.domain!r}"
            )
        return version

    def run_node(self, node: NodeProto, attributes: dict[str, AttributeProto] | None = None) -> None:
        self._current = node
        opset = self._opset(node)
        if attributes is not None:
            attrs = attributes
        elif self.bindings is not None:
            attrs = _bind_attributes(node, self.bindings)
        else:
            attrs = {a.name: a for a in node.attribute}
        ctx = NodeContext(
            node,
            opset,
            [self.types.get(name) if name else None for name in node.input],
            [self.data.get(name) if name else None for name in node.input],
            [self.symbol_data.get(name) if name else None for name in node.input],
            attrs,
            self.infer_subgraph,
            self.opsets,
            [bool(name) and name not in self.unbound for name in node.input],
        )
        key = (domain_key(node.domain), node.op_type)
        where = self.node_path
        check_type = self.shared.options.check_type
        try:
            if check_type:
                check_arity(key[0], opset, ctx)
            fn = RULES.get(key)
            function = self.shared.functions.get((node.domain, node.op_type, node.overload))
            registered = _registered_rule(key, opset) if SCHEMA_RULES else None
            if registered is not None:
                registered(ctx)
            elif fn is not None and key[0] in (
                "",
                "ai.onnx.ml",
                "ai.onnx.preview.training",
                "ai.onnx.preview",
            ):
                fn(ctx)
            elif function is not None:
                self.call(node, function, ctx)
            else:
                self.has_unsupported = True
                if not check_type:
                    return
                # no rule, but a schema may still refuse the inputs' types, and name the only
                # type an output can have (onnx sets it before it looks for inference)
                check_allowed_types(key[0], opset, ctx)
            if check_type:
                fill_single_types(key[0], opset, ctx)
                check_shared_types(key, ctx)
                check_allowed_types(key[0], opset, ctx)
            for i, name in enumerate(node.output):
                inferred = ctx.outputs[i]
                if name and inferred is not None:
                    self.update(name, inferred)
            self.record_constant(node)
            if self.shared.options.data_prop:
                prop = PROPAGATORS.get(key)
                if (
                    prop is not None
                    and node.output
                    and node.output[0]
                    and opset >= SINCE.get(node.op_type, 1)
                ):
                    values = prop(ctx)
                    if values is not None:
                        self.symbol_data[node.output[0]] = values
        except TypeCheckError as exc:
            # Not a node whose outputs could not be inferred: its types are wrong (onnx ends
            # the inference here, strict or not). Named once, by the innermost node.
            if exc.node:
                raise
            raise TypeCheckError(
                f"({_node_label(node)}): {exc.reason}", f"{where} ({_node_label(node)})"
            ) from None
        except InferenceError as exc:
            if not self.has_unsupported:
                self.errors.append(
                    (exc.node or f"{where} ({_node_label(node)})", f"({_node_label(node)}): {exc.reason}")
                )

    def update(self, name: str, inferred: Type) -> None:
        inferred = self.shared.symbols.materialize(inferred)
        existing = self.types.get(name)
        if existing is not None:
            merged = merge(inferred, existing, name)
            self.types[name] = merged
            slot = self.slots.get(name)
            if slot is not None and merged != existing:
                _rewrite(slot, merged)
            return
        self.types[name] = inferred
        empty = self.empty_typed.pop(name, None)
        if empty is not None:
            _rewrite(empty, inferred)
            self.slots[name] = empty
            self.untyped_outputs.pop(name, None)
        elif self.graph is not None:
            info = build(ValueInfoProto, name=name, type=new_type_proto(inferred))
            append_valid(self.graph.value_info, info)  # (built here: appended, not copied)
            self.slots[name] = info
            output = self.untyped_outputs.pop(name, None)
            if output is not None:
                _rewrite(output, inferred)

    def record_constant(self, node: NodeProto) -> None:
        """A Constant's value, kept as a tensor (read through ``tensor_values`` where a rule
        needs it, so that a process without numpy infers what it can instead of failing)."""
        if node.op_type != "Constant" or domain_key(node.domain) != "" or len(node.output) != 1:
            return
        name = node.output[0]
        for attr in node.attribute:
            if attr.name == "value":
                if attr.type == AttributeProto.AttributeType.TENSOR and attr.HasField("t"):
                    self.data[name] = attr.t
            elif attr.type == AttributeProto.AttributeType.INTS:
                self.data[name] = TensorProto(data_type=_INT64, dims=[len(attr.ints)], int64_data=attr.ints)
            elif attr.type == AttributeProto.AttributeType.INT:
                self.data[name] = TensorProto(data_type=_INT64, int64_data=[attr.i])
            elif attr.type == AttributeProto.AttributeType.FLOATS:
                floats = attr.floats
                self.data[name] = TensorProto(data_type=_FLOAT, dims=[len(floats)], float_data=floats)
            elif attr.type == AttributeProto.AttributeType.FLOAT:
                self.data[name] = TensorProto(data_type=_FLOAT, float_data=[attr.f])

    # -- subgraphs and calls -------------------------------------------------------------
    def infer_subgraph(self, graph: GraphProto, input_types: Sequence[Type | None]) -> list[Type | None]:
        """Infer ``graph`` (a body of this node) in place; the types of its outputs."""
        if self.shared.ir_version >= 4 and len(graph.input) != len(input_types):
            raise InferenceError(f"graph has {len(graph.input)} inputs but {len(input_types)} were provided")
        for info, given in zip(graph.input, input_types, strict=False):
            if given is None:
                continue
            declared = from_proto(info.type) if info.HasField("type") else None
            merged = self.shared.symbols.materialize(merge(given, declared, info.name))
            _rewrite(info, merged)
            self.shared.symbols.declared.pop(id(info), None)  # (what add_graph read is old)
        inner = _Inference(
            self.shared, self.opsets, self.types, self.symbol_data, graph, self._body_scope(graph)
        )
        inner.bindings = self.bindings
        inner.run_graph(graph)
        inner.finish()
        return [from_proto(o.type) if o.HasField("type") else None for o in graph.output]

    def _body_scope(self, graph: GraphProto) -> GraphScope | str:
        """The scope of ``graph``, a body of the node under inference, from the scope walk
        (in a function's body, which the walk does not reach, the body's path)."""
        if self.where is not None:
            if self._held is None:  # asked once per graph: a long graph is walked once
                self._held = {}
                for scope in self.where.inner():
                    self._held.setdefault(scope.index, []).append(scope)
            for scope in self._held.get(self._index, ()):
                if scope.graph is graph:
                    return scope
            return self.node_path  # not a body of this node: its findings go to the node
        node = self._current
        if node is not None:
            for _, path, body in named_bodies(node, self.node_path):
                if body is graph:
                    return path
        return self.node_path

    def call(self, node: NodeProto, function: FunctionProto, ctx: NodeContext) -> None:
        """Infer a call of a model-local function through its body."""
        shared = self.shared
        if shared.depth >= _MAX_CALL_DEPTH:
            raise InferenceError(f"function {function.name!r}: calls nested too deeply (a cycle?)")
        bound_data: dict[str, tuple[Dim, ...]] = {}
        for actual, formal in zip(node.input, function.input, strict=False):
            if actual and actual in self.symbol_data:
                bound_data[formal] = self.symbol_data[actual]
        body = _Inference(
            shared,
            {o.domain: o.version for o in function.opset_import},
            {},
            bound_data,
            None,
            f"{self.node_path} (function {function.domain}:{function.name})",
        )
        for i, formal in enumerate(function.input):
            if ctx.has_input(i):
                t = ctx.input_type(i)
                if t is not None:
                    body.types[formal] = t
                    if isinstance(t, TensorType) and i < len(node.input) and node.input[i] in self.data:
                        body.data[formal] = self.data[node.input[i]]
            else:
                body.unbound.add(formal)
        caller_attrs = {a.name: a for a in node.attribute}
        bindings: dict[str, AttributeProto] = {
            n: caller_attrs[n] for n in function.attribute if n in caller_attrs
        }
        for default in function.attribute_proto:
            bindings[default.name] = caller_attrs.get(default.name, default)
        body.bindings = bindings
        shared.depth += 1
        try:
            for i, inner in enumerate(function.node):
                body.node_path = join(body.path, "node", i)
                if _holds_bodies(inner):
                    # inference writes the types of a body's values into it: each call
                    # infers its own copy, as onnx infers a copy of the function per call
                    inner = copy.copy(inner)
                body.run_node(inner, _bind_attributes(inner, bindings))
        finally:
            shared.depth -= 1
        body.finish()
        for i, formal in enumerate(function.output):
            if formal in body.types:
                if i >= len(node.output):  # (onnx ends the inference here, strict or not)
                    raise TypeCheckError(
                        f"Output {i} is out of bounds: function {function.name!r} has "
                        f"{len(function.output)} outputs, the call {len(node.output)}"
                    )
                ctx.set(i, body.types[formal])
        for actual, formal in zip(node.output, function.output, strict=False):
            if actual and formal in bound_data:
                self.symbol_data[actual] = bound_data[formal]

    def finish(self) -> None:
        if self.errors and self.shared.options.strict_mode:
            raise InferenceError(
                "inference error(s): " + "; ".join(e for _, e in self.errors), self.errors[0][0]
            )


def _calls(nodes: Sequence[NodeProto]) -> Iterator[tuple[str, str, str]]:
    """The (domain, op_type, overload) of every node in ``nodes`` and in their bodies."""
    for node in nodes:
        yield (node.domain, node.op_type, node.overload)
        for body in bodies(node):
            yield from _calls(body.node)


def _refuse_recursion(model: ModelProto) -> None:
    """Raise :class:`~wirecodec.CheckError` (onnx's ``ValidationError``) when a model-local
    function calls itself, directly or through others, as onnx refuses such a model before
    inferring anything."""
    keys = [(f.domain, f.name, f.overload) for f in model.functions]
    index = {key: i for i, key in enumerate(keys)}
    callees = [sorted({index[c] for c in _calls(f.node) if c in index}) for f in model.functions]
    state = [0] * len(keys)  # 0 not seen, 1 on the current path, 2 done
    for start in range(len(keys)):
        if state[start]:
            continue
        path = [start]
        todo = [iter(callees[start])]
        state[start] = 1
        while todo:
            nxt = next(todo[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                todo.pop()
            elif state[nxt] == 1:
                from wirecodec.checker.violation import Violation
                from wirecodec.errors import CheckError

                cycle = [*path[path.index(nxt) :], nxt]
                shown = " -> ".join(f"{keys[i][0]}::{keys[i][1]}" for i in cycle)
                raise CheckError(
                    [
                        Violation(
                            f"functions[{nxt}]",
                            "function-recursion",
                            f"Cycle detected in model-local function references: {shown}. "
                            "Model-local functions must not be recursive.",
                        )
                    ]
                )
            elif not state[nxt]:
                state[nxt] = 1
                path.append(nxt)
                todo.append(iter(callees[nxt]))


def _registered_rule(key: tuple[str, str], opset: int) -> Rule | None:
    """The inference rule of a schema registered at run time, if the schema in effect at
    ``opset`` is one (a built-in schema has none here)."""
    from wirecodec.defs import get_schema

    schema = get_schema(key[1], opset, key[0])
    return SCHEMA_RULES.get((key[0], key[1], schema.since_version)) if schema is not None else None


def _rewrite(info: ValueInfoProto, t: Type) -> None:
    """Replace ``info``'s type by ``t`` (its denotation kept, as onnx merges in place)."""
    proto = new_type_proto(t)
    if info.HasField("type") and info.type.denotation:
        proto.denotation = info.type.denotation
    adopt(info, "type", proto)


def _bind_attributes(node: NodeProto, bindings: dict[str, AttributeProto]) -> dict[str, AttributeProto]:
    """A function body node's attributes, each reference replaced by the caller's value."""
    attrs: dict[str, AttributeProto] = {}
    for attr in node.attribute:
        if attr.ref_attr_name:
            bound = bindings.get(attr.ref_attr_name)
            if bound is not None:
                attrs[attr.name] = bound
        else:
            attrs[attr.name] = attr
    return attrs


def infer_model(model: ModelProto, options: Options) -> None:
    """Infer ``model``'s types in place (its graph's value_info and outputs)."""
    import wirecodec.shape_inference.ops  # noqa: F401  (registers every family's rules)

    if _listed(model, "functions", FunctionProto):
        _refuse_recursion(model)
    shared = _Model(model, options)
    shared.symbols.add_graph(model.graph)
    opsets = {o.domain: o.version for o in model.opset_import}
    scope = _Inference(shared, opsets, {}, {}, model.graph, root_scope(model.graph))
    scope.run_graph(model.graph)
    scope.finish()
