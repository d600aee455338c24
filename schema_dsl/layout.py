"""The slotted representation: what every message holds, and the plain looks and stores.

Chosen for decode speed (docs/performance.md, docs/format.md):

* every declared class is two classes: a private *holder* with one ``__slots__`` entry
  per field, and the declared class itself, a subclass that adds nothing but the checked
  ``__setattr__`` (schema_dsl.presence). A decoder fills a holder instance with plain
  attribute stores, the cheapest Python has, then gives it the declared class
  (``o.__class__ = cls``: same layout, no copy);
* ``_has`` is a bit mask of the fields that are *stored*: a present singular field, or
  a repeated field whose container exists. ``HasField`` tests its bit;
* an unset singular scalar reads as its default because every constructor fills all
  scalar slots with their defaults (:func:`blank`): a read is a plain slot read, set or
  not; an unset message or repeated field's slot stays empty (schema_dsl.presence says
  what it reads as);
* what few messages need (unknown fields, pending fields, detached children handed out
  by reads, a detached child's link to its owner, what keeps a decoded root's bytes)
  lives in one slot, ``_x`` (:class:`Extras`), None until needed.

The functions here look and store without checks, conversion or side effects; the
codec's generated code and the message model build on them.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeVar

from schema_dsl.fields import FieldSpec, Kind

if TYPE_CHECKING:
    from schema_dsl.assign import Converter
    from schema_dsl.contract import DeferredTable
    from schema_dsl.message import Message

__all__ = [
    "BLANK_INTERNALS",
    "Extras",
    "MessageSchema",
    "blank",
    "clear_slots",
    "dropped",
    "extras",
    "fresh_maker",
    "slot_value",
    "store",
    "stored_fields",
    "stored_value",
    "stripe",
    "take_state",
    "unset",
]

_M = TypeVar("_M", bound="Message")
# The internal slots every constructor fills, with their empty values (see Message).
BLANK_INTERNALS: Final[tuple[tuple[str, Any], ...]] = (("_span", None), ("_has", 0), ("_x", None))


_new: Final = object.__new__


_osa: Final = object.__setattr__


_odel: Final = object.__delattr__


class Extras:
    """What few messages need, kept in one slot (``_x``, None until needed) so that the
    others pay 8 bytes for it: unknown fields, pending fields (``lazy``), the children
    handed out by reads (``stubs``), a detached child's link to its parent (``owner``),
    and what keeps a decoded root's bytes (``origin``).

    A view of a record (schema_dsl.views) and all its children share one Extras
    (``shared``), whose ``home`` links them to the record: the first write pins it.
    A message that needs Extras of its own gets a copy that keeps the link."""

    __slots__ = ("home", "lazy", "loading", "origin", "owner", "shared", "stubs", "unknown")

    def __init__(self) -> None:
        self.lazy: DeferredTable | None = None
        self.loading: threading.Lock | None = None  # held while a pending field is decoded
        self.origin: Any = None
        self.owner: tuple[Message, str] | None = None
        self.stubs: dict[str, Message] | None = None
        self.unknown: tuple[Any, ...] | list[Any] = ()
        self.home: Any = None  # (container, record, element) of a view's family
        self.shared = False


class Family(Extras):
    """The Extras a view's family shares (schema_dsl.views): only ``home`` is ever set;
    the rest read as an empty Extras's, from the class (made without ``__init__``, as
    a view is made on every read)."""

    __slots__ = ()
    lazy = loading = origin = owner = stubs = None
    unknown: tuple[Any, ...] = ()
    shared = True


def extras(message: Message) -> Extras:
    """``message``'s :class:`Extras`, made now if it had none."""
    found = message._x
    if found is None or found.shared:
        home = None if found is None else found.home
        found = Extras()
        found.home = home  # a view's child keeps its family link (schema_dsl.views)
        _osa(message, "_x", found)
    return found


class MessageSchema:
    """Everything the codec needs to know about one message class.

    ``holder`` is the class whose slots hold the fields (the declared class's base): a
    decoder builds on it and then gives the object the declared class ``cls``.
    ``bit[name]`` is the field's bit in ``_has``; ``defaults`` the scalar fields'
    defaults, which every constructor stores. ``codecs`` is a cache the codec fills with
    what it generates for the class (keyed by its own names); the schema never reads it,
    and it goes away with the class.
    """

    __slots__ = (
        "bit",
        "by_name",
        "by_number",
        "cls",
        "codecs",
        "converters",
        "declared",
        "defaults",
        "field_bits",
        "fields",
        "fresh",
        "full_name",
        "holder",
        "listing",
        "oneofs",
        "singular_bit",
    )

    def __init__(
        self, cls: type[Message], holder: type[Message], full_name: str, fields: tuple[FieldSpec, ...]
    ) -> None:
        self.cls = cls
        self.holder = holder
        self.codecs: dict[str, Any] = {}
        # name -> (converter, other members of its oneof), filled on first assignment
        # (message types resolve late)
        self.converters: dict[str, tuple[Converter, tuple[str, ...]]] = {}
        self.full_name = full_name
        self.declared = fields
        self.fresh: Callable[[], Any] = holder  # replaced by fresh_maker once declared
        self.fields = tuple(sorted(fields, key=lambda f: f.number))
        self.by_name = {f.name: f for f in self.fields}
        self.by_number = {f.number: f for f in self.fields}
        self.bit = {f.name: 1 << i for i, f in enumerate(self.fields)}
        self.field_bits = tuple((f, 1 << i) for i, f in enumerate(self.fields))
        # ListFields' loop: what it needs of each field without an attribute lookup per field
        self.listing = tuple((f, 1 << i, f.name, f.repeated) for i, f in enumerate(self.fields))
        # HasField's one lookup for the names it answers by a bit (not repeated fields, not oneofs)
        self.singular_bit = {f.name: 1 << i for i, f in enumerate(self.fields) if not f.repeated}
        self.defaults = tuple(
            (f.name, f.default) for f in self.fields if not f.repeated and f.kind is not Kind.MESSAGE
        )
        oneofs: dict[str, tuple[FieldSpec, ...]] = {}
        for f in self.fields:
            if f.oneof is not None:
                oneofs[f.oneof] = (*oneofs.get(f.oneof, ()), f)
        self.oneofs = oneofs


