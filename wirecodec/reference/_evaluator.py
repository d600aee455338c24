"""The evaluator: a model (or graph, function, node) compiled once into steps, run many times.

Compiling resolves every node to an implementation (a custom operator, a model-local
function, an operator family's function, or the schema's function body), fills in the
attribute defaults from the schema, and decodes constant tensors; ``run`` is then a
tight loop over the steps. Every failure is an :class:`~wirecodec.errors.EvaluationError`
naming the node by its path.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from types import MappingProxyType
from typing import Any

import numpy as np

from wirecodec.errors import EvaluationError
from wirecodec.protobuf.fieldpath import join
from wirecodec.reference import _annotations, _registry
from wirecodec.reference._annotations import Declared
from wirecodec.reference._errors import (
    CustomOperatorError,
    InputTypeError,
    OperatorError,
    UnknownOperatorError,
    UnsupportedSourceError,
)
from wirecodec.reference._values import (
    GRAPH,
    GRAPHS,
    attribute_value,
    default_value,
    sparse_value,
    tensor_value,
    type_name,
)
from wirecodec.reference.op_run import OpRun

_ONNX = ""


def _domain(name: str) -> str:
    return "" if name == "ai.onnx" else name


_NO_VALUES: Mapping[str, Any] = MappingProxyType({})


class NodeContext:
    """What an implementation sees of its node: attributes, opset version, subgraphs.

    ``attrs`` maps each attribute name to its value (schema defaults included);
    ``version`` is the opset version of the node's domain; ``outputs`` the node's output
    names; ``run_graph(name, *inputs)`` runs the subgraph held in attribute ``name`` with
    the node's scope as outer scope.
    """

    __slots__ = (
        "_evaluator",
        "_graphs",
        "_index",
        "_node",
        "_nodes",
        "_outer",
        "attrs",
        "env",
        "op_type",
        "opsets",
        "outputs",
        "path",
        "version",
    )

    def __init__(
        self,
        evaluator: ReferenceEvaluator,
        node: Any,
        attrs: dict[str, Any],
        version: int,
        path: str,
        opsets: dict[str, int],
        outer_attrs: dict[str, Any] | None = None,
        nodes: Any = None,
        index: int = 0,
    ) -> None:
        self.attrs = attrs
        # the attributes of the function this node is in: its subgraphs' nodes may refer to them
        self._outer = outer_attrs or {}
        self.version = version
        self.op_type = node.op_type
        self.path = path
        self.outputs = tuple(node.output)
        # Where the node is (its graph's node list, its index) rather than the node: a held
        # view of every node is thousands of objects the host's collector then walks (a full
        # collection during a first build); the list gives the node's view again when asked.
        self._nodes = nodes
        self._index = index
        self._node = node if nodes is None else None
        # the run's values (set by each run); before one, a shared empty mapping, and no dict of
        # subgraphs until one is compiled: two fewer objects per node for the host's collector
        # to track (a first build of a 1,746-node model made 3,500 of them)
        self.env: Mapping[str, Any] = _NO_VALUES
        self._graphs: dict[str, _Graph] | None = None
        self._evaluator = evaluator
        self.opsets = opsets

    @property
    def node(self) -> Any:
        """The NodeProto this context runs."""
        if self._nodes is None:
            return self._node
        return self._nodes[self._index]

    def graph(self, name: str) -> _Graph:
        """The compiled subgraph of attribute ``name``."""
        if self._graphs is None:
            self._graphs = {}
        compiled = self._graphs.get(name)
        if compiled is None:
            index = next(i for i, a in enumerate(self.node.attribute) if a.name == name)
            compiled = self._evaluator._compile_graph(
                self.attrs[name], join(join(self.path, "attribute", index), "g"), self.opsets, self._outer
            )
            self._graphs[name] = compiled
        return compiled

    def run_graph(self, name: str, *inputs: Any) -> list[Any]:
        """Run the subgraph of attribute ``name`` on ``inputs`` (outer scope: this node's)."""
        compiled = self.graph(name)
        env = {n: self.env[n] for n in compiled.free if n in self.env}
        return compiled.run(env, inputs)


class _Step:
    __slots__ = ("checked", "ctx", "impl", "inputs", "op_type", "origin", "outputs", "path")

    def __init__(
        self,
        impl: Callable[..., Any],
        ctx: NodeContext,
        inputs: tuple[str, ...],
        outputs: tuple[str, ...],
        checks: list[_Check],
    ) -> None:
        self.impl = impl
        self.ctx = ctx
        self.inputs = inputs
        self.outputs = outputs
        self.path = ctx.path
        self.op_type = ctx.op_type
        # what runs the node, for rt_nodes_: a custom operator's instance, a FunctionProto, or None
        self.origin: Any = None
        # the inputs whose type the schema constrains: (index, types accepted, types the schema
        # lists, outputs of the same type); the schema's list serves every node with all its inputs
        self.checked = checks if all(inputs) else [c for c in checks if inputs[c[0]]]


def _read_only(value: Any) -> Any:
    """An initializer's array as every run sees it: a read-only view, as onnx's, so that a
    write into an output that is the initializer changes neither later runs nor an array
    the caller handed a ModelContainer."""
    if type(value) is np.ndarray and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


class _Graph:
    """A compiled graph: named inputs and outputs, constants, steps, names from outside."""

    def __init__(
        self,
        inputs: list[str],
        outputs: list[str],
        constants: dict[str, Any],
        steps: list[_Step],
        free: set[str],
        path: str,
        verbose: int,
        owner: ReferenceEvaluator | None = None,
        proto: Any = None,
    ) -> None:
        self.inputs = inputs
        self.outputs = outputs
        self.constants = constants
        self.steps = steps
        self.free = free
        self.path = path
        self.verbose = verbose
        self.owner = owner
        self.proto = proto  # the graph compiled: its annotations are read on the first checked run
        self._declared: dict[str, Declared] | None = None

    def run(
        self, env: dict[str, Any], inputs: Sequence[Any], feeds: Mapping[str, Any] | None = None
    ) -> list[Any]:
        env.update(self.constants)
        for name, value in zip(self.inputs, inputs, strict=False):
            if name:
                env[name] = value
        if feeds:
            env.update(feeds)
        verbose = self.verbose
        bindings = self.owner._bindings if self.owner is not None else None
        if bindings is not None:  # check_shape_annotations: what enters, then each result
            self._check_all(env, bindings)
        if verbose > 2:
            for name in self.constants:
                print(f" +C {name}: {_describe(self.constants[name], verbose)}")
            for name in self.inputs:
                if name and name in env and name not in self.constants:
                    print(f" +I {name}: {_describe(env[name], verbose)}")
        for step in self.steps:
            try:
                args = [env[name] if name else None for name in step.inputs]
            except KeyError:
                raise _missing(step, env) from None
            widened = None
            for index, accepted, listed, same in step.checked:
                value = args[index]
                if type(value) is np.ndarray:
                    kind = _KINDS.get(value.dtype)
                    if kind is None:
                        kind = _KINDS[value.dtype] = type_name(value)
                else:
                    kind = type_name(value)
                if kind is not None and kind not in listed:
                    if kind not in accepted:
                        raise _refused(step, index, kind, listed)
                    # a type the schema leaves out: its outputs of the same type are checked below
                    widened = (widened or []) + [(index, kind, same)]
            ctx = step.ctx
            ctx.env = env
            if verbose > 1:
                print(f"{step.op_type}({', '.join(step.inputs)}) -> {', '.join(step.outputs)}")
                if verbose > 10:
                    print(f"-- begin {step.op_type}.run({len(args)} inputs)")
            try:
                result = step.impl(ctx, *args)
            except EvaluationError:
                raise
            except (TypeError, ValueError) as exc:  # onnx's OpRun.run re-raises these as a TypeError
                raise OperatorError(f"{step.op_type} failed: {type(exc).__name__}: {exc}", step.path) from exc
            except Exception as exc:
                raise EvaluationError(
                    f"{step.op_type} failed: {type(exc).__name__}: {exc}", step.path
                ) from exc
            if not isinstance(result, tuple):
                result = (result,)
            if widened is not None:
                _kept(step, widened, result)
            for name, value in zip(step.outputs, result, strict=False):
                if name:
                    if isinstance(value, np.generic):
                        # numpy gives a scalar for a 0-d result (np.take with a 0-d index, a
                        # ufunc or matmul on 0-d or 1-d inputs): an output is an array, as onnx's
                        value = np.asarray(value)
                    env[name] = value
            if verbose > 1:
                if verbose > 10:
                    print(f"-- done {step.op_type}.run -> {len(result)} outputs")
                if verbose > 2:
                    for name in step.outputs:
                        if name:
                            print(f" + {name}: {_describe(env[name], verbose)}")
            if bindings is not None:
                for name in step.outputs:
                    if name in self.declared:
                        _annotations.check(name, env[name], self.declared[name], bindings, step.path)
        out = []
        for name in self.outputs:
            try:
                out.append(env[name])
            except KeyError:
                raise EvaluationError(f"output {name!r} is never computed", self.path) from None
        return out

    @property
    def declared(self) -> dict[str, Declared]:
        """The graph's tensor annotations by name (inputs, outputs, value_info), read once."""
        if self._declared is None:
            graph = self.proto
            infos = (
                [*graph.input, *graph.output, *getattr(graph, "value_info", ())] if graph is not None else []
            )
            self._declared = _annotations.declarations(infos)
        return self._declared

    def _check_all(self, env: dict[str, Any], bindings: dict[str, int]) -> None:
        for name, declared in self.declared.items():
            if name in env:
                _annotations.check(name, env[name], declared, bindings, self.path)


# dtype -> its ONNX tensor type string: the input type check reads it for every input of
# every step, and numpy's dtype.name is slow to compute
_KINDS: dict[Any, str | None] = {}


def _refused(step: _Step, index: int, kind: str, listed: frozenset[str]) -> InputTypeError:
    """The error for an input of a type the operator does not take, caused by a ``TypeError``
    naming the kind of input it does not support (onnx's evaluator raises a ``TypeError``)."""
    error = InputTypeError(
        f"{step.op_type}: input {index} {step.inputs[index]!r} is {kind}, which the "
        f"operator does not take (it takes {', '.join(sorted(listed))})",
        step.path,
    )
    family = _FAMILY.get(kind)
    what = _FAMILY_NAMES[family] if family is not None else kind
    error.__cause__ = TypeError(f"{step.op_type} does not support {what} input ({kind})")
    return error


def _kept(step: _Step, widened: list[tuple[int, str, tuple[int, ...]]], result: tuple[Any, ...]) -> None:
    """An output the schema types as a widened input must come out of that input's type.
    numpy computes some operators on int4 or int2 in int8 (Abs, Max); onnx's evaluator then
    refuses the changed type. Our implementations cast back, and this guard refuses any that
    would not, rather than change an output's type silently."""
    for index, kind, same in widened:
        for out in same:
            value = result[out] if out < len(result) else None
            got = type_name(value) if isinstance(value, np.ndarray) else None
            if got is not None and got != kind:
                raise InputTypeError(
                    f"{step.op_type}: input {index} {step.inputs[index]!r} is {kind}, which the schema "
                    f"does not list; numpy computes output {out} as {got}",
                    step.path,
                )


def _missing(step: _Step, env: dict[str, Any]) -> EvaluationError:
    index, name = next((i, n) for i, n in enumerate(step.inputs) if n and n not in env)
    return EvaluationError(f"{step.op_type}: input {index} {name!r} is neither fed nor computed", step.path)


def _describe(value: Any, verbose: int) -> str:
    """A value as ``verbose`` prints it: type, shape and range (3), or the first values (4+)."""
    if isinstance(value, np.ndarray):
        head = f"{value.dtype}:{value.shape}"
        if verbose < 4:
            if value.size == 0:
                return f"{head} (empty)"
            if value.dtype.kind in "biuf":
                return f"{head} in [{value.min()}, {value.max()}]"
            return head
        items = value.ravel().tolist()
        if len(items) > 5:
            return f"{head}:{','.join(map(str, items[:5]))}..."
        return f"{head}:{items}"
    if isinstance(value, list):
        return ", ".join(_describe(item, verbose) for item in value)
    return type(value).__name__


def _own(proto: Any, kind: str) -> Any:
    """``proto`` as a wirecodec message (an onnx/protobuf message is re-decoded from its bytes)."""
    if type(proto).__module__.startswith("schema_dsl"):
        return proto
    import schema_dsl.onnx as messages
    from wirecodec.protobuf.codec import decode

    return decode(getattr(messages, kind), proto.SerializeToString())


class ReferenceEvaluator:
    """Runs an ONNX model with numpy, as ``onnx.reference.ReferenceEvaluator`` does.

    ``proto`` is a path, bytes, a ``ModelProto`` (wirecodec's or onnx's), a
    ``GraphProto``, a ``FunctionProto`` or a ``NodeProto``. ``new_ops`` lists
    :class:`~wirecodec.reference.op_run.OpRun` subclasses for custom operators
    (``op_domain`` and the class name say which). ``verbose`` prints as onnx's
    evaluator does: each node run (2), the values entering and each result with its
    range (3) or first values (4+), each operator's begin and end (11+).

    >>> from wirecodec import helper
    >>> import numpy as np
    >>> node = helper.make_node("Add", ["X", "Y"], ["Z"])
    >>> graph = helper.make_graph([node], "g", [], [])
    >>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    >>> ReferenceEvaluator(model).run(["Z"], {"X": np.array([1.0]), "Y": np.array([2.0])})
    [array([3.])]
    """

    def __init__(
        self,
        proto: Any,
        opsets: Mapping[str, int] | None = None,
        functions: Iterable[Any] | None = None,
        verbose: int = 0,
        new_ops: Iterable[type] | None = None,
        optimized: bool = True,
        check_shape_annotations: bool = False,
        **_: Any,
    ) -> None:
        self.verbose = verbose
        self.check_shape_annotations = check_shape_annotations
        # symbol -> size during a run with the annotation check on (None: the check is off)
        self._bindings: dict[str, int] | None = None
        self._large: dict[str, Any] = {}
        self._new_ops: dict[tuple[str, str], type] = {}
        for cls in new_ops or ():
            if not (isinstance(cls, type) and issubclass(cls, OpRun)):
                raise CustomOperatorError(f"new_ops takes OpRun subclasses, not {cls!r}", "new_ops")
            domain = getattr(cls, "op_domain", "")
            self._new_ops[(_domain(domain), cls.__name__)] = cls
        self._functions: dict[tuple[str, str], Any] = {}
        for fn in functions or ():
            fn = _own(fn, "FunctionProto")
            self._functions[(fn.domain, fn.name)] = fn
        graph, opset_map, path = self._source(proto, opsets)
        self.opsets = opset_map
        self.proto_ = graph
        self._graph = self._compile_graph(graph, path, opset_map, {}, top=True)

    def _source(self, proto: Any, opsets: Mapping[str, int] | None) -> tuple[Any, dict[str, int], str]:
        if isinstance(proto, (str, os.PathLike, bytes, bytearray, memoryview)):
            from wirecodec.files.load import load

            proto = load(proto if not isinstance(proto, str) else os.fspath(proto))
        name = type(proto).__name__
        opset_map = {_domain(k): v for k, v in (opsets or {}).items()}
        if name == "ModelContainer":  # onnx's model with large initializers held in memory
            proto, self._large = _container_model(proto)
            name = "ModelProto"
        if name == "ModelProto":
            proto = _own(proto, "ModelProto")
            for fn in proto.functions:
                self._functions.setdefault((fn.domain, fn.name), fn)
            for o in proto.opset_import:
                opset_map.setdefault(_domain(o.domain), int(o.version))
            opset_map.setdefault(_ONNX, _latest())
            return proto.graph, opset_map, "graph"
        if name == "GraphProto":
            opset_map.setdefault(_ONNX, _latest())
            return _own(proto, "GraphProto"), opset_map, "graph"
        if name == "FunctionProto":
            fn = _own(proto, "FunctionProto")
            for o in fn.opset_import:
                opset_map.setdefault(_domain(o.domain), int(o.version))
            opset_map.setdefault(_ONNX, _latest())
            return _FunctionGraph(fn), opset_map, "function"
        if name == "NodeProto":
            node = _own(proto, "NodeProto")
            opset_map.setdefault(_ONNX, _latest())
            return _NodeGraph(node), opset_map, "node"
        raise UnsupportedSourceError(
            f"cannot evaluate a {name}: give a model, graph, function, node, path or bytes", "source"
        )

    @property
    def input_names(self) -> list[str]:
        """The names the graph takes as inputs (initializers excluded)."""
        return [n for n in self._graph.inputs if n not in self._graph.constants]

    @property
    def output_names(self) -> list[str]:
        """The names of the graph's outputs."""
        return list(self._graph.outputs)

    def __str__(self) -> str:
        return f"{type(self).__name__}({', '.join(self.input_names)}) -> {', '.join(self.output_names)}"

    @property
    def rt_nodes_(self) -> list[Any]:
        """The main graph's nodes as onnx's ``OpRun`` objects (``wirecodec.reference._nodes``)."""
        return [self._view(step) for step in self._graph.steps]

    def _view(self, step: _Step) -> Any:
        from wirecodec import defs
        from wirecodec.reference import _nodes

        ctx = step.ctx
        params = {"verbose": self.verbose, "log": None, "opsets": dict(ctx.opsets)}
        if step.origin is not None and type(step.origin).__name__ != "FunctionProto":
            return step.origin
        if step.origin is not None:
            body = ReferenceEvaluator(
                step.origin, functions=list(self._functions.values()), opsets=ctx.opsets
            )
            return _nodes.OpFunction(ctx.node, params, body, dict(ctx.attrs))
        domain = _domain(ctx.node.domain)
        schema = defs.get_schema(ctx.op_type, ctx.version, domain)
        since = schema.since_version if schema is not None else ctx.version
        view = _nodes.operator_view(domain, ctx.op_type, since)(ctx.node, params, dict(ctx.attrs))
        for attribute in ctx.node.attribute:
            if attribute.type == GRAPH and not attribute.ref_attr_name:
                setattr(view, attribute.name, ReferenceEvaluator(attribute.g, opsets=ctx.opsets))
        view.has_linked_attribute = _nodes.linked(ctx.node)
        return view

    def run(
        self,
        output_names: Sequence[str] | None,
        feed_inputs: Mapping[str, Any],
        attributes: Mapping[str, Any] | None = None,
        intermediate: bool = False,
        check_shape_annotations: bool | None = None,
    ) -> Any:
        """Run the graph: the values of ``output_names`` (None: every output) in that order.

        With ``intermediate=True`` every computed value is returned, by name.
        ``check_shape_annotations`` (default: the constructor's) compares every annotated
        value with its declared type and shape (``ShapeAnnotationError``).
        """
        graph = self._graph
        for index, name in enumerate(graph.inputs):
            if name not in feed_inputs and name not in graph.constants and name:
                raise EvaluationError(f"input {name!r} is not fed", join(graph.path, "input", index))
        env: dict[str, Any] = {}
        wanted = list(graph.outputs) if output_names is None else list(output_names)
        saved = graph.outputs
        graph.outputs = wanted
        if self.check_shape_annotations if check_shape_annotations is None else check_shape_annotations:
            self._bindings = {}
        try:
            results = graph.run(env, [], feeds=feed_inputs)
        finally:
            graph.outputs = saved
            self._bindings = None
        if intermediate:
            return env
        return results

    # -- compiling -----------------------------------------------------------

    def _compile_graph(
        self,
        graph: Any,
        path: str,
        opsets: dict[str, int],
        outer_attrs: dict[str, Any],
        top: bool = False,
    ) -> _Graph:
        constants: dict[str, Any] = {}
        for tensor in getattr(graph, "initializer", ()):
            held = self._large.get(tensor.name)  # a ModelContainer's array held in memory
            constants[tensor.name] = _read_only(held if held is not None else tensor_value(tensor))
        for sparse in getattr(graph, "sparse_initializer", ()):
            constants[sparse.values.name] = sparse_value(sparse)
        inputs = [i.name if hasattr(i, "name") else i for i in graph.input]
        outputs = [o.name if hasattr(o, "name") else o for o in graph.output]
        steps: list[_Step] = []
        defined = set(inputs) | set(constants)
        free: set[str] = set()
        nodes = graph.node
        for index, node in enumerate(nodes):
            step = self._compile_node(node, join(path, "node", index), opsets, outer_attrs, nodes, index)
            steps.append(step)
            for name in step.inputs:
                if name and name not in defined:
                    free.add(name)
            if step.ctx._graphs:
                for sub in step.ctx._graphs.values():
                    free |= sub.free - defined
            for name in _subgraph_free(node, self, step.ctx):
                if name not in defined:
                    free.add(name)
            defined.update(step.outputs)  # ('' with them: every read of a name skips '')
        for name in outputs:
            if name not in defined:
                free.add(name)
        return _Graph(inputs, outputs, constants, steps, free, path, self.verbose, self, graph)

    def _node_attrs(self, node: Any, outer_attrs: dict[str, Any], path: str) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        if not _has_attributes(node):
            return attrs
        for attr in node.attribute:
            if attr.ref_attr_name:
                if attr.ref_attr_name in outer_attrs:
                    attrs[attr.name] = outer_attrs[attr.ref_attr_name]
                continue
            attrs[attr.name] = attribute_value(attr)
        return attrs

    def _compile_node(
        self,
        node: Any,
        path: str,
        opsets: dict[str, int],
        outer_attrs: dict[str, Any],
        nodes: Any = None,
        index: int = 0,
    ) -> _Step:
        domain = _domain(node.domain)
        version = opsets.get(domain)
        if version is None:
            version = 1 if domain else _latest()
        attrs = self._node_attrs(node, outer_attrs, path)
        # (the context holds this dict: the schema defaults filled in below are in it too)
        ctx = NodeContext(self, node, attrs, version, path, opsets, outer_attrs, nodes, index)
        # tuples: the collector stops visiting a tuple of strings, never a list; the outputs'
        # tuple is the context's, one per node
        inputs = tuple(node.input)
        outputs = ctx.outputs
        custom = self._new_ops.get((domain, node.op_type))
        expand = custom is not None and getattr(custom, "expand_", False)
        if expand:  # an OpRunExpand class: run the schema's function body, not our implementation
            custom = None
        if custom is not None:
            instance = custom(node, {"verbose": self.verbose, "log": None, "opsets": self.opsets}, attrs)
            step = _Step(_custom_impl(instance), ctx, inputs, outputs, [])
            step.origin = instance
            return step
        fn = self._functions.get((node.domain, node.op_type))
        if fn is not None:
            step = _Step(self._function_impl(fn, attrs, path, opsets), ctx, inputs, outputs, [])
            step.origin = fn
            return step
        schema, defaults, found = _plan(domain, node.op_type, version)
        for name, value in defaults:
            if name not in attrs:
                # a list default is copied: an implementation may not share it with another node
                attrs[name] = list(value) if type(value) is list else value
        impl = None if expand else found
        if impl is None and schema is not None and schema.has_function:
            body = _schema_body(domain, node.op_type, version)
            if body is not None:
                impl = self._function_impl(body, attrs, path, opsets, schema=schema)
        if impl is None and schema is not None:
            impl = self._context_impl(domain, node.op_type, schema, attrs, path, opsets, version)
        if impl is None:
            where = f"domain {domain!r}" if domain else "ai.onnx"
            raise UnknownOperatorError(f"unknown operator {node.op_type!r} ({where}, opset {version})", path)
        return _Step(impl, ctx, inputs, outputs, _type_checks(schema, len(inputs)))

    def _function_impl(
        self,
        fn: Any,
        attrs: dict[str, Any],
        path: str,
        opsets: dict[str, int],
        schema: Any = None,
    ) -> Callable[..., Any]:
        bound = dict(attrs)
        for attr in getattr(fn, "attribute_proto", ()):
            if attr.name not in bound:
                bound[attr.name] = attribute_value(attr)
        fn_opsets = dict(opsets)
        for o in fn.opset_import:
            fn_opsets[_domain(o.domain)] = int(o.version)
        body = self._compile_graph(_FunctionGraph(fn), f"{path}.{fn.name}", fn_opsets, bound)
        formal_inputs = list(fn.input)

        def call(ctx: NodeContext, *args: Any) -> tuple[Any, ...]:
            env: dict[str, Any] = {}
            padded = list(args) + [None] * (len(formal_inputs) - len(args))
            for name, value in zip(formal_inputs, padded, strict=False):
                if value is not None:
                    env[name] = value
            for name in body.free:
                if name in ctx.env and name not in env:
                    env[name] = ctx.env[name]
            return tuple(body.run(env, []))

        return call

    def _context_impl(
        self,
        domain: str,
        op_type: str,
        schema: Any,
        attrs: dict[str, Any],
        path: str,
        opsets: dict[str, int],
        version: int,
    ) -> Callable[..., Any] | None:
        """The node's function body built from its inputs' types (wirecodec.reference._bodies),
        once per combination of types, or None when its schema has no such body here."""
        if not any(v <= version for v in schema.context_dependent_function_opset_versions):
            return None
        from wirecodec.reference import _bodies

        build = _bodies.BUILDERS.get((domain, op_type))
        sized = _bodies.SIZED.get((domain, op_type))
        if build is None and sized is None:
            return None
        compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}

        def call(ctx: NodeContext, *args: Any) -> Any:
            types = tuple(_elem_type(a) for a in args)
            sizes = sized[0](args) if sized is not None else ()
            impl = compiled.get((types, sizes))
            if impl is None:
                if sized is not None:
                    fn = sized[1](attrs, types, version, sizes)
                else:
                    assert build is not None
                    fn = build(attrs, types, version)
                impl = compiled.setdefault((types, sizes), self._function_impl(fn, attrs, path, opsets))
            return impl(ctx, *args)

        return call


