"""The values of every graph — its ``input``, ``output`` and ``value_info`` — read once for the
three rule families that look at them.

The names rules (which names a graph defines and uses), the required-field rules (every
value named, every type complete) and the IR-version rules (a value's type or metadata
newer than the model) each need every value of every graph. On a long graph an element
nobody holds is built again by each read, so three families reading the values meant three
views built per value (a 100k-node graph has a value_info per node). Here each value is
read once, and each family takes its part from :class:`GraphValues`: the names, and the
violations of the other two in the order their family met them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from schema_dsl.onnx import SparseTensorProto, TensorProto, ValueInfoProto
from wirecodec.checker.opsets import VALUE_FEATURES_UNTIL, graph_features, value_features
from wirecodec.checker.required import GRAPH_NAME, INITIALIZER_NAME, value_info
from wirecodec.checker.violation import Report
from wirecodec.checker.walk import GraphSite, ModelSites
from wirecodec.protobuf.fieldpath import join
from wirecodec.protobuf.lazy import elements

__all__ = ["GraphValues", "read_graph", "read_values"]


@dataclass
class GraphValues:
    """What one graph's values and initializers tell the rule families.

    ``names[field]`` holds the name of each value of ``field`` (``input``, ``output``, ``value_info``) in
    order; ``initializers`` each initializer's (and sparse initializer's values') path and
    name, sparse ones last; ``required`` and ``features`` are the findings about the graph
    of the required-field rules (:mod:`wirecodec.checker.required`: its name, its values,
    its initializers' names) and of the IR-version feature rules (:mod:`wirecodec.checker.opsets`:
    its own fields, its values), in the order those families list them.
    """

    names: dict[str, list[str]] = field(default_factory=dict)
    initializers: list[tuple[str, str]] = field(default_factory=list)
    required: Report = field(default_factory=Report)
    features: Report = field(default_factory=Report)


def read_values(sites: ModelSites, ir: int | None) -> dict[str, GraphValues]:
    """Every graph's :class:`GraphValues`, by the graph's path, in walk order; each value read once.

    ``ir`` is the model's IR version (None when unset): the feature rules apply from IR
    version 1, as :func:`wirecodec.checker.opsets.check_opsets` applies them.
    """
    return {site.path: read_graph(site, ir) for site in sites.graphs}


def read_graph(site: GraphSite, ir: int | None) -> GraphValues:
    """One graph's :class:`GraphValues` (what :func:`read_values` reads of each)."""
    graph, path = site.graph, site.path
    values = GraphValues()
    if not graph.name:
        values.required.add(join(path, "name"), GRAPH_NAME, "the graph has no name")
    if ir is not None and ir >= 1:
        graph_features(values.features, ir, site)
    main = site.role == "main"
    features = ir is not None and 1 <= ir < VALUE_FEATURES_UNTIL
    for field_name in ("input", "output", "value_info"):
        names: list[str] = []
        main_io = main and field_name != "value_info"
        # elements(): a body has mostly no value_info, and reading it would store an empty list
        for i, value in enumerate(cast("Sequence[ValueInfoProto]", elements(graph, field_name))):
            where = join(path, field_name, i)
            names.append(value.name)
            value_info(values.required, where, value, main_io=main_io)
            if features:
                value_features(values.features, ir, where, value)  # type: ignore[arg-type]  # ir set
        values.names[field_name] = names
    # elements(): a body has mostly none, and reading the field would store an empty list
    for i, tensor in enumerate(cast("Sequence[TensorProto]", elements(graph, "initializer"))):
        where = join(path, "initializer", i)
        values.initializers.append((where, tensor.name))
        if not tensor.name:
            values.required.add(join(where, "name"), INITIALIZER_NAME, "the initializer has no name")
    for i, sparse in enumerate(cast("Sequence[SparseTensorProto]", elements(graph, "sparse_initializer"))):
        where = join(join(path, "sparse_initializer", i), "values")
        name = sparse.values.name
        values.initializers.append((where, name))
        if not name:
            message = "the sparse initializer's values have no name"
            values.required.add(join(where, "name"), INITIALIZER_NAME, message)
    return values
