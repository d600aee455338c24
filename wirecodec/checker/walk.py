"""One pass over a model that lists every graph, node, attribute and tensor with its field path.

The rule families read these lists instead of each walking the model again. They come
from the one schema-driven walk (wirecodec.protobuf.walk), so the paths are the ones
every tool prints: ``graph.node[3].attribute[0].g.node[1]``, ``functions[0].node[2]``,
``training_info[0].algorithm``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, NamedTuple, Protocol, TypeVar, cast

from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    SparseTensorProto,
    TensorProto,
)
from wirecodec.files.base.walk import ORDER
from wirecodec.protobuf.lazy import elements
from wirecodec.protobuf.walk import walk as tensor_walk

__all__ = [
    "AttributeSite",
    "GraphSite",
    "ModelSites",
    "NodeSite",
    "SiteRules",
    "SparseSite",
    "TensorSite",
    "attributes_of",
    "walk",
]

GraphRole = Literal["main", "subgraph", "initialization", "algorithm"]
TensorRole = Literal["initializer", "attribute", "sparse values", "sparse indices"]


class GraphSite(NamedTuple):
    """A graph: the model's, a subgraph in an attribute, or a training graph."""

    path: str
    graph: GraphProto
    role: GraphRole


class NodeSite(NamedTuple):
    """A node; ``function`` is the model-local function whose body holds it (or None)."""

    path: str
    node: NodeProto
    function: FunctionProto | None


class AttributeSite(NamedTuple):
    """An attribute of a node, or a default in ``FunctionProto.attribute_proto``."""

    path: str
    attribute: AttributeProto
    function: FunctionProto | None


class TensorSite(NamedTuple):
    path: str
    tensor: TensorProto
    role: TensorRole


class SparseSite(NamedTuple):
    path: str
    sparse: SparseTensorProto
    initializer: bool


@dataclass
class ModelSites:
    """Everything in a model the rules look at, each with its path, in model order."""

    model: ModelProto
    graphs: list[GraphSite] = field(default_factory=list)
    nodes: list[NodeSite] = field(default_factory=list)
    attributes: list[AttributeSite] = field(default_factory=list)
    tensors: list[TensorSite] = field(default_factory=list)
    sparse: list[SparseSite] = field(default_factory=list)


_S = TypeVar("_S", NodeSite, AttributeSite)
_KINDS: Final = (GraphProto, NodeProto, AttributeProto, TensorProto, SparseTensorProto)
_TENSOR_ROLES: Final[dict[str | None, TensorRole]] = {
    "initializer": "initializer",
    "t": "attribute",
    "tensors": "attribute",
    "values": "sparse values",
    "indices": "sparse indices",
}
_GRAPH_ROLES: Final[dict[str | None, GraphRole]] = {
    "graph": "main",
    "initialization": "initialization",
    "algorithm": "algorithm",
}


def attributes_of(node: NodeProto) -> Sequence[AttributeProto]:
    """A node's attributes, read without storing an empty list on a node that has none
    (a check must not leave every such node of a long graph holding one)."""
    return cast("Sequence[AttributeProto]", elements(node, "attribute"))


class SiteRules(Protocol):
    """Rules run on each node and attribute as the walk meets it (:func:`walk`'s ``rules``)."""

    def node(self, site: NodeSite) -> None: ...

    def attribute(self, site: AttributeSite) -> None: ...

    def graph(self, site: GraphSite) -> None: ...


def walk(model: ModelProto, rules: SiteRules | None = None) -> ModelSites:
    """List every graph, node, attribute, tensor and sparse tensor of ``model`` (the one walk, filtered).

    With ``rules``, each graph, node and attribute is handed to them as the walk meets it
    and not listed (only the model's own graphs are, and the nodes and attributes of
    model-local functions): a long graph's element is
    a view built by the read, and 100k views held until the rules ran would make every
    young collection of the check dearer (a third of its time). The view dies with its site.
    """
    sites = ModelSites(model)
    functions = list(model.functions)
    nodes, attributes = sites.nodes.append, sites.attributes.append
    if rules is not None:
        nodes, attributes = _handing(nodes, rules.node), _handing(attributes, rules.attribute)
    # The most frequent kinds first, and no look for an owning function in a model without
    # functions: this loop runs once per node and attribute of the model.
    for site in tensor_walk(model, _KINDS, order={**ORDER, ModelProto: ()}):
        item, path = site.message, site.path
        if isinstance(item, AttributeProto):
            attributes(AttributeSite(path, item, _function(path, functions) if functions else None))
        elif isinstance(item, NodeProto):
            nodes(NodeSite(path, item, _function(path, functions) if functions else None))
        elif isinstance(item, GraphProto):
            graph = GraphSite(path, item, _GRAPH_ROLES.get(site.field, "subgraph"))
            if rules is None:
                sites.graphs.append(graph)
            else:
                rules.graph(graph)
                if graph.role != "subgraph":  # a body is an element of its holder's view
                    sites.graphs.append(graph)
        elif isinstance(item, TensorProto):
            sites.tensors.append(TensorSite(path, item, _TENSOR_ROLES.get(site.field, "attribute")))
        elif isinstance(item, SparseTensorProto):
            sites.sparse.append(SparseSite(path, item, site.field == "sparse_initializer"))
    return sites


def _handing(keep: Callable[[_S], None], rule: Callable[[_S], None]) -> Callable[[_S], None]:
    """Hand a site to ``rule``; keep it as well when it is in a model-local function."""

    def hand(site: _S) -> None:
        rule(site)
        if site.function is not None:
            keep(site)

    return hand


def _function(path: str, functions: list[FunctionProto]) -> FunctionProto | None:
    """The model-local function whose body holds what is at ``path`` (``functions[2].node[0]``)."""
    if not path.startswith("functions["):
        return None
    return functions[int(path[len("functions[") : path.index("]")])]
