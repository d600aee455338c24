"""The one walk over the tensors of an ONNX model, for loading, saving and checking.

:func:`tensors` visits every ``TensorProto`` a model, graph or function holds —
initializers, attribute tensors, sparse tensors, subgraphs, functions, training
graphs — in one fixed order, with switches for the subsets a caller needs (saving moves
exactly the tensors ``onnx.save`` moves) and a *peek* mode that looks at elements still
waiting to be decoded without keeping them (wirecodec.protobuf.lazy).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Iterator
from typing import Any

from schema_dsl import Kind
from schema_dsl.message import Message
from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    SparseTensorProto,
    TensorProto,
)
from wirecodec.protobuf import lazy

__all__ = ["iter_tensors", "substitute", "tensors"]


def tensors(
    message: Message,
    *,
    attributes: bool = True,
    sparse: bool = True,
    functions: bool = True,
    training: bool = True,
    peek: bool = False,
    needles: tuple[bytes, ...] = (),
) -> Iterator[TensorProto]:
    """The tensors in ``message`` (a model, graph, node, function, attribute or tensor).

    Order: a graph's initializers, then its sparse initializers, then its nodes (each
    attribute's ``t``, ``tensors``, sparse tensors, then subgraphs ``g`` and
    ``graphs``); a model's graph, then its functions, then its training graphs.
    ``attributes=False`` leaves out attribute tensors (subgraph initializers stay),
    ``sparse=False`` sparse tensors, ``functions=False`` functions, ``training=False``
    training graphs.

    ``peek=True`` is for looking only: elements still waiting to be decoded are decoded
    one at a time and dropped instead of loaded, so a model read lazily stays small;
    waiting elements whose bytes contain none of ``needles`` are skipped. Tensors it
    yields may then be temporary copies.
    """

    def each(owner: Message, name: str) -> Iterable[Any]:
        if peek:
            return lazy.peek(owner, name, needles)
        return lazy.elements(owner, name)

    def walk(item: Message) -> Iterator[TensorProto]:
        if isinstance(item, TensorProto):
            yield item
        elif isinstance(item, ModelProto):
            yield from walk(item.graph)
            if functions:
                for function in each(item, "functions"):
                    yield from walk(function)
            if training:
                for info in each(item, "training_info"):
                    yield from walk(info.initialization)
                    yield from walk(info.algorithm)
        elif isinstance(item, GraphProto):
            yield from each(item, "initializer")
            if sparse:
                for tensor in each(item, "sparse_initializer"):
                    yield from walk(tensor)
            for node in each(item, "node"):
                yield from walk(node)
        elif isinstance(item, NodeProto):
            for attribute in each(item, "attribute"):
                yield from walk(attribute)
        elif isinstance(item, FunctionProto):
            for attribute in each(item, "attribute_proto"):
                yield from walk(attribute)
            for node in each(item, "node"):
                yield from walk(node)
        elif isinstance(item, AttributeProto):
            if attributes:
                if item.HasField("t"):
                    yield item.t
                yield from each(item, "tensors")
            if attributes and sparse:
                if item.HasField("sparse_tensor"):
                    yield from walk(item.sparse_tensor)
                for tensor in each(item, "sparse_tensors"):
                    yield from walk(tensor)
            if item.HasField("g"):
                yield from walk(item.g)
            for graph in each(item, "graphs"):
                yield from walk(graph)
        elif isinstance(item, SparseTensorProto):
            if item.HasField("values"):
                yield item.values
            if item.HasField("indices"):
                yield item.indices

    return walk(message)


def iter_tensors(
    message: Message, *, peek: bool = False, needles: tuple[bytes, ...] = ()
) -> Iterator[TensorProto]:
    """Every TensorProto in a model or graph: initializers, attributes, subgraphs, functions."""
    return tensors(message, peek=peek, needles=needles)


def substitute(message: Message, replacements: dict[int, TensorProto]) -> Message:
    """``message`` with the tensors in ``replacements`` (by ``id``) swapped in.

    Only the messages on the way to a replaced tensor are copied (shallowly); the
    caller's model is never changed. Saving with external data and writing the zip
    container use it to point tensors at their new homes.
    """
    if not replacements:
        return message
    found = replacements.get(id(message))
    if found is not None:
        return found
    changed: dict[str, Any] = {}
    for spec, value in message.ListFields():
        if spec.kind is not Kind.MESSAGE:
            continue
        if spec.repeated:
            items = [substitute(item, replacements) for item in value]
            if any(new is not old for new, old in zip(items, value, strict=True)):
                changed[spec.name] = items
        else:
            item = substitute(value, replacements)
            if item is not value:
                changed[spec.name] = item
    if not changed:
        return message
    clone = copy.copy(message)
    for name, value in changed.items():
        setattr(clone, name, value)
    return clone
