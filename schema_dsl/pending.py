"""Singular fields left pending: fetched on first read, once, whatever the threads.

An opener may leave a message's singular ``bytes`` field (a remote tensor's ``raw_data``)
as a record of how to fetch it (schema_dsl.contract.DeferredTable, filled by
wirecodec.protobuf.lazy); the message model turns it into the field's value here.
(A repeated field's waiting elements are in its container: schema_dsl.containers.)

**Threads.** Reading is safe from many threads (docs/guide.md, "Threads"). The first
read of a pending field decodes it under a lock of that message (``Extras.loading``):
one thread decodes, the others wait for its list, and unrelated messages never wait.
The list is published under the message's stripe (schema_dsl.layout.stripe) and stored
before its record is dropped, so a reader that finds no record finds the list.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from schema_dsl.layout import Extras, slot_value, store, stripe

if TYPE_CHECKING:
    from schema_dsl.contract import PendingField
    from schema_dsl.message import Message

__all__ = ["carried_pending", "forget_pending", "load_all_pending", "load_pending", "load_pending_except"]


def _loading_lock(x: Extras, message: Message) -> threading.Lock:
    lock = x.loading
    if lock is None:
        with stripe(message):
            lock = x.loading
            if lock is None:
                lock = x.loading = threading.Lock()
    return lock


def load_pending(message: Message, name: str) -> Any:
    """Fetch a pending field, store its value and return it (or what another thread stored)."""
    x = message._x
    if x is None:  # no table: nothing was ever pending (or Clear() ran since)
        return getattr(message, name)
    with _loading_lock(x, message):
        table = x.lazy
        record = None if table is None else table.record(name)
        # Stored already: by an assignment since the decode (the record is stale).
        value = None if table is None or record is None else slot_value(message, name)
        if record is not None and value is None:
            value = record.load()  # a singular bytes field fetched on first read
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
    """Load every pending field (before looking at the fields wholesale)."""
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
