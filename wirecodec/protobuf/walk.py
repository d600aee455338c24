"""The one walk over a message tree: every sub-message, with the field path that leads to it.

The walk reads the schema, so no field is forgotten: it descends through every message
field (singular and repeated) of every class, in field-number order unless the caller
gives an order, and only into fields whose type can hold one of the classes asked for.
A walk for tensors therefore never enters a ``TypeProto``, and a new message field that
can hold a tensor is walked the day it is declared.

>>> from schema_dsl.onnx import ModelProto, TensorProto
>>> from wirecodec.examples.build_mlp import build
>>> [site.path for site in walk(build(), (TensorProto,))][:3]
['', 'graph', 'graph.node[0]']

Paths are what :mod:`wirecodec.protobuf.fieldpath` parses: ``graph.node[3].attribute[0].t``.

Repeated fields still waiting to be decoded (lazy elements) are loaded when walked; with
``peek=True`` they are decoded one at a time and dropped instead, so a look at a model
read lazily leaves it small (the messages yielded may then be temporary copies).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple

from schema_dsl import FieldSpec, Kind, Message
from wirecodec.protobuf import lazy

__all__ = ["Site", "fields_toward", "walk"]


class Site(NamedTuple):
    """A message met by :func:`walk`: its path, itself, and the field of its parent holding it.

    ``field`` is None for the message the walk started from; ``parent`` is the message
    whose ``field`` holds it.
    """

    path: str
    message: Message
    field: str | None
    parent: Message | None


Order = Mapping[type[Message], tuple[str, ...]]
"""Per class, the field names to visit first, in this order (the others follow by number)."""


@functools.cache
def _reachable(cls: type[Message], targets: tuple[type[Message], ...]) -> bool:
    """Whether a message of class ``cls`` can hold (at any depth) one of ``targets``, itself included."""
    seen: set[type[Message]] = set()
    stack = [cls]
    while stack:
        current = stack.pop()
        if issubclass(current, targets):
            return True
        if current in seen:
            continue
        seen.add(current)
        stack.extend(spec.message_type for spec in _message_fields(current))
    return False


def _message_fields(cls: type[Message]) -> tuple[FieldSpec, ...]:
    return tuple(spec for spec in cls.__schema__.fields if spec.kind is Kind.MESSAGE)


@functools.cache
def _ordered_fields(
    cls: type[Message], targets: tuple[type[Message], ...] | None, first: tuple[str, ...]
) -> tuple[FieldSpec, ...]:
    specs = [
        spec
        for spec in sorted(_message_fields(cls), key=lambda spec: spec.number)
        if targets is None or _reachable(spec.message_type, targets)
    ]
    rank = {name: i for i, name in enumerate(first)}
    return tuple(sorted(specs, key=lambda spec: rank.get(spec.name, len(rank))))


def fields_toward(cls: type[Message], targets: tuple[type[Message], ...] | None) -> tuple[FieldSpec, ...]:
    """The message fields of ``cls`` a walk for ``targets`` descends into (all of them for None)."""
    return _ordered_fields(cls, targets, ())


def walk(
    message: Message,
    targets: tuple[type[Message], ...] | None = None,
    *,
    order: Order | None = None,
    prune: Callable[[Site], bool] | None = None,
    skip: frozenset[tuple[type[Message], str]] = frozenset(),
    peek: bool = False,
    needles: tuple[bytes, ...] = (),
    paths: bool = True,
    path: str = "",
) -> Iterator[Site]:
    """Every message under ``message`` (itself first), depth first, each with its field path.

    ``targets`` limits the walk to the fields through which a message of one of those
    classes can be reached (the messages on the way are yielded too; filter by type).
    ``order`` puts some fields of a class first. ``prune(site)`` true skips what lies
    below that site (the site itself is still yielded); ``skip`` names fields, as
    ``(class, field name)``, never to descend into. ``paths=False`` leaves every path
    empty, for walks that do not need them (a little faster). ``peek`` reads waiting elements
    without keeping them; with ``needles`` it also skips waiting elements whose bytes hold
    none of them — the indices in later paths of that field are then not meaningful,
    so use needles only where paths are not needed.
    """
    firsts = order or {}
    plans: dict[type[Message], tuple[tuple[tuple[str, bool, int], ...], int]] = {}

    def plan(cls: type[Message]) -> tuple[tuple[tuple[str, bool, int], ...], int]:
        """The fields of ``cls`` to descend into, as (name, repeated, presence bit), and
        their bits together; computed once per walk."""
        found = plans.get(cls)
        if found is None:
            declared = _declared(cls)
            specs = _ordered_fields(declared, targets, firsts.get(declared, ()))
            bits = declared.__schema__.bit
            kept = tuple(
                (spec.name, spec.repeated, bits[spec.name])
                for spec in specs
                if (declared, spec.name) not in skip
            )
            found = plans[cls] = kept, functools.reduce(operator.or_, (bit for _, _, bit in kept), 0)
        return found

    def children(site: Site, fields: tuple[tuple[str, bool, int], ...]) -> Iterator[Site]:
        current = site.message
        # Paths as fieldpath.join makes them, inlined: a call per site is this loop's cost.
        prefix = f"{site.path}." if paths and site.path else ""
        for name, repeated, bit in fields:
            if repeated:
                items = lazy.peek(current, name, needles) if peek else lazy.elements(current, name)
                for i, item in enumerate(items):
                    yield Site(f"{prefix}{name}[{i}]" if paths else "", item, name, current)
            elif current._has & bit:  # HasField of a singular message field, in one look
                yield Site(f"{prefix}{name}" if paths else "", getattr(current, name), name, current)

    def visit(root: Site) -> Iterator[Site]:
        # An explicit stack rather than nested generators: a deep graph costs no recursion,
        # and a message with nothing to descend into costs no generator. A message is entered
        # when a field toward the targets has its presence bit (``mask``): a field whose
        # elements wait has it too (its container holds them: schema_dsl.containers).
        yield root
        stack: list[Iterator[Site]] = []
        fields, mask = plan(type(root.message))
        if fields and not (prune is not None and prune(root)) and root.message._has & mask:
            stack.append(children(root, fields))
        while stack:
            site = next(stack[-1], None)
            if site is None:
                stack.pop()
                continue
            yield site
            fields, mask = plan(type(site.message))
            if fields and not (prune is not None and prune(site)) and site.message._has & mask:
                stack.append(children(site, fields))

    return visit(Site(path, message, None, None))


def _declared(cls: type[Message]) -> type[Message]:
    """The declared class of a message (an unset field's detached child has a subclass)."""
    declared: type[Message] = cls.__schema__.cls
    return declared
