"""The contract between the message model and the codec: every call the schema layer
makes upward, and where the codec plugs in.

The schema layer knows nothing about bytes, yet ``SerializeToString`` must encode, a
change to a decoded message must tell the codec that its source bytes no longer hold,
and a field the decoder left pending must become its elements on first read. Each of
these is a call from here into something the codec (``wirecodec``) installs or leaves
on a message when it is imported or decodes:

* :func:`install_codec`: the :class:`Codec` behind protobuf's serialization methods;
* :func:`install_receiver`: what hears :func:`report` (a span: "my source bytes are my
  encoding", wirecodec.protobuf.origin) before any change to a decoded message or to
  one of its repeated fields;
* the :class:`DeferredTable` a decoder leaves in a message's ``_lazy``, holding one
  :class:`PendingField` per pending field (wirecodec.protobuf.lazy): the
  model calls only ``in``, ``record``, ``take``, ``first_name`` and ``load``, through
  :func:`load_pending` and :func:`load_all_pending`.

**Threads.** Reading is safe from many threads (docs/guide.md, "Threads"). The first
read of a pending field decodes it under a lock of that message (``Extras.loading``):
one thread decodes, the others wait for its list, and unrelated messages never wait.
The list is published under the message's stripe (schema_dsl.layout.stripe) and stored
before its record is dropped, so a reader that finds no record finds the list.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from schema_dsl.layout import Extras, slot_value, store, stripe

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "Codec",
    "DeferredTable",
    "PendingField",
    "forget_pending",
    "install_codec",
    "install_receiver",
    "carried_pending",
    "load_all_pending",
    "load_pending_except",
    "load_pending",
    "report",
    "the_codec",
]


# -- serialization --------------------------------------------------------------------------


class Codec(Protocol):
    """What protobuf's serialization methods on a message need from a codec.

    The schema layer knows nothing about bytes: the codec (``wirecodec``) installs itself
    with :func:`install_codec` when it is imported, and ``SerializeToString`` and its
    siblings call it.
    """

    def encode(self, message: Message) -> bytes: ...

    def byte_size(self, message: Message) -> int: ...

    def decode(self, cls: type[Message], data: Any) -> Message: ...

    def carry_pending(self, copy: Message, name: str, record: Any) -> None:
        """Make field ``name`` of the fresh ``copy`` wait on ``record``, as it waits in the
        message copied (a record that says ``carried``: see :func:`carried_pending`)."""
        ...


_codec: Codec | None = None


def install_codec(codec: Codec) -> None:
    """Make ``codec`` the one protobuf's serialization methods use (wirecodec calls this)."""
    global _codec
    _codec = codec


def the_codec() -> Codec:
    if _codec is None:
        raise RuntimeError("no codec is installed for schema_dsl messages: import wirecodec first")
    return _codec


# -- spans: a decoded message about to change -------------------------------------------------


def _nobody(span: int) -> None:
    pass


_receiver: Callable[[int], None] = _nobody


def install_receiver(receiver: Callable[[int], None]) -> None:
    """Make ``receiver`` hear every span reported (wirecodec installs this on import)."""
    global _receiver
    _receiver = receiver


def report(span: int) -> None:
    """The message with this span (or a repeated field of it) is about to change.
    Until a codec installs its receiver, there is nothing to tell."""
    _receiver(span)


# -- pending fields ---------------------------------------------------------------------------


class PendingField(Protocol):
    """What a deferred field's record offers the message model: ``load()`` gives a
    repeated field's elements, or a singular field's value."""

    def load(self) -> Any: ...


class DeferredTable(Protocol):
    """The fields a decoder left pending on a message (implemented by the codec)."""

    def __contains__(self, name: object, /) -> bool: ...

    def __len__(self) -> int: ...

    def record(self, name: str) -> PendingField | None: ...

    def take(self, name: str) -> PendingField | None: ...

    def first_name(self) -> str | None: ...


def _loading_lock(x: Extras, message: Message) -> threading.Lock:
    lock = x.loading
    if lock is None:
        with stripe(message):
            lock = x.loading
            if lock is None:
                lock = x.loading = threading.Lock()
    return lock


def load_pending(message: Message, name: str) -> Any:
    """Decode a pending field, store its list and return it (or what another thread stored)."""
    x = message._x
    if x is None:  # no table: nothing was ever pending (or Clear() ran since)
        return getattr(message, name)
    with _loading_lock(x, message):
        table = x.lazy
        record = None if table is None else table.record(name)
        # Stored already: by an assignment since the decode (the record is stale).
        value = None if table is None or record is None else slot_value(message, name)
        if record is not None and value is None:
            from schema_dsl.containers import container_class, new_container  # imports this module

            loaded = record.load()
            spec = message.__schema__.by_name[name]
            if not spec.repeated:
                value = loaded  # a singular bytes field fetched on first read
            else:
                value = loaded if type(loaded) is container_class(spec) else new_container(spec, loaded)
                value._span = message._span
        if table is not None and record is not None:
            with stripe(message):
                # Stored before the record goes: a reader finding no record finds the list.
                store(message, name, value)
                table.take(name)
                if not table:
                    x.lazy = None
    # (Outside the lock: a read of a field that is no longer pending may store an empty list.)
    return getattr(message, name) if value is None else value


def carried_pending(message: Message) -> list[tuple[str, PendingField]]:
    """The pending fields of ``message`` a copy takes as they are (their record says
    ``carried``: a singular field whose value is fetched on first read), by name."""
    table = message._lazy
    if not table:
        return []
    found = []
    for spec in message.__schema__.fields:
        record = table.record(spec.name)
        if record is not None and getattr(record, "carried", False):
            found.append((spec.name, record))
    return found


def load_pending_except(message: Message, names: frozenset[str]) -> None:
    """Decode every pending field but those in ``names`` (a copy's: they are carried)."""
    for spec in message.__schema__.fields:
        table = message._lazy
        if not table:
            return
        if spec.name not in names and table.record(spec.name) is not None:
            load_pending(message, spec.name)


def load_all_pending(message: Message) -> None:
    """Decode every pending repeated field (before looking at the fields wholesale)."""
    while True:
        table = message._lazy
        name = None if table is None else table.first_name()
        if name is None:
            return
        load_pending(message, name)


def forget_pending(message: Message, name: str) -> None:
    """Drop field ``name``'s pending record (ClearField: a write, under the caller's lock)."""
    x = message._x
    table = None if x is None else x.lazy
    if x is not None and table is not None:
        table.take(name)
        if not table:
            x.lazy = None
