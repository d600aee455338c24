"""The walk: one opset step at a time, every node of every graph, an adapter where the
operator's schema changes at that step."""

from __future__ import annotations

from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, ValueInfoProto
from wirecodec.errors import ConvertError
from wirecodec.protobuf.fieldpath import join
from wirecodec.version_converter._graph import Scope, drop_boundary_types, graph_attributes

__all__ = ["convert_version"]

_DEFAULT_DOMAINS = ("", "ai.onnx")
# Kept as it is: an experimental operator without schema (as onnx's converter keeps it).
_KEPT = frozenset({"ConstantFill"})


def convert_version(model: ModelProto, target_version: int) -> ModelProto:
    """A copy of ``model`` with its default-domain (``ai.onnx``) opset changed to
    ``target_version``, each node adapted where its operator changed between the two.

    As onnx's ``version_converter.convert_version``: the result also holds the types
    shape inference gives (onnx's converter infers them first), and a model it converts
    comes out with the same bytes. Weights are not read: only an adapter that turns an
    attribute into a constant input (or back) makes or reads a (small) tensor.

    Raises :class:`~wirecodec.errors.ConvertError`, naming the node and what to do, when
    an operator cannot be converted; ``model`` is never changed.

    >>> from wirecodec import helper
    >>> from schema_dsl.onnx import TensorProto
    >>> graph = helper.make_graph([helper.make_node("Unsqueeze", ["x"], ["y"], axes=[0])], "g",
    ...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
    ...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    >>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)])
    >>> converted = convert_version(model, 13)
    >>> [(n.op_type, list(n.input)) for n in converted.graph.node]
    [('Constant', []), ('Unsqueeze', ['x', '_v_4'])]
    """
    from wirecodec import defs
    from wirecodec.shape_inference import infer_shapes

    if isinstance(target_version, bool) or not isinstance(target_version, int):
        raise ConvertError(f"the target opset version must be an int, not {type(target_version).__name__}")
    entry = next((i for i, o in enumerate(model.opset_import) if o.domain in _DEFAULT_DOMAINS), None)
    if entry is None:
        raise ConvertError(
            "the model imports no default-domain (ai.onnx) opset, so it has no version to convert from; "
            "add opset_import {domain: '', version: N}",
            "opset_import",
        )
    initial = model.opset_import[entry].version
    known = defs.domain_version_range("")
    low, high = known if known is not None else (1, defs.onnx_opset_version())
    for what, version in (("model's", initial), ("target", target_version)):
        if not low <= version <= high:
            raise ConvertError(
                f"the {what} opset version {version} is not an ai.onnx version (known: {low} to {high})",
                f"opset_import[{entry}]" if what == "model's" else "",
            )
    try:
        result = infer_shapes(model)
    except ConvertError:
        raise
    except Exception as exc:  # what shape inference refuses, onnx's converter refuses too
        from wirecodec.errors import WireCodecError

        if not isinstance(exc, WireCodecError):
            raise
        raise ConvertError(f"shape inference, which conversion runs first, failed: {exc}") from None
    # on the copy, whose nodes are decoded already (the model given may be a lazy view of
    # its file, which a walk of its own would decode a second time)
    _check_defined(result.graph, "graph", frozenset())
    _walk(Scope(result.graph, "graph"), initial, target_version)
    result.opset_import[entry].version = target_version
    drop_boundary_types(result.graph)
    for at, function in enumerate(result.functions):
        _convert_function(function, f"functions[{at}]", target_version, (low, high))
    return result


def _check_defined(graph: GraphProto, path: str, outer: frozenset[str]) -> None:
    """Refuse, as onnx's converter does when it builds its graph, a value read before
    anything defines it (an unknown node input, a graph output nothing makes)."""
    defined = set(outer)
    defined.update(info.name for info in graph.input)
    defined.update(tensor.name for tensor in graph.initializer)
    defined.update(sparse.values.name for sparse in graph.sparse_initializer)
    for index, node in enumerate(graph.node):
        for slot, name in enumerate(node.input):
            if name and name not in defined:
                raise ConvertError(
                    f"{node.op_type} reads {name!r}, which is neither an input, an initializer nor "
                    "the output of an earlier node; define it, or sort the nodes",
                    join(join(path, "node", index), "input", slot),
                )
        seen: frozenset[str] | None = None  # what a body sees: made only for a node that has one
        for at, attribute in enumerate(node.attribute):
            where = join(join(path, "node", index), "attribute", at)
            if attribute.HasField("g"):
                seen = frozenset(defined) if seen is None else seen
                _check_defined(attribute.g, join(where, "g"), seen)
            for which, sub in enumerate(attribute.graphs):
                seen = frozenset(defined) if seen is None else seen
                _check_defined(sub, join(where, "graphs", which), seen)
        defined.update(name for name in node.output if name)
    for at, info in enumerate(graph.output):
        if info.name not in defined:
            raise ConvertError(
                f"the graph returns {info.name!r}, which nothing defines; make it, or drop the output",
                join(path, "output", at),
            )