def _elem_type(value: Any) -> int | None:
    """The ONNX element type of a tensor value (None for anything else)."""
    if not isinstance(value, np.ndarray):
        return None
    from wirecodec import helper

    return int(helper.np_dtype_to_tensor_dtype(value.dtype))


def _container_model(container: Any) -> tuple[Any, dict[str, Any]]:
    """A ModelContainer's model and, by initializer name, the arrays it holds in memory."""
    model = container.model_proto
    held: dict[str, Any] = {}
    arrays = getattr(container, "large_initializers", {})
    for graph in container.enumerate_graph_protos():
        for tensor in graph.initializer:
            for entry in tensor.external_data:
                if entry.key == "location" and entry.value in arrays:
                    held[tensor.name] = np.asarray(arrays[entry.value])
    return model, held


class _FunctionGraph:
    """A FunctionProto seen as a graph (names for inputs and outputs, no initializers)."""

    def __init__(self, fn: Any) -> None:
        self.input = list(fn.input)
        self.output = list(fn.output)
        self.node = list(fn.node)
        self.initializer: list[Any] = []
        self.value_info = list(getattr(fn, "value_info", ()))


class _NodeGraph:
    """A single NodeProto seen as a graph."""

    def __init__(self, node: Any) -> None:
        self.input = [n for n in node.input if n]
        self.output = list(node.output)
        self.node = [node]
        self.initializer: list[Any] = []


