"""The tensors of an ONNX model: a filter over the one schema-driven walk (wirecodec.protobuf.walk).

:func:`tensor_sites` visits every ``TensorProto`` a model, graph or function holds —
initializers, attribute tensors (Constant values included), sparse tensors, subgraphs,
functions, training graphs — in one fixed order (:data:`ORDER`), each with its field
path, with switches for the subsets a caller needs (saving moves exactly the tensors
``onnx.save`` moves) and a *peek* mode that looks at elements still waiting to be
decoded without keeping them (wirecodec.protobuf.lazy).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, Generic, TypeVar

from schema_dsl import Kind
from schema_dsl.message import Message, shallow_copy
from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    TensorProto,
)
from wirecodec.protobuf.walk import Site, walk

__all__ = ["ORDER", "ByIdentity", "iter_tensors", "substitute", "tensor_sites", "tensors"]

_V = TypeVar("_V")


class ByIdentity(Generic[_V]):
    """Values filed under the identity of a message found in one walk, to be looked up when
    a later walk meets it again. Each message is held with its value, so its ``id`` is never
    another's while the map lives, and a long graph's element read in the first walk stays
    the element's one live view (schema_dsl.views): the second walk meets the same object."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: dict[int, tuple[Message, _V]] = {}

    def __setitem__(self, message: Message, value: _V) -> None:
        self._items[id(message)] = (message, value)

    def get(self, message: Message) -> _V | None:
        found = self._items.get(id(message))
        return None if found is None or found[0] is not message else found[1]

    def __len__(self) -> int:
        return len(self._items)


# The order tensors are met in (save lays external data out in it): a graph's initializers,
# sparse initializers, then its nodes; an attribute's tensors before its subgraphs; a
# model's graph, functions, then training graphs. Fields not named follow by number.
ORDER: Final[dict[type[Message], tuple[str, ...]]] = {
    ModelProto: ("graph", "functions", "training_info"),
    GraphProto: ("initializer", "sparse_initializer", "node"),
    FunctionProto: ("attribute_proto", "node"),
    AttributeProto: ("t", "tensors", "sparse_tensor", "sparse_tensors", "g", "graphs"),
}
Fields = frozenset[tuple[type[Message], str]]
_ATTRIBUTE_TENSORS: Final[Fields] = frozenset({(AttributeProto, "t"), (AttributeProto, "tensors")})
_SPARSE: Final[Fields] = frozenset(
    {
        (GraphProto, "sparse_initializer"),
        (AttributeProto, "sparse_tensor"),
        (AttributeProto, "sparse_tensors"),
    }
)
_ATTRIBUTE_SPARSE: Final[Fields] = frozenset(
    {(AttributeProto, "sparse_tensor"), (AttributeProto, "sparse_tensors")}
)


def tensor_sites(
    message: Message,
    *,
    attributes: bool = True,
    sparse: bool = True,
    functions: bool = True,
    training: bool = True,
    peek: bool = False,
    needles: tuple[bytes, ...] = (),
    paths: bool = True,
) -> Iterator[Site]:
    """The sites of the tensors in ``message`` (a model, graph, node, function, attribute or
    tensor), each with its field path (``graph.node[3].attribute[0].t``).

    ``attributes=False`` leaves out attribute tensors (subgraph initializers stay),
    ``sparse=False`` sparse tensors, ``functions=False`` functions, ``training=False``
    training graphs. ``peek`` and ``needles`` as in :func:`wirecodec.protobuf.walk.walk`.
    """
    skip: Fields = frozenset()
    if not attributes:
        skip |= _ATTRIBUTE_TENSORS | _ATTRIBUTE_SPARSE
    if not sparse:
        skip |= _SPARSE
    if not functions:
        skip |= {(ModelProto, "functions")}
    if not training:
        skip |= {(ModelProto, "training_info")}
    for site in walk(
        message, (TensorProto,), order=ORDER, skip=skip, peek=peek, needles=needles, paths=paths
    ):
        if isinstance(site.message, TensorProto):
            yield site


def tensors(message: Message, **switches: Any) -> Iterator[TensorProto]:
    """The tensors in ``message``, in :data:`ORDER`; ``switches`` as for :func:`tensor_sites`.

    ``peek=True`` is for looking only: elements still waiting to be decoded are decoded
    one at a time and dropped instead of loaded, so a model read lazily stays small;
    waiting elements whose bytes contain none of ``needles`` are skipped. Tensors it
    yields may then be temporary copies.
    """
    for site in tensor_sites(message, paths=False, **switches):
        yield site.message  # type: ignore[misc]


def iter_tensors(
    message: Message, *, peek: bool = False, needles: tuple[bytes, ...] = ()
) -> Iterator[TensorProto]:
    """Every TensorProto in a model or graph: initializers, attributes, subgraphs, functions."""
    return tensors(message, peek=peek, needles=needles)


def substitute(message: Message, replacements: ByIdentity[TensorProto]) -> Message:
    """``message`` with the tensors in ``replacements`` swapped in.

    Only the messages on the way to a replaced tensor are copied (shallowly); the
    caller's model is never changed. Saving with external data and writing the zip
    container use it to point tensors at their new homes.
    """
    if not replacements:
        return message
    found = replacements.get(message)
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
    clone = shallow_copy(message)
    for name, value in changed.items():
        setattr(clone, name, value)
    return clone