def _walk(top: Scope, initial: int, target: int) -> None:
    """Step ``top`` (and the bodies in it) one opset version at a time to ``target``."""
    step = 1 if target > initial else -1
    scopes: dict[int, tuple[object, Scope]] = {}
    changes: dict[str, frozenset[int]] = {}
    version = initial
    while version != target:
        _convert_graph(top, (version, version + step), scopes, changes)
        version += step


def _convert_function(function: FunctionProto, path: str, target: int, known: tuple[int, int]) -> None:
    """A model-local function's body, converted from its own default-domain version
    (onnx's converter drops the functions; their calls would then have no body)."""
    entry = next((i for i, o in enumerate(function.opset_import) if o.domain in _DEFAULT_DOMAINS), None)
    if entry is None:
        return
    initial = function.opset_import[entry].version
    if initial == target:
        return
    if not known[0] <= initial <= known[1]:
        raise ConvertError(
            f"the function imports ai.onnx opset {initial}, not a known version ({known[0]} to {known[1]})",
            join(path, "opset_import", entry),
        )
    body = GraphProto(
        input=[ValueInfoProto(name=name) for name in function.input],
        output=[ValueInfoProto(name=name) for name in function.output],
    )
    body.node.extend(function.node)
    _walk(Scope(body, path), initial, target)
    del function.node[:]
    function.node.extend(body.node)
    function.opset_import[entry].version = target


def _changes(op: str, known: dict[str, frozenset[int]]) -> frozenset[int]:
    """The opset versions at which the ai.onnx operator ``op`` changed (empty: no schema),
    kept in ``known`` for the rest of one conversion (a schema registered later is seen by
    the next one)."""
    changes = known.get(op)
    if changes is None:
        from wirecodec.defs._registry import registry

        changes = known[op] = frozenset(schema.since_version for schema in registry().versions(op, ""))
    return changes


def _convert_graph(
    scope: Scope,
    step: tuple[int, int],
    scopes: dict[int, tuple[object, Scope]],
    known: dict[str, frozenset[int]],
) -> None:
    from wirecodec import defs
    from wirecodec.defs._registry import registry
    from wirecodec.version_converter._adapters import ADAPTERS
    from wirecodec.version_converter._table import adapters

    table = adapters()
    start, end = step
    changed_at = end if end > start else start
    index = 0
    graph = scope.graph
    while index < len(graph.node):
        node = graph.node[index]
        op = node.op_type
        if op in _KEPT or node.domain not in _DEFAULT_DOMAINS:
            index += 1
            continue
        changes = _changes(op, known)
        if changed_at not in changes:  # the common case, one set lookup (most nodes, most steps)
            if not changes:
                raise scope.fail(
                    index,
                    f"{op} is no ai.onnx operator (no schema), so it cannot be converted from opset {start} "
                    f"to {end}; give it its domain, or replace it",
                )
        else:
            history = registry().versions(op, "")
            entry = table.get((op, start, end))
            if entry is None:
                if end < start and history[0].since_version == start:
                    raise scope.fail(
                        index,
                        f"{op} came in opset {start}: it has no version at opset {end} or below; "
                        f"keep the model at opset {start} or above",
                    )
                since = [schema.since_version for schema in history if schema.since_version <= start]
                raise scope.fail(
                    index,
                    f"{op}-{since[-1] if since else start} changed at opset {changed_at} and no adapter "
                    f"converts it from opset {start} to {end} (onnx has none either); replace the node, "
                    f"or keep the model at opset {start}",
                )
            current = [schema for schema in history if schema.since_version <= start]
            if current and len(node.input) < current[-1].min_input:
                raise scope.fail(
                    index,
                    f"{op} at opset {start} takes at least {current[-1].min_input} inputs, the node has "
                    f"{len(node.input)}; give it its inputs",
                )
            name, args = entry
            index = ADAPTERS[name](scope, index, step, args)
            node = graph.node[index]
        for at, sub in graph_attributes(node):
            key = id(sub)
            held = scopes.get(key)
            if held is None or held[0] is not sub:
                path = join(join(scope.node_path(index), "attribute", at), "g")
                held = (sub, Scope(sub, path, scope.element_types()))
                scopes[key] = held
            inner = held[1]
            inner.path = join(join(scope.node_path(index), "attribute", at), "g")
            _convert_graph(inner, step, scopes, known)
        index += 1
    del defs  # imported for its registry's first load