_NOTHING: frozenset[str] = frozenset()


def _has_attributes(node: Any) -> bool:
    """Whether a node has attributes, told by its presence bits where it has them: reading
    ``attribute`` of a node without any makes and stores an empty list (most nodes of a CNN:
    Add, Relu, Concat), twice per node in a build."""
    schema = getattr(type(node), "__schema__", None)
    if schema is None:
        return bool(node.attribute)
    return bool(node._has & schema.bit["attribute"])


def _subgraph_free(node: Any, evaluator: ReferenceEvaluator, ctx: NodeContext) -> Set[str]:
    """Names a node's subgraphs read from outside themselves (compiled on the way); one shared
    empty set for the many nodes without a subgraph, not a new one each."""
    free: set[str] | None = None
    if not _has_attributes(node):
        return _NOTHING
    for attr in node.attribute:
        if attr.type == GRAPH and not attr.ref_attr_name:
            free = (free or set()) | ctx.graph(attr.name).free
        elif attr.type == GRAPHS:
            for g in attr.graphs:
                free = (free or set()) | _names_read(g)
    return _NOTHING if free is None else free


def _names_read(graph: Any) -> set[str]:
    produced = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    read: set[str] = set()
    for node in graph.node:
        read.update(n for n in node.input if n and n not in produced)
        for attr in node.attribute:
            if attr.type == GRAPH:
                read |= _names_read(attr.g) - produced
        produced.update(node.output)
    return read


