"""``onnx.compose``: prefix the names of a graph, merge two graphs or models into one.

The functions take onnx's arguments and build what onnx builds, so
``merge_models(...).SerializeToString()`` is the very bytes ``onnx.compose.merge_models``
gives (the tests compare them). The everyday case glues a pre- or post-processing
model to a network: ``io_map`` pairs outputs of the first with inputs of the second.

>>> from wirecodec import helper
>>> from schema_dsl.onnx import TensorProto
>>> def one(op, x, y, name):
...     info = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])
...     graph = helper.make_graph([helper.make_node(op, [x], [y])], name, [info(x)], [info(y)])
...     return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
>>> merged = merge_models(one("Relu", "x", "r", "pre"), one("Neg", "a", "y", "net"), [("r", "a")])
>>> [(node.op_type, list(node.input)) for node in merged.graph.node]
[('Relu', ['x']), ('Neg', ['r'])]
>>> [v.name for v in merged.graph.input], [v.name for v in merged.graph.output], merged.graph.name
(['x'], ['y'], 'pre_net')

Where onnx raises ``ValueError`` these raise :class:`~wirecodec.GraphError` (a
``ValueError``) naming the names at fault; a result that breaks the IR rules raises
:class:`~wirecodec.CheckError` (onnx's ``checker.check_model``; wirecodec checks no
operator schemas).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec.checker import violations
from wirecodec.errors import CheckError, GraphError
from wirecodec.graphs.scopes import bodies, named_bodies, walk_graphs
from wirecodec.graphs.subgraph import Extractor
from wirecodec.helper import (
    make_model,
    make_node,
    make_tensor_value_info,
    set_model_props,
)
from wirecodec.protobuf.fieldpath import join

__all__ = [
    "add_prefix",
    "add_prefix_graph",
    "check_overlapping_names",
    "dedupe_opset_import",
    "expand_out_dim",
    "expand_out_dim_graph",
    "merge_graphs",
    "merge_models",
]

IoMap = Sequence[tuple[str, str]]
_DUPLICATE: Final = "opset-duplicate-domain"


def _copy(message: GraphProto) -> GraphProto:
    copy = GraphProto()
    copy.CopyFrom(message)
    return copy


def _copy_model(message: ModelProto) -> ModelProto:
    copy = ModelProto()
    copy.CopyFrom(message)
    return copy


def _need(value: object, cls: type, what: str) -> None:
    if not isinstance(value, cls):
        raise TypeError(f"{what} argument is not an ONNX {'graph' if cls is GraphProto else 'model'}")


def _edge_names(graph: GraphProto, exclude: set[str]) -> list[str]:
    return [
        name
        for node in graph.node
        for name in [*node.input, *node.output]
        if name != "" and name not in exclude
    ]


def _overlap(first: Sequence[str], second: Sequence[str]) -> list[str]:
    return sorted(set(first) & set(second))


def check_overlapping_names(
    g1: GraphProto, g2: GraphProto, io_map: IoMap | None = None
) -> list[tuple[str, list[str]]]:
    """The names both graphs use, by kind: ``[("edge", [...]), ("value_info", [...]), ...]``.

    Kinds are ``edge`` (node inputs and outputs, except the inputs of ``g2`` that
    ``io_map`` connects), ``value_info``, ``initializer`` and ``sparse_initializer``,
    as in onnx; the names of each kind are sorted.
    """
    _need(g1, GraphProto, "g1")
    _need(g2, GraphProto, "g2")
    connected = {pair[1] for pair in io_map or ()}
    result: list[tuple[str, list[str]]] = []
    found = _overlap(_edge_names(g1, set()), _edge_names(g2, connected))
    if found:
        result.append(("edge", found))
    found = _overlap([v.name for v in g1.value_info], [v.name for v in g2.value_info])
    if found:
        result.append(("value_info", found))
    found = _overlap([t.name for t in g1.initializer], [t.name for t in g2.initializer])
    if found:
        result.append(("initializer", found))
    found = _overlap(
        [s.values.name for s in g1.sparse_initializer], [s.values.name for s in g2.sparse_initializer]
    ) + _overlap(
        [s.indices.name for s in g1.sparse_initializer], [s.indices.name for s in g2.sparse_initializer]
    )
    if found:
        result.append(("sparse_initializer", found))
    return result


def _prefixed_map(io_map: IoMap, prefix1: str | None, prefix2: str | None) -> list[tuple[str, str]]:
    return [((prefix1 or "") + out, (prefix2 or "") + in_) for out, in_ in io_map]


def _cut(graph: GraphProto, inputs: list[str], outputs: list[str]) -> GraphProto:
    """``graph`` cut to ``inputs`` .. ``outputs`` when that drops any (onnx's Extractor)."""
    if len(inputs) < len(graph.input) or len(outputs) < len(graph.output):
        return Extractor(make_model(graph)).extract_model(inputs, outputs).graph
    return graph


def _connect(graph: GraphProto, start: int, end: int, sources: dict[str, str]) -> None:
    """Rename the inputs of ``graph.node[start:end]`` (and of their bodies) that ``sources`` maps."""
    for node in graph.node[start:end]:
        for body in bodies(node):  # a held graph, whatever the attribute's type says
            _connect(body, 0, len(body.node), sources)
        node.input = [sources.get(name, name) for name in node.input]


def merge_graphs(
    g1: GraphProto,
    g2: GraphProto,
    io_map: IoMap,
    inputs: list[str] | None = None,
    outputs: list[str] | None = None,
    prefix1: str | None = None,
    prefix2: str | None = None,
    name: str | None = None,
    doc_string: str | None = None,
    *,
    every_scope: bool = False,
) -> GraphProto:
    """One graph: ``g1``'s nodes, then ``g2``'s, each ``(out, in)`` of ``io_map`` connecting an
    output of ``g1`` to an input of ``g2``.

    Inputs and outputs not in ``io_map`` stay inputs and outputs (or only those named in
    ``inputs``/``outputs``, cutting away what they no longer need); ``prefix1``/``prefix2``
    prefix every name of a graph first (:func:`add_prefix_graph`). The name defaults to
    ``"<g1 name>_<g2 name>"`` and the doc string to one combining both, as onnx's.
    ``every_scope`` as for :func:`add_prefix_graph`.
    """
    _need(g1, GraphProto, "g1")
    _need(g2, GraphProto, "g2")
    if prefix1 or prefix2:
        if prefix1:
            g1 = add_prefix_graph(g1, prefix=prefix1, every_scope=every_scope)
        if prefix2:
            g2 = add_prefix_graph(g2, prefix=prefix2, every_scope=every_scope)
        io_map = _prefixed_map(io_map, prefix1, prefix2)
    g1_connected = {out for out, _ in io_map}
    g2_connected = {in_ for _, in_ in io_map}
    sources = {in_: out for out, in_ in io_map}
    g1_outputs = {v.name for v in g1.output}
    g2_inputs = {v.name for v in g2.input}

    if inputs or outputs:
        wanted_in = set(inputs or ())
        wanted_out = set(outputs or ())
        g1_in = [v.name for v in g1.input if not inputs or v.name in wanted_in]
        g2_in = [v.name for v in g2.input if not inputs or v.name in wanted_in or v.name in g2_connected]
        g1_out = [v.name for v in g1.output if not outputs or v.name in wanted_out or v.name in g1_connected]
        g2_out = [v.name for v in g2.output if not outputs or v.name in wanted_out]
        g1 = _cut(g1, g1_in, g1_out)
        g2 = _cut(g2, g2_in, g2_out)

    for out, in_ in io_map:
        if out not in g1_outputs:
            raise GraphError(f"io_map: {out!r} is not an output of the first graph")
        if in_ not in g2_inputs:
            raise GraphError(f"io_map: {in_!r} is not an input of the second graph")
    overlapping = check_overlapping_names(g1, g2, io_map)
    if overlapping:
        kind, names = overlapping[0]
        raise GraphError(
            f"the graphs both have the {kind} names {', '.join(map(repr, names))}: "
            "prefix one graph's names (add_prefix, or prefix1/prefix2)"
        )

    graph = GraphProto()
    graph.node.extend(g1.node)
    start = len(graph.node)
    graph.node.extend(g2.node)
    _connect(graph, start, len(graph.node), sources)

    if inputs:
        chosen = set(inputs)
        graph.input.extend([v for v in g1.input if v.name in chosen])
        graph.input.extend([v for v in g2.input if v.name in chosen])
    else:
        graph.input.extend(g1.input)
        graph.input.extend([v for v in g2.input if v.name not in g2_connected])
    if outputs:
        chosen = set(outputs)
        graph.output.extend([v for v in g1.output if v.name in chosen])
        graph.output.extend([v for v in g2.output if v.name in chosen])
    else:
        graph.output.extend([v for v in g1.output if v.name not in g1_connected])
        graph.output.extend(g2.output)

    graph.initializer.extend(g1.initializer)
    graph.initializer.extend([t for t in g2.initializer if t.name not in g2_connected])
    graph.sparse_initializer.extend(g1.sparse_initializer)
    graph.sparse_initializer.extend([s for s in g2.sparse_initializer if s.values.name not in g2_connected])
    graph.value_info.extend(g1.value_info)
    graph.value_info.extend([v for v in g2.value_info if v.name not in g2_connected])
    # An output of g1 that became an inner tensor keeps its type as value_info.
    typed = {v.name for v in graph.value_info} | {v.name for v in graph.output}
    graph.value_info.extend([v for v in g1.output if v.name in g1_connected and v.name not in typed])

    graph.name = name if name is not None else f"{g1.name}_{g2.name}"
    if doc_string is None:
        doc_string = (
            f"Graph combining {g1.name} and {g2.name}\n"
            f"{g1.name}\n\n{g1.doc_string}\n\n{g2.name}\n\n{g2.doc_string}"
        )
    graph.doc_string = doc_string
    return graph


def _merged_props(m1: ModelProto, m2: ModelProto) -> dict[str, str]:
    props = {entry.key: entry.value for entry in m1.metadata_props}
    for entry in m2.metadata_props:
        if props.setdefault(entry.key, entry.value) != entry.value:
            raise GraphError(
                f"metadata_props: {entry.key!r} is {props[entry.key]!r} in the first model "
                f"and {entry.value!r} in the second"
            )
    return props


def merge_models(
    m1: ModelProto,
    m2: ModelProto,
    io_map: IoMap,
    inputs: list[str] | None = None,
    outputs: list[str] | None = None,
    prefix1: str | None = None,
    prefix2: str | None = None,
    name: str | None = None,
    doc_string: str | None = None,
    producer_name: str | None = "onnx.compose.merge_models",
    producer_version: str | None = "1.0",
    domain: str | None = "",
    model_version: int | None = 1,
    *,
    every_scope: bool = False,
) -> ModelProto:
    """One model from two: :func:`merge_graphs` of their graphs, as ``onnx.compose.merge_models``.

    Both must have the same ``ir_version`` and, for each operator set domain they both
    import, the same version; ``opset_import`` lists the first model's imports then the
    second's. Metadata is merged (a key with two values is an error), local functions are
    concatenated (a name in both is an error; ``prefix1``/``prefix2`` prefix function
    names too) and the result is checked with :func:`wirecodec.check`, but for
    ``opset-duplicate-domain``: like onnx's, the result lists a domain both models import
    twice (:func:`dedupe_opset_import` lists it once). ``every_scope`` as for
    :func:`add_prefix_graph`: with it, a prefixed model whose bodies read outer names
    (an If branch reading an initializer) merges into a model that passes the check.
    """
    _need(m1, ModelProto, "m1")
    _need(m2, ModelProto, "m2")
    if m1.ir_version != m2.ir_version:
        raise GraphError(f"ir_version: {m1.ir_version} in the first model, {m2.ir_version} in the second")
    opsets = [*m1.opset_import, *m2.opset_import]
    versions: dict[str, int] = {}
    for entry in opsets:
        if versions.setdefault(entry.domain, entry.version) != entry.version:
            raise GraphError(
                f"opset_import: domain {entry.domain!r} is version {versions[entry.domain]} in one model "
                f"and {entry.version} in the other"
            )
    if prefix1 or prefix2:
        if prefix1:
            m1 = add_prefix(m1, prefix=prefix1, every_scope=every_scope)
        if prefix2:
            m2 = add_prefix(m2, prefix=prefix2, every_scope=every_scope)
        io_map = _prefixed_map(io_map, prefix1, prefix2)
    graph = merge_graphs(
        m1.graph, m2.graph, io_map, inputs=inputs, outputs=outputs, name=name, doc_string=doc_string
    )
    model = make_model(
        graph,
        producer_name=producer_name,
        producer_version=producer_version,
        domain=domain,
        model_version=model_version,
        opset_imports=opsets,
        ir_version=m1.ir_version,
    )
    set_model_props(model, _merged_props(m1, m2))
    both = _overlap([f.name for f in m1.functions], [f.name for f in m2.functions])
    if both:
        raise GraphError(f"functions: both models define {', '.join(map(repr, both))}: prefix one model")
    model.functions.extend(m1.functions)
    model.functions.extend(m2.functions)
    # onnx lists both models' imports, so a domain both use appears twice (with one version,
    # checked above). onnx's checker lets that pass and onnx's bytes have it; ours reports it
    # (opset-duplicate-domain): the one rule not applied to the merged model.
    found = [v for v in violations(model) if not (v.rule == _DUPLICATE and v.path.startswith("opset_import"))]
    if found:
        raise CheckError(found)
    return model


def dedupe_opset_import(model: ModelProto) -> ModelProto:
    """``model`` with each operator set domain imported once (the first entry kept), in place.

    >>> from wirecodec.helper import make_model, make_opsetid
    >>> model = make_model(GraphProto(), opset_imports=[make_opsetid("", 21), make_opsetid("", 21)])
    >>> [entry.version for entry in dedupe_opset_import(model).opset_import]
    [21]
    """
    seen: set[str] = set()
    kept = []
    for entry in model.opset_import:
        # '' and 'ai.onnx' name the same domain.
        domain = "" if entry.domain == "ai.onnx" else entry.domain
        if domain not in seen:
            seen.add(domain)
            kept.append(entry)
    if len(kept) < len(model.opset_import):
        model.opset_import = kept
    return model


def _prefixed(prefix: str, name: str) -> str:
    return prefix + name if name else name


def _renamed(names: Sequence[str], name_map: dict[str, str]) -> list[str]:
    return [name_map.get(name, name) for name in names]


def add_prefix_graph(
    graph: GraphProto,
    prefix: str,
    rename_nodes: bool | None = True,
    rename_edges: bool | None = True,
    rename_inputs: bool | None = True,
    rename_outputs: bool | None = True,
    rename_initializers: bool | None = True,
    rename_value_infos: bool | None = True,
    inplace: bool | None = False,
    name_map: dict[str, str] | None = None,
    *,
    every_scope: bool = False,
) -> GraphProto:
    """``graph`` with ``prefix`` before the names of its nodes, edges, inputs, outputs,
    initializers and value_info (empty names stay empty), bodies of If/Loop/Scan included.

    As onnx's: edges are the node outputs that are not graph outputs (those follow
    ``rename_outputs``); ``name_map`` (old -> new) is shared with the bodies. Returns a
    copy unless ``inplace``. onnx's walk renames a body before the initializers and
    value_info of its enclosing graph are mapped, so an If branch reading an outer
    initializer keeps the old name and the result fails the check; ``onnx_compat`` (and
    the default here) keeps that, for the drop-in. ``every_scope=True`` renames every
    reference in every scope (each body sees all names of the graphs around it): what
    ``wirecodec merge`` uses.
    """
    _need(graph, GraphProto, "graph")
    g = graph if inplace else _copy(graph)
    if every_scope:
        kinds = (rename_edges, rename_inputs, rename_outputs, rename_initializers, rename_value_infos)
        flags = tuple(bool(kind) for kind in kinds)
        _prefix_every_scope(g, prefix, bool(rename_nodes), flags, name_map or {})
        return g
    if name_map is None:
        name_map = {}
    if rename_edges:
        graph_outputs = {v.name for v in g.output}
        for node in g.node:
            for name in node.output:
                if name not in graph_outputs:
                    name_map[name] = _prefixed(prefix, name)
    if rename_inputs:
        for value in g.input:
            name_map[value.name] = _prefixed(prefix, value.name)
    if rename_outputs:
        for value in g.output:
            name_map[value.name] = _prefixed(prefix, value.name)
    if rename_nodes:
        for node in g.node:
            node.name = _prefixed(prefix, node.name)
            # Bodies see the names mapped so far (onnx's order), and add their own.
            for body in bodies(node):
                add_prefix_graph(body, prefix, inplace=True, name_map=name_map)
    if rename_initializers:
        for tensor in g.initializer:
            name_map[tensor.name] = _prefixed(prefix, tensor.name)
        for sparse in g.sparse_initializer:
            name_map[sparse.values.name] = _prefixed(prefix, sparse.values.name)
            name_map[sparse.indices.name] = _prefixed(prefix, sparse.indices.name)
    if rename_value_infos:
        for value in g.value_info:
            name_map[value.name] = _prefixed(prefix, value.name)

    for node in g.node:
        node.output = _renamed(node.output, name_map)
        node.input = _renamed(node.input, name_map)
    for value in [*g.input, *g.output]:
        value.name = name_map.get(value.name, value.name)
    for tensor in g.initializer:
        tensor.name = name_map.get(tensor.name, tensor.name)
    for sparse in g.sparse_initializer:
        sparse.values.name = name_map.get(sparse.values.name, sparse.values.name)
        sparse.indices.name = name_map.get(sparse.indices.name, sparse.indices.name)
    for value in g.value_info:
        value.name = name_map.get(value.name, value.name)
    return g


def _own_names(graph: GraphProto, flags: tuple[bool, ...]) -> list[str]:
    """The names ``graph`` itself gives, of the kinds ``flags`` (edges, inputs, outputs,
    initializers, value_info) select, as onnx's add_prefix_graph picks them."""
    edges, inputs, outputs, initializers, value_infos = flags
    names: list[str] = []
    if edges:
        graph_outputs = {v.name for v in graph.output}
        names += [name for node in graph.node for name in node.output if name not in graph_outputs]
    if inputs:
        names += [v.name for v in graph.input]
    if outputs:
        names += [v.name for v in graph.output]
    if initializers:
        names += [t.name for t in graph.initializer]
        names += [n for s in graph.sparse_initializer for n in (s.values.name, s.indices.name)]
    if value_infos:
        names += [v.name for v in graph.value_info]
    return names


def _prefix_every_scope(
    graph: GraphProto, prefix: str, nodes: bool, flags: tuple[bool, ...], given: dict[str, str]
) -> None:
    """``prefix`` before the names of every graph under ``graph`` (the one scope walk): each
    graph's map is its enclosing graph's map plus its own names, so a body's reference to
    an outer name is renamed with the name it reads, whatever kind that name is."""
    maps: dict[str, dict[str, str]] = {"": given}
    for scope in walk_graphs(graph):
        name_map = {**maps.pop(scope.path if scope.depth else "", given)}
        name_map.update((name, _prefixed(prefix, name)) for name in _own_names(scope.graph, flags))
        g = scope.graph
        for i, node in enumerate(g.node):
            for _, body_path, _ in named_bodies(node, join(scope.path, "node", i)):
                maps[body_path] = name_map
            if nodes:
                node.name = _prefixed(prefix, node.name)
            node.output = _renamed(node.output, name_map)
            node.input = _renamed(node.input, name_map)
        for value in [*g.input, *g.output, *g.value_info]:
            value.name = name_map.get(value.name, value.name)
        for tensor in g.initializer:
            tensor.name = name_map.get(tensor.name, tensor.name)
        for sparse in g.sparse_initializer:
            sparse.values.name = name_map.get(sparse.values.name, sparse.values.name)
            sparse.indices.name = name_map.get(sparse.indices.name, sparse.indices.name)


def add_prefix(
    model: ModelProto,
    prefix: str,
    rename_nodes: bool | None = True,
    rename_edges: bool | None = True,
    rename_inputs: bool | None = True,
    rename_outputs: bool | None = True,
    rename_initializers: bool | None = True,
    rename_value_infos: bool | None = True,
    rename_functions: bool | None = True,
    inplace: bool | None = False,
    *,
    every_scope: bool = False,
) -> ModelProto:
    """:func:`add_prefix_graph` on ``model.graph``, and ``prefix`` before the names of its local
    functions and the calls to them (in the main graph and in functions), as onnx's.
    ``every_scope`` as for :func:`add_prefix_graph`."""
    _need(model, ModelProto, "model")
    m = model if inplace else _copy_model(model)
    add_prefix_graph(
        m.graph,
        prefix,
        rename_nodes=rename_nodes,
        rename_edges=rename_edges,
        rename_inputs=rename_inputs,
        rename_outputs=rename_outputs,
        rename_initializers=rename_initializers,
        rename_value_infos=rename_value_infos,
        inplace=True,
        every_scope=every_scope,
    )
    if rename_functions:
        names: dict[str, str] = {}
        for function in m.functions:
            names[function.name] = prefix + function.name
            function.name = prefix + function.name
        callers: list[NodeProto] = [node for function in m.functions for node in function.node]
        for node in [*callers, *m.graph.node]:
            if node.op_type in names:
                node.op_type = names[node.op_type]
    return m


def expand_out_dim_graph(graph: GraphProto, dim_idx: int, inplace: bool | None = False) -> GraphProto:
    """``graph`` with a dimension of extent 1 inserted at ``dim_idx`` in every output (an
    ``Unsqueeze`` per output, as onnx's; the new output types list ``dim_value`` only)."""
    _need(graph, GraphProto, "graph")
    g = graph if inplace else _copy(graph)
    suffix = f"_collapsed_dim_{dim_idx}"
    originals = {v.name for v in g.output}
    for node in g.node:
        node.output = [name + suffix if name in originals else name for name in node.output]
        node.input = [name + suffix if name in originals else name for name in node.input]
    axes = g.name + "_expand_out_dim_idx"
    from wirecodec._helper.tensor import make_tensor  # here: the one use of numpy in compose

    g.node.append(
        make_node(
            "Constant",
            inputs=[],
            outputs=[axes],
            name=f"{axes}-constant",
            value=make_tensor(name=f"{axes}-value", data_type=TensorProto.INT64, dims=[1], vals=[dim_idx]),
        )
    )
    old_outputs = list(g.output)
    g.output = []
    for value in old_outputs:
        g.node.append(
            make_node("Unsqueeze", [value.name + suffix, axes], [value.name], name=f"unsqueeze-{value.name}")
        )
        shape: list[str | int | None] = [d.dim_value for d in value.type.tensor_type.shape.dim]
        shape.insert(dim_idx, 1)
        g.output.append(make_tensor_value_info(value.name, value.type.tensor_type.elem_type, shape))
    return g


def expand_out_dim(model: ModelProto, dim_idx: int, inplace: bool | None = False) -> ModelProto:
    """:func:`expand_out_dim_graph` on ``model.graph``; a copy unless ``inplace``."""
    _need(model, ModelProto, "model")
    m = model if inplace else _copy_model(model)
    expand_out_dim_graph(m.graph, dim_idx, inplace=True)
    return m
