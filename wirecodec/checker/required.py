"""Fields the IR requires: ir_version, graph and node names, value names and types (IR.md, onnx.proto)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schema_dsl.onnx import TensorProto, TypeProto, ValueInfoProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import ModelSites, NodeSite
from wirecodec.protobuf.fieldpath import join

if TYPE_CHECKING:
    from wirecodec.checker.values import GraphValues

__all__ = ["RULES", "check_required", "node_required", "value_info"]

MODEL_IR_VERSION = Rule("model-ir-version", "onnx.proto: ModelProto.ir_version", "a model has an ir_version")
MODEL_GRAPH = Rule("model-graph", "IR.md: Models", "a model has a graph")
GRAPH_NAME = Rule("graph-name", "IR.md: Graphs", "every graph has a name")
NODE_OP_TYPE = Rule("node-op-type", "IR.md: Nodes", "every node names its operator (op_type)")
NODE_OUTPUT = Rule("node-output", "IR.md: Graphs", "every node has one or more outputs")
VALUE_INFO_NAME = Rule(
    "value-info-name", "onnx.proto: ValueInfoProto.name", "every value_info, input and output has a name"
)
INITIALIZER_NAME = Rule(
    "initializer-name", "onnx.proto: GraphProto.initializer", "every initializer (dense or sparse) has a name"
)
IO_TYPE = Rule(
    "io-type",
    "IR.md: Graphs",
    "the main graph's inputs and outputs have a type, and tensor types a shape (the rank)",
)
TYPE_ELEM_TYPE = Rule(
    "type-elem-type",
    "onnx.proto: TypeProto",
    "a type is complete: tensor element types valid and not UNDEFINED; sequence, optional and map types "
    "name what they hold; map keys integral or STRING; opaque types have a name",
)
METADATA_UNIQUE = Rule(
    "metadata-unique",
    "onnx.proto: ModelProto.metadata_props",
    "the model's metadata_props keys are distinct",
)

RULES = (
    MODEL_IR_VERSION,
    MODEL_GRAPH,
    GRAPH_NAME,
    NODE_OP_TYPE,
    NODE_OUTPUT,
    VALUE_INFO_NAME,
    INITIALIZER_NAME,
    IO_TYPE,
    TYPE_ELEM_TYPE,
    METADATA_UNIQUE,
)

_DataType = TensorProto.DataType
_MAP_KEYS = frozenset(
    int(t)
    for t in (
        _DataType.INT8, _DataType.INT16, _DataType.INT32, _DataType.INT64,
        _DataType.UINT8, _DataType.UINT16, _DataType.UINT32, _DataType.UINT64, _DataType.STRING,
    )
)  # fmt: skip
_ELEMENT_TYPES = frozenset(int(t) for t in _DataType if t != _DataType.UNDEFINED)


def check_required(
    sites: ModelSites,
    report: Report,
    values: dict[str, GraphValues],
    streamed: Report | None = None,
) -> None:
    """Report every required field that is missing or empty; ``values``: every graph's
    values read once (:func:`wirecodec.checker.values.read_values`, which reads this
    module's rules: the caller reads them, so neither module imports the other's way back);
    ``streamed``: what :func:`node_required` found on every node as the walk met it (the
    walk then listed only functions' nodes), else the listed nodes are looked at here."""
    model = sites.model
    if not model.HasField("ir_version"):
        report.add("ir_version", MODEL_IR_VERSION, "the model has no ir_version")
    if not model.HasField("graph"):
        report.add("graph", MODEL_GRAPH, "the model has no graph")
    first_seen: dict[str, int] = {}
    for i, entry in enumerate(model.metadata_props):
        if entry.key in first_seen:
            where = f"metadata_props[{i}].key"
            report.add(
                where,
                METADATA_UNIQUE,
                f"key {entry.key!r} is already at metadata_props[{first_seen[entry.key]}]",
            )
        else:
            first_seen[entry.key] = i
    for graph_values in values.values():  # each graph's name, values and initializers' names
        report.violations += graph_values.required.violations
    for i, function in enumerate(model.functions):
        for j, value in enumerate(function.value_info):
            value_info(report, f"functions[{i}].value_info[{j}]", value, main_io=False)
    if streamed is not None:  # the node rules ran as the walk met each node
        report.violations += streamed.violations
        return
    for node_site in sites.nodes:
        node_required(report, node_site)


def node_required(report: Report, site: NodeSite) -> None:
    """The required-field rules of one node."""
    node = site.node
    if not node.op_type:
        report.add(join(site.path, "op_type"), NODE_OP_TYPE, "the node has no op_type")
    if not node.output:
        report.add(join(site.path, "output"), NODE_OUTPUT, "the node has no outputs")


def value_info(report: Report, path: str, value: ValueInfoProto, *, main_io: bool) -> None:
    """The required-field rules of one value (graph input or output if ``main_io``) at ``path``."""
    if not value.name:
        report.add(join(path, "name"), VALUE_INFO_NAME, "the value has no name")
    if value.HasField("type"):
        if main_io:
            _main_io_type(report, join(path, "type"), value.type)
        _complete_type(report, join(path, "type"), value.type)
    elif main_io:
        report.add(join(path, "type"), IO_TYPE, "an input or output of the main graph has no type")


def _main_io_type(report: Report, path: str, type_proto: TypeProto) -> None:
    which = type_proto.WhichOneof("value")
    if which is None:
        report.add(
            path, IO_TYPE, "the type says neither tensor, sequence, map, optional, sparse tensor nor opaque"
        )
    elif which in ("tensor_type", "sparse_tensor_type") and not getattr(type_proto, which).HasField("shape"):
        report.add(
            join(join(path, which), "shape"),
            IO_TYPE,
            "an input or output of the main graph has no shape (rank)",
        )


def _complete_type(report: Report, path: str, type_proto: TypeProto) -> None:
    # A tensor type first, in one look: nearly every value has one (WhichOneof tries each member).
    which = "tensor_type" if type_proto.HasField("tensor_type") else type_proto.WhichOneof("value")
    if which in ("tensor_type", "sparse_tensor_type"):
        holder = getattr(type_proto, which)
        if not holder.HasField("elem_type"):
            report.add(
                join(join(path, which), "elem_type"), TYPE_ELEM_TYPE, "the tensor type has no elem_type"
            )
        elif holder.elem_type not in _ELEMENT_TYPES:
            report.add(
                join(join(path, which), "elem_type"),
                TYPE_ELEM_TYPE,
                f"elem_type {holder.elem_type} is not a valid element type",
            )
    elif which in ("sequence_type", "optional_type"):
        holder = getattr(type_proto, which)
        if holder.HasField("elem_type"):
            _complete_type(report, join(join(path, which), "elem_type"), holder.elem_type)
        else:
            report.add(
                join(join(path, which), "elem_type"),
                TYPE_ELEM_TYPE,
                f"the {which[:-5]} type has no elem_type",
            )
    elif which == "opaque_type":
        if not type_proto.opaque_type.name:
            report.add(join(join(path, "opaque_type"), "name"), TYPE_ELEM_TYPE, "the opaque type has no name")
    elif which == "map_type":
        map_type = type_proto.map_type
        if not map_type.HasField("key_type"):
            report.add(
                join(join(path, "map_type"), "key_type"), TYPE_ELEM_TYPE, "the map type has no key_type"
            )
        elif map_type.key_type not in _MAP_KEYS:
            report.add(
                join(join(path, "map_type"), "key_type"),
                TYPE_ELEM_TYPE,
                f"key_type {map_type.key_type} is neither an integral type nor STRING",
            )
        if map_type.HasField("value_type"):
            _complete_type(report, join(join(path, "map_type"), "value_type"), map_type.value_type)
        else:
            report.add(
                join(join(path, "map_type"), "value_type"), TYPE_ELEM_TYPE, "the map type has no value_type"
            )