@functools.cache
def _plan(domain: str, op_type: str, version: int) -> tuple[Any, tuple[tuple[str, Any], ...], Any]:
    """What every node of ``op_type`` at ``version`` shares, looked up once per process: the
    schema, its attribute defaults (decoded), and the registered implementation (or None)."""
    from wirecodec import defs

    schema = defs.get_schema(op_type, version, domain)
    defaults: tuple[tuple[str, Any], ...] = ()
    if schema is not None:
        defaults = tuple(
            (name, default_value(attribute.default_value))
            for name, attribute in schema.attributes.items()
            if attribute.default_value is not None
        )
    return schema, defaults, _registry.lookup(domain, op_type, version)


def _type_checks(schema: Any, count: int) -> list[_Check]:
    if schema is None:
        return []
    return _checks_of(schema.domain, schema.name, schema.since_version, count)


@functools.cache
def _schema_body(domain: str, name: str, version: int) -> Any:
    """The schema's function body in effect at ``version``, decoded once per process."""
    from wirecodec import defs

    schema = defs.get_schema(name, version, domain)
    return None if schema is None else schema.function_body(version)


# A checked input of a step: its index, the tensor types it accepts, the ones the schema
# lists, and the outputs the schema gives the same type as this input.
_Check = tuple[int, frozenset[str], frozenset[str], tuple[int, ...]]

