"""Presence: what an unset field reads as, and what a write does to its owner.

* an unset message field's slot stays empty: reading it reaches ``__getattr__``
  (whose presence costs every attribute read of the class CPython's specialization,
  see docs/performance.md, so only classes with a message or repeated field have it:
  their holders derive from :class:`UnsetFallback`), which gives a *detached* empty
  instance, remembered by its owner (in ``_stubs``) so that every read returns the same
  one; the first write into it attaches it (and every detached parent above it) to its
  owner, as in protobuf: every reference a user holds sees every write. ``ClearField``
  and ``Clear`` cut the link (:func:`sever`);
* an unset repeated field reads (through ``__getattr__``) as an empty container stored
  in the owner at once, so all references share it; while the owner is itself
  detached, the first write into the list attaches the owner; a *pending* field
  (schema_dsl.contract) reads as its elements, decoded then;
* a scalar slot is empty only while its field is pending (a ``bytes`` field fetched on
  first read, wirecodec.protobuf.lazy.PendingBytes): the fallback loads it;
* a decoded message may have a *span* (``_span``): every change reports it first
  (:func:`changed`), so the codec re-emits the source bytes only while they hold.

Reads that store something (an empty container, a detached child) publish it under
the message's stripe (schema_dsl.layout.stripe), so concurrent readers all get the
same object and no presence bit is lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from schema_dsl.assign import Converter, FieldNameError, element_converter
from schema_dsl.containers import RepeatedContainer, container_class, new_container
from schema_dsl.contract import report
from schema_dsl.copying import copy_message
from schema_dsl.fields import FieldSpec, Kind
from schema_dsl.layout import Extras, MessageSchema, blank, extras, slot_value, store, stripe, unset
from schema_dsl.pending import load_pending

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "UnsetFallback",
    "attach",
    "before_write",
    "changed",
    "checked_setattr",
    "refused_delattr",
    "assignment_plan",
    "sever",
    "store_valid",
]

_new_list: Final = list.__new__
_MESSAGE: Final = Kind.MESSAGE
_osa: Final = object.__setattr__


def _store_empty_list(obj: Message, spec: FieldSpec) -> RepeatedContainer[Any]:
    """Store an empty container as field ``spec`` of ``obj`` and return it (the first read of the field)."""
    empty: RepeatedContainer[Any] = _new_list(spec._container or container_class(spec))
    x = obj._x
    if x is not None and x.owner is not None:  # detached (see _detached)
        empty._owner = obj  # only a detached owner needs to hear of the first write
    else:
        empty._span = obj._span
        if x is not None and x.home is not None:
            empty._home = x  # a view's container: its first change pins the view (schema_dsl.views)
    # store(), inlined: every first read of an unset list comes here
    name = spec.name
    _osa(obj, name, empty)
    _osa(obj, "_has", obj._has | obj.__schema__.bit[name])
    return empty


def _read_unset_repeated(message: Message, spec: FieldSpec) -> Any:
    """The first read of repeated field ``spec`` whose slot is empty: an empty container
    stored (see :func:`_store_empty_list`). (Elements a decoder left waiting are in the
    field's container already: wirecodec.protobuf.lazy.)"""
    with stripe(message):
        # Another reader may have stored it since this one found the slot empty. The stored
        # bit answers first: looking at an empty slot costs a raised AttributeError.
        stored = message._has & message.__schema__.bit[spec.name]
        value = slot_value(message, spec.name) if stored else None
        if value is None:
            value = _store_empty_list(message, spec)
        return value


def _detached(message: Message) -> bool:
    """Whether ``message`` is an unset field's child not yet attached to its parent (it is
    of its declared class all the same, as protobuf's is: code dispatches on ``type``)."""
    x = message._x
    return x is not None and x.owner is not None


def _stub(obj: Message, spec: FieldSpec) -> Message:
    """The detached empty child an unset message field reads as (the same one every time).

    Reading an unset ``attr.g`` of every attribute is what a walk over a graph does
    (onnxconverter-common reads it of each of 11,541 attributes): the parent's stubs are
    looked up once, and the child gets its link without a second look at its Extras
    (a first read: 2.6 -> 2.4 us; the allocations, five, are what is left)."""
    name = spec.name
    x = obj._x
    if x is not None:
        stubs = x.stubs
        if stubs is not None:
            child = stubs.get(name)
            if child is not None:
                return child
    with stripe(obj):
        x = extras(obj)
        stubs = x.stubs
        if stubs is None:
            stubs = x.stubs = {}
        child = stubs.get(name)
        if child is None:
            child = blank(spec.message_type)
            link = Extras()  # (a new child has no Extras: no view family to keep)
            link.owner = (obj, name)
            _osa(child, "_x", link)
            stubs[name] = child
        return child


def attach(message: Message) -> None:
    """Make a detached child (and its detached ancestors) a present field of its parent."""
    x = message._x
    if x is None or x.owner is None:
        return  # attached already (only a detached child carries a link)
    parent, name = x.owner
    x.owner = None
    attach(parent)
    stubs = parent._stubs
    if stubs is not None and stubs.get(name) is message:
        del stubs[name]
    if not parent._has & parent.__schema__.bit[name]:
        _store_child(parent, name, message)


def changed(message: Message) -> None:
    """Before any change to ``message``: its source bytes, if it has any, no longer hold,
    and a view of a record is pinned (schema_dsl.views)."""
    x = message._x
    if x is not None and x.home is not None:
        x.home[0]._pin(x.home)  # the records container of the view's family (schema_dsl.views)
    span = message._span
    if span is not None:
        report(span)


def before_write(message: Message) -> None:
    """Before any change to ``message``: a detached child becomes a present field of its
    parent, and the message's source bytes, if it has any, no longer hold."""
    x = message._x
    if x is not None and x.owner is not None:
        attach(message)
    changed(message)


def _store_child(parent: Message, name: str, child: Message) -> None:
    """Make ``child`` itself field ``name`` of ``parent`` (an assignment would store a copy)."""
    changed(parent)
    _, others = assignment_plan(parent.__schema__, name, type(parent))
    for other in others:
        unset(parent, other)
    store(parent, name, child)


def sever(message: Message, name: str | None) -> None:
    """Forget the stubs handed out for field ``name`` (all fields when None): later writes
    into them no longer reach ``message``, as after protobuf's ClearField/Clear."""
    stubs = message._stubs
    if not stubs:
        return
    for field_name in [name] if name is not None else list(stubs):
        child = stubs.pop(field_name, None)
        if child is not None:
            extras(child).owner = None


def assignment_plan(schema: MessageSchema, name: str, cls: type) -> tuple[Converter, tuple[str, ...]]:
    """How field ``name`` is assigned (worked out once per field and kept in the schema)."""
    plan = schema.converters.get(name)
    if plan is None:
        plan = schema.converters[name] = _assignment(schema, name, cls)
    return plan


def _assignment(schema: MessageSchema, name: str, cls: type) -> tuple[Converter, tuple[str, ...]]:
    """How field ``name`` is assigned: its converter and the oneof members it clears."""
    spec = schema.by_name.get(name)
    if spec is None:
        raise FieldNameError(f'Protocol message {cls.__qualname__} has no "{name}" field.')
    others = () if spec.oneof is None else tuple(o.name for o in schema.oneofs[spec.oneof] if o is not spec)
    return _converter(spec), others


def _converter(spec: FieldSpec) -> Converter:
    """What an assignment to ``spec`` stores: for a repeated field, a new container of the
    iterable's elements. Messages are copied, into a container as by ``extend``, into a
    singular field as by protobuf's constructor (no two fields share one)."""
    check = element_converter(spec)
    if not spec.repeated:
        if spec.kind is Kind.MESSAGE:
            return lambda value: copy_message(check(value))
        return check

    def convert(values: Any) -> RepeatedContainer[Any]:
        container = new_container(spec)
        container.extend(values)
        return container

    return convert


def refused_delattr(self: Message, name: str) -> None:
    """``del message.field``: refused, as protobuf does (a field is cleared with
    ClearField; an empty slot would be a field neither set nor unset)."""
    raise AttributeError("Cannot delete field attribute (use ClearField)")


def checked_setattr(self: Message, name: str, value: Any) -> None:
    """Assign a field, checked and converted as protobuf does (see schema_dsl.assign).

    A name that is not a field is an AttributeError; setting a oneof member clears
    the others; the first write into a detached child attaches it to its parent.
    """
    schema = self.__schema__
    plan = schema.converters.get(name)
    if plan is None:
        plan = assignment_plan(schema, name, type(self))
    convert, others = plan
    value = convert(value)
    before_write(self)
    for other in others:
        unset(self, other)
    store(self, name, value)


def store_valid(message: Message, name: str, value: Any) -> None:
    """Set scalar field ``name`` to ``value``, already valid (read from a message of the
    same type): an assignment without the conversion, so what a decoder kept (a string
    of bytes that are not UTF-8, held as surrogate escapes) is merged as it is."""
    _, others = assignment_plan(message.__schema__, name, type(message))
    before_write(message)
    for other in others:
        unset(message, other)
    store(message, name, value)


class UnsetFallback:
    """What an empty slot reads as: the holder of every class with a message or repeated
    field derives from this too (scalar slots are never empty, see :func:`blank`)."""

    __slots__ = ()

    if not TYPE_CHECKING:  # (a __getattr__ would let the type checker accept any attribute)

        def __getattr__(self, name: str) -> Any:
            # Reached only for an empty slot: an unset repeated or message field.
            spec = None if name.startswith("_") else type(self).__schema__.by_name.get(name)
            if spec is not None:
                if spec.repeated:
                    return _read_unset_repeated(self, spec)
                if spec.kind is _MESSAGE:
                    return _stub(self, spec)
                table = self._lazy
                if table is not None and name in table:
                    return load_pending(self, name)  # a bytes field fetched on first read
            raise AttributeError(f"{type(self).__qualname__!r} object has no attribute {name!r}")