def blank(cls: type[_M]) -> _M:
    """A new ``cls`` message with every field unset (the one way to make an empty message:
    its scalar slots must hold their defaults)."""
    o: Any = cls.__schema__.fresh()
    o.__class__ = cls  # on the holder: a plain store
    return o  # type: ignore[no-any-return]


def fresh_maker(holder: type[Message], defaults: tuple[tuple[str, Any], ...]) -> Callable[[], Any]:
    """A function making an empty ``holder`` instance, its slots filled line by line (a
    loop of stores costs about twice as much). Field names are identifiers, checked when
    the class was declared; the values reach the function through its namespace."""
    filled = (*BLANK_INTERNALS, *defaults)
    lines = ["def fresh():", "    o = new(holder)"]
    lines += [f"    o.{name} = values[{i}][1]" for i, (name, _) in enumerate(filled)]
    namespace: dict[str, Any] = {"new": _new, "holder": holder, "values": filled}
    exec("\n".join([*lines, "    return o"]), namespace)
    made: Callable[[], Any] = namespace["fresh"]
    return made


def stored_fields(message: Message) -> Iterator[tuple[FieldSpec, Any]]:
    """``(spec, value)`` of every stored field (present, or a container that exists, even
    empty), in field-number order; pending fields are not loaded (nor seen)."""
    has = message._has
    if has:
        for spec, bit in message.__schema__.field_bits:
            if has & bit:
                yield spec, getattr(message, spec.name)


def clear_slots(message: Message) -> None:
    """Empty every field of ``message`` and its internals (no checks, nothing reported):
    a stored container or child leaves its slot, scalars go back to their defaults."""
    schema = message.__schema__
    has = message._has
    if has:
        for spec, bit in schema.field_bits:
            if has & bit and (spec.repeated or spec.kind is Kind.MESSAGE):
                _odel(message, spec.name)  # stored: its slot is set (``_has``'s meaning)
    for name, value in BLANK_INTERNALS:
        _osa(message, name, value)
    for name, value in schema.defaults:
        _osa(message, name, value)


def take_state(message: Message, fresh: Message) -> None:
    """Make the cleared ``message`` hold what ``fresh`` holds: its slots, presence bits and
    extras (unknown fields, fields still waiting and what keeps their bytes). ``fresh`` is
    a copy no one else holds (schema_dsl.copying): it has no span, owner, stubs or family
    link, and is dropped after."""
    has = fresh._has
    if has:
        for spec, bit in fresh.__schema__.field_bits:
            if not has & bit:
                continue
            try:
                _osa(message, spec.name, object.__getattribute__(fresh, spec.name))
            except AttributeError:  # waiting (its extras say where): read through __getattr__
                with contextlib.suppress(AttributeError):
                    _odel(message, spec.name)  # the default clear_slots put there
    _osa(message, "_has", has)
    _osa(message, "_x", fresh._x)


def dropped(message: Message, name: str, has: int) -> int:
    """For a decoder building ``message`` (its ``_has`` kept aside as ``has``): empty field
    ``name`` (a oneof member another one replaces) and return ``has`` without its bit."""
    spec = message.__schema__.by_name[name]
    if spec.repeated or spec.kind is Kind.MESSAGE:
        with contextlib.suppress(AttributeError):  # already empty
            _odel(message, name)
    else:
        _osa(message, name, spec.default)
    return has & ~message.__schema__.bit[name]


def slot_value(message: Message, name: str, default: Any = None) -> Any:
    """Field ``name``'s slot, or ``default`` when it is empty: a look that never creates
    the empty container or child a read would (nor loads a pending field)."""
    try:
        return object.__getattribute__(message, name)
    except AttributeError:
        return default


def stored_value(message: Message, name: str) -> Any:
    """Field ``name``'s value if it is stored, else None: a look that creates nothing
    (no empty container, no detached child) and loads nothing pending."""
    if message._has & message.__schema__.bit[name]:
        return getattr(message, name)
    return None


def store(message: Message, name: str, value: Any) -> None:
    """Store field ``name`` and mark it stored (no checks, no conversion)."""
    _osa(message, name, value)
    _osa(message, "_has", message._has | message.__schema__.bit[name])


def unset(message: Message, name: str) -> None:
    """Make field ``name`` unset: its slot emptied (or back to the default), its bit cleared."""
    _osa(message, "_has", dropped(message, name, message._has))


# Reading is safe from many threads (docs/guide.md, "Threads"). A read that stores
# something (a pending field's elements, the empty container of an unset repeated field,
# a detached child) publishes it under the message's *stripe*: one of a few locks, picked
# by the message's address, held only for the few stores that publish (never while
# decoding), so that a presence bit set by one thread is never lost to another's
# read-modify-write of ``_has``, and a reader never sees a field neither pending nor stored.
# Decoding a pending field happens under a lock of the message itself (Extras.loading):
# one thread decodes, the others wait for its list; unrelated messages never wait.
_STRIPES: Final = tuple(threading.Lock() for _ in range(64))


def stripe(message: Message) -> threading.Lock:
    """The lock under which reads of ``message`` publish what they store."""
    return _STRIPES[(id(message) >> 4) & 63]