# Element types by kind. An input of a type the schema does not list is still taken when the
# schema takes a type of the same kind (float8 or double where float is listed, int4 or int64
# where int32 is, uint2 where uint8 is): numpy computes it as onnx's evaluator does, which runs
# whatever numpy takes (onnx's own evaluator tests feed float8 to Add, int4 to GreaterOrEqual,
# double to QuantizeLinear). A type of another kind (an integer to Sqrt, a string to Add) stays
# an InputTypeError, as item 5 of issue 43 asks.
_FAMILIES = {
    "float": (
        "float", "double", "float16", "bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
        "float8e5m2fnuz", "float4e2m1", "float8e8m0",
    ),
    "signed": ("int8", "int16", "int32", "int64", "int4", "int2"),
    "unsigned": ("uint8", "uint16", "uint32", "uint64", "uint4", "uint2"),
}  # fmt: skip
_FAMILY_NAMES = {"float": "float", "signed": "integer", "unsigned": "unsigned integer"}
_FAMILY = {f"tensor({t})": family for family, types in _FAMILIES.items() for t in types}
_MEMBERS = {family: frozenset(f"tensor({t})" for t in types) for family, types in _FAMILIES.items()}


def _accepted(listed: frozenset[str]) -> frozenset[str]:
    """The types an input takes: those listed, and every other of a kind listed."""
    accepted = set(listed)
    for kind in listed:
        family = _FAMILY.get(kind)
        if family is not None:
            accepted |= _MEMBERS[family]
    return frozenset(accepted)


