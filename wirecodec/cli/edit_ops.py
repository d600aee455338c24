"""The model changes of ``edit`` that are not renames or dimensions: opsets, outputs,
metadata and doc strings. Each takes the model, changes it in place and returns the
line ``edit`` prints; a change that cannot be made is a :class:`UsageError` and the
model is left as it was.
"""

from __future__ import annotations

from schema_dsl.onnx import ModelProto, OperatorSetIdProto, TensorShapeProto, TypeProto, ValueInfoProto
from wirecodec.cli.common import UsageError
from wirecodec.protobuf.walk import walk

__all__ = ["add_output", "remove_metadata", "set_opset", "strip_doc_strings"]

_DEFAULT_DOMAINS = ("", "ai.onnx")


def set_opset(model: ModelProto, domain: str, version: int) -> str:
    """Set the version the model imports ``domain`` at (adding the import if missing).

    Only the number changes: no operator is converted, so a model whose nodes do not
    exist or differ at that version is not fixed by this (onnx's version_converter does
    that); the line printed says so.
    """
    if version < 1:
        raise UsageError(f"--set-opset: a version is 1 or more, got {version}")
    same = _DEFAULT_DOMAINS if domain in _DEFAULT_DOMAINS else (domain,)
    entries = [entry for entry in model.opset_import if entry.domain in same]
    shown = domain or "ai.onnx"
    if entries:
        old = entries[0].version
        for entry in entries:
            entry.version = version
        change = f"opset {shown} {old} -> {version}"
    else:
        model.opset_import.append(OperatorSetIdProto(domain=domain, version=version))
        change = f"opset {shown} {version} (added)"
    return change + " (the number only: no operator was converted)"


def add_output(model: ModelProto, name: str) -> str:
    """Make the value ``name`` a graph output, with the type the model knows for it.

    The type comes from ``value_info``, an input or an initializer; a value whose type
    the model does not record is added without one (onnxruntime infers it) and the line
    says so.
    """
    graph = model.graph
    if any(output.name == name for output in graph.output):
        raise UsageError(f"--add-output: {name!r} is already a graph output")
    produced = {out for node in graph.node for out in node.output}
    known = {info.name: info for info in [*graph.value_info, *graph.input]}
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    if name not in produced and name not in known and name not in initializers:
        raise UsageError(f"--add-output: no node, input or initializer of the main graph makes {name!r}")
    output = ValueInfoProto(name=name)
    if name in known and known[name].HasField("type"):
        output.type = known[name].type
    elif name in initializers:
        tensor = initializers[name]
        output.type = TypeProto(tensor_type=TypeProto.Tensor(elem_type=tensor.data_type))
        output.type.tensor_type.shape.dim.extend(TensorShapeProto.Dimension(dim_value=d) for d in tensor.dims)
    graph.output.append(output)
    if not output.HasField("type"):
        return f"output {name!r} added (its type is not recorded in the model: runtimes infer it)"
    return f"output {name!r} added"


def remove_metadata(model: ModelProto, key: str) -> str:
    """Remove the ``metadata_props`` entries with ``key``; a key the model lacks is an error."""
    kept = [entry for entry in model.metadata_props if entry.key != key]
    removed = len(model.metadata_props) - len(kept)
    if not removed:
        raise UsageError(f"--remove-metadata: the model has no metadata {key!r}")
    model.metadata_props = kept
    return f"metadata {key!r} removed"


def strip_doc_strings(model: ModelProto) -> str:
    """Clear every ``doc_string`` in the model: graphs, nodes, values, attributes, functions."""
    cleared = 0
    for site in walk(model):
        message = site.message
        if "doc_string" in type(message).__schema__.by_name and message.HasField("doc_string"):
            message.ClearField("doc_string")
            cleared += 1
    return f"{cleared} doc_string{'s' if cleared != 1 else ''} removed"
