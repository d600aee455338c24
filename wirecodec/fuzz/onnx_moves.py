"""ONNX-aware mutations: well-formed models that break what parsers and checkers assume,
in the shapes of bugs fuzzing has found (onnxruntime#4349, #4585; onnx#6211, #8119; the
unbounded recursion of shape inference on nested subgraphs).

Each move takes a decoded model and a random generator, changes the model in place and
says whether it found something to change. The bytes stay well-formed protobuf; what
breaks is the model's meaning.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Final

from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    StringStringEntryProto,
    TensorProto,
)
from wirecodec.protobuf.walk import walk

__all__ = ["ONNX_MOVES", "OnnxMove"]

OnnxMove = Callable[[ModelProto, random.Random], bool]

# Every data type onnx declares, and a few it does not.
_DATA_TYPES: Final = (*range(1, 27), 0, 27, 99, -1, 1 << 30)
_ATTRIBUTE_TYPES: Final = tuple(int(t) for t in AttributeProto.AttributeType)


def _graphs(model: ModelProto) -> list[GraphProto]:
    return [site.message for site in walk(model, (GraphProto,)) if isinstance(site.message, GraphProto)]


def _tensors(model: ModelProto) -> list[TensorProto]:
    return [site.message for site in walk(model, (TensorProto,)) if isinstance(site.message, TensorProto)]


def _nodes(model: ModelProto) -> list[NodeProto]:
    return [site.message for site in walk(model, (NodeProto,)) if isinstance(site.message, NodeProto)]


def dangling_input(model: ModelProto, rng: random.Random) -> bool:
    """A node input renamed (or added) to a name no graph input, initializer or node defines."""
    nodes = _nodes(model)
    if not nodes:
        return False
    node = rng.choice(nodes)
    name = f"dangling_{rng.randrange(1 << 16)}"
    if node.input and rng.random() < 0.7:
        node.input[rng.randrange(len(node.input))] = name
    else:
        node.input.append(name)
    return True


def orphan_output(model: ModelProto, rng: random.Random) -> bool:
    """A graph output no node produces: an existing output renamed, or a new one added."""
    graphs = _graphs(model)
    if not graphs:
        return False
    graph = rng.choice(graphs)
    name = f"orphan_{rng.randrange(1 << 16)}"
    if graph.output and rng.random() < 0.5:
        graph.output[rng.randrange(len(graph.output))].name = name
    else:
        added = graph.output.add(name=name)
        if graph.output[:-1] and graph.output[0].HasField("type"):
            added.type.CopyFrom(graph.output[0].type)
    return True


def dims_vs_raw_data(model: ModelProto, rng: random.Random) -> bool:
    """A tensor holding ``raw_data`` given dims whose product disagrees with its length
    (a dim changed, added or removed; zero, negative and huge dims included)."""
    tensors = [t for t in _tensors(model) if t.HasField("raw_data")]
    if not tensors:
        return False
    tensor = rng.choice(tensors)
    choice = rng.randrange(3)
    if choice == 0 and tensor.dims:
        tensor.dims[rng.randrange(len(tensor.dims))] = rng.choice((0, -1, 3, 1 << 31, (1 << 62) + 1))
    elif choice == 1 and tensor.dims:
        del tensor.dims[rng.randrange(len(tensor.dims))]
    else:
        tensor.dims.append(rng.choice((2, 7, 1 << 20)))
    return True


def retype_data(model: ModelProto, rng: random.Random) -> bool:
    """A tensor's ``data_type`` changed under its existing data (to another type onnx knows,
    or to one it does not)."""
    tensors = _tensors(model)
    if not tensors:
        return False
    tensor = rng.choice(tensors)
    tensor.data_type = rng.choice([t for t in _DATA_TYPES if t != tensor.data_type])
    return True


def odd_external_data(model: ModelProto, rng: random.Random) -> bool:
    """A tensor said to live in external data, with entries a loader must refuse or bound:
    negative, huge or non-numeric offsets and lengths, absolute or escaping locations,
    duplicate keys."""
    tensors = _tensors(model)
    if not tensors:
        return False
    tensor = rng.choice(tensors)
    tensor.data_location = TensorProto.DataLocation.EXTERNAL
    entries = [
        ("location", rng.choice(("../../etc/passwd", "/etc/passwd", "", "weights.bin", "a" * 300, "dir/"))),
        ("offset", rng.choice(("-1", "7", "4097", "18446744073709551616", "1e3", "abc", ""))),
        ("length", rng.choice(("0", "-5", "1", "9223372036854775807", "x"))),
    ]
    if rng.random() < 0.3:
        entries.append(("offset", "0"))  # a key given twice
    del tensor.external_data[:]
    for key, value in rng.sample(entries, rng.randint(1, len(entries))):
        tensor.external_data.append(StringStringEntryProto(key=key, value=value))
    return True


def deep_nesting(model: ModelProto, rng: random.Random) -> bool:
    """A node holding an ``If`` nested in its own ``then_branch`` many times (up to 40 times:
    past protobuf's recursion limit of 100 messages, three levels a nesting, from 33 on;
    ``mutate`` cuts the chain at the limit unless called with ``well_formed=False``)."""
    if not model.HasField("graph"):
        return False
    depth = rng.choice((3, 10, 30, 33, 34, 40))
    inner = GraphProto(name="leaf")
    for level in range(depth):
        branch = AttributeProto(name="then_branch", type=AttributeProto.AttributeType.GRAPH, g=inner)
        other = AttributeProto(
            name="else_branch", type=AttributeProto.AttributeType.GRAPH, g=GraphProto(name="e")
        )
        node = NodeProto(op_type="If", input=["cond"], output=[f"nest_{level}"], attribute=[branch, other])
        inner = GraphProto(name=f"nest_{level}", node=[node])
    model.graph.node.extend(inner.node)
    return True


def wrong_attribute_type(model: ModelProto, rng: random.Random) -> bool:
    """An attribute whose ``type`` does not match the value it holds (``UNDEFINED`` included;
    a type onnx does not declare comes from the wire moves with ``valid_enums=False``)."""
    attributes = [a for node in _nodes(model) for a in node.attribute]
    if not attributes:
        return False
    attribute = rng.choice(attributes)
    attribute.type = rng.choice([t for t in _ATTRIBUTE_TYPES if t != attribute.type])
    return True


ONNX_MOVES: Final[dict[str, OnnxMove]] = {
    move.__name__: move
    for move in (
        dangling_input,
        orphan_output,
        dims_vs_raw_data,
        retype_data,
        odd_external_data,
        deep_nesting,
        wrong_attribute_type,
    )
}