@functools.cache
def _checks_of(domain: str, name: str, since: int, count: int) -> list[_Check]:
    """The inputs whose types the schema constrains, each with the tensor types it accepts
    and those the schema lists (one list per schema and input count, shared by its nodes)."""
    from wirecodec import defs

    schema = defs.get_schema(name, since, domain)
    if schema is None:
        return []
    constraints = {c.type_param_str: c.allowed_type_strs for c in schema.type_constraints}
    checks: list[_Check] = []
    formals = list(schema.inputs)
    for index in range(count if formals else 0):
        formal = formals[min(index, len(formals) - 1)]
        if index >= len(formals) and formal.option != 2:  # not variadic: nothing to check
            continue
        allowed = constraints.get(formal.type_str, (formal.type_str,))
        tensors = {a for a in allowed if a.startswith("tensor(")}
        tensors |= {a[len("optional(") : -1] for a in allowed if a.startswith("optional(tensor(")}
        if tensors:
            same = tuple(i for i, o in enumerate(schema.outputs) if o.type_str == formal.type_str)
            checks.append((index, _accepted(frozenset(tensors)), frozenset(tensors), same))
    return checks


def _custom_impl(instance: Any) -> Callable[..., Any]:
    def call(ctx: NodeContext, *args: Any) -> Any:
        result = instance.run(*args)
        if not isinstance(result, tuple):
            raise CustomOperatorError(
                f"{type(instance).__name__}._run returned a {type(result).__name__}, not a tuple of outputs",
                ctx.path,
            )
        for index, value in enumerate(result):
            if value is not None and not isinstance(value, (np.ndarray, np.generic, list, dict)):
                raise CustomOperatorError(
                    f"{type(instance).__name__}._run returned a {type(value).__name__} as output {index}",
                    ctx.path,
                )
        return result

    return call


_LATEST: list[int] = []


def _latest() -> int:
    if not _LATEST:
        from wirecodec import defs

        _LATEST.append(defs.onnx_opset_version())
    return _LATEST[0]
