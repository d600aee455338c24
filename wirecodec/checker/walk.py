"""One pass over a model that lists every graph, node, attribute and tensor with its field path.

The rule families read these lists instead of each walking the model again. Paths
start at the model: ``graph.node[3].attribute[0].g.node[1]``, ``functions[0].node[2]``,
``training_info[0].algorithm``. (``wirecodec.files.external.iter_tensors`` walks the
same tree but yields no paths, which every violation needs.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    SparseTensorProto,
    TensorProto,
)

__all__ = ["AttributeSite", "GraphSite", "ModelSites", "NodeSite", "SparseSite", "TensorSite", "walk"]

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


def walk(model: ModelProto) -> ModelSites:
    """List every graph, node, attribute, tensor and sparse tensor of ``model``."""
    sites = ModelSites(model)
    if model.HasField("graph"):
        _graph(sites, "graph", model.graph, "main", None)
    for i, info in enumerate(model.training_info):
        if info.HasField("initialization"):
            _graph(sites, f"training_info[{i}].initialization", info.initialization, "initialization", None)
        if info.HasField("algorithm"):
            _graph(sites, f"training_info[{i}].algorithm", info.algorithm, "algorithm", None)
    for i, function in enumerate(model.functions):
        path = f"functions[{i}]"
        for j, attribute in enumerate(function.attribute_proto):
            _attribute(sites, f"{path}.attribute_proto[{j}]", attribute, function)
        for j, node in enumerate(function.node):
            _node(sites, f"{path}.node[{j}]", node, function)
    return sites


def _graph(
    sites: ModelSites, path: str, graph: GraphProto, role: GraphRole, function: FunctionProto | None
) -> None:
    sites.graphs.append(GraphSite(path, graph, role))
    for i, tensor in enumerate(graph.initializer):
        sites.tensors.append(TensorSite(f"{path}.initializer[{i}]", tensor, "initializer"))
    for i, sparse in enumerate(graph.sparse_initializer):
        _sparse(sites, f"{path}.sparse_initializer[{i}]", sparse, initializer=True)
    for i, node in enumerate(graph.node):
        _node(sites, f"{path}.node[{i}]", node, function)


def _node(sites: ModelSites, path: str, node: NodeProto, function: FunctionProto | None) -> None:
    sites.nodes.append(NodeSite(path, node, function))
    for i, attribute in enumerate(node.attribute):
        _attribute(sites, f"{path}.attribute[{i}]", attribute, function)


def _attribute(
    sites: ModelSites, path: str, attribute: AttributeProto, function: FunctionProto | None
) -> None:
    sites.attributes.append(AttributeSite(path, attribute, function))
    if attribute.HasField("t"):
        sites.tensors.append(TensorSite(f"{path}.t", attribute.t, "attribute"))
    for i, tensor in enumerate(attribute.tensors):
        sites.tensors.append(TensorSite(f"{path}.tensors[{i}]", tensor, "attribute"))
    if attribute.HasField("sparse_tensor"):
        _sparse(sites, f"{path}.sparse_tensor", attribute.sparse_tensor, initializer=False)
    for i, sparse in enumerate(attribute.sparse_tensors):
        _sparse(sites, f"{path}.sparse_tensors[{i}]", sparse, initializer=False)
    if attribute.HasField("g"):
        _graph(sites, f"{path}.g", attribute.g, "subgraph", function)
    for i, graph in enumerate(attribute.graphs):
        _graph(sites, f"{path}.graphs[{i}]", graph, "subgraph", function)


def _sparse(sites: ModelSites, path: str, sparse: SparseTensorProto, *, initializer: bool) -> None:
    sites.sparse.append(SparseSite(path, sparse, initializer))
    if sparse.HasField("values"):
        sites.tensors.append(TensorSite(f"{path}.values", sparse.values, "sparse values"))
    if sparse.HasField("indices"):
        sites.tensors.append(TensorSite(f"{path}.indices", sparse.indices, "sparse indices"))
