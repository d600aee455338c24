"""Copies and pickles of messages.

A copy is an ordinary (attached) message: a detached child's link to its parent
belongs to the original alone, and so do the span and what keeps a decoded root's
bytes (a copy's changes would go unreported). :func:`copy_message` is protobuf's copy
(``copy.copy``, ``CopyFrom``, what a repeated field stores on append); a deep copy and
a pickle also turn views of a buffer into bytes; :func:`shallow_copy` shares the fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from schema_dsl.containers import RepeatedContainer, container_class, list_extend, new_container
from schema_dsl.contract import installed_codec, the_codec
from schema_dsl.fields import Kind
from schema_dsl.layout import BLANK_INTERNALS, MessageSchema, blank, extras, store, stored_fields
from schema_dsl.pending import carried_pending, load_pending, load_pending_except

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = ["copy_message", "deep_value", "rebuild", "shallow_copy", "state_of"]

_M = TypeVar("_M", bound="Message")
_UNKNOWN: Final = "_unknown"
_new_list: Final = list.__new__


def _is_message(value: Any) -> bool:
    return isinstance(getattr(type(value), "__schema__", None), MessageSchema)


def state_of(message: Message) -> Iterator[tuple[str, Any]]:
    """What a copy or a pickle keeps: the stored fields by name, and the unknown records.
    (Links to an owner and to stubs stay behind, and so do the span and what keeps its
    bytes: a copy's changes would not be reported.)"""
    message._load_lazy()
    for spec, value in stored_fields(message):
        yield spec.name, value
    if message._unknown:
        yield _UNKNOWN, message._unknown


def rebuild(cls: type[Message], state: dict[str, Any], convert: bool = True) -> Message:
    """A new ``cls`` message holding ``state`` (field name -> value, and ``_unknown``:
    the format pickles have always had); containers are made anew unless ``convert`` is off."""
    message = blank(cls)
    schema = cls.__schema__
    for key, value in state.items():
        if key == _UNKNOWN:
            extras(message).unknown = list(value)
            continue
        spec = schema.by_name[key]
        if convert and spec.repeated:
            value = new_container(spec, value)
        store(message, key, value)
    return message


def deep_value(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, memoryview):
        return value.tobytes()
    if isinstance(value, RepeatedContainer):
        return new_container(value._spec, [deep_value(v, memo) for v in value])
    if isinstance(value, list):
        return [deep_value(v, memo) for v in value]
    if _is_message(value):
        return value.__deepcopy__(memo)
    return value


def copy_message(message: Message) -> Message:
    """An independent copy of ``message`` (what a repeated field stores on append): its
    messages and lists are new, its immutable values and ``bytes`` views are shared. A
    field waiting to be fetched (a tensor's bytes by URL) waits in the copy too: copying
    fetches nothing."""
    x = message._x
    if message._span is None and (x is None or not x.lazy):
        # A built message (the copies make_graph, make_model and extend make of trees of
        # them): slot by slot, without asking the codec for source bytes it cannot have.
        copier = _COPIERS.get(message.__schema__)
        copied: Message = (copier or _copier(message.__schema__))(message)
        return copied
    codec = installed_codec()
    fast = None if codec is None else codec.copy_of(message)
    if fast is not None:
        return fast  # decoded again from its own unchanged bytes: one pass of generated code
    if x is None or not x.lazy:
        return _copy_slots(message)  # nothing waits: slot by slot (changed since decoded)
    carried = carried_pending(message)
    if carried:
        load_pending_except(message, frozenset(name for name, _ in carried))
    state: dict[str, Any] = {}
    for key, value in _stored_state(message) if carried else state_of(message):
        if isinstance(value, RepeatedContainer) and value._spec.kind is Kind.MESSAGE:
            value = [copy_message(v) for v in value]
        elif _is_message(value):
            value = copy_message(value)
        state[key] = value
    copy = rebuild(message.__schema__.cls, state)
    for name, record in carried:
        the_codec().carry_pending(copy, name, record)
    return copy


# A function per class copying a message's stored slots, made on the first copy of the
# class (straight-line code: a loop over the fields costs about twice as much).
_COPIERS: Final[dict[MessageSchema, Callable[[Any], Any]]] = {}


def _copier(schema: MessageSchema) -> Callable[[Any], Any]:
    found = _COPIERS.get(schema)
    if found is not None:
        return found
    names: dict[str, Any] = {"holder": schema.holder, "cls": schema.cls, "new": _new_list, "add": list_extend}
    names.update(copy=copy_message, extras=extras, new_object=object.__new__)
    # Every slot stored once: a scalar slot always holds a value (its default when unset,
    # schema_dsl.layout), so it is copied as it is, set or not, with no branch; a message
    # or list slot is filled only when stored.
    lines = ["def copy_slots(o):", "    c = new_object(holder)", "    has = o._has"]
    lines += [f"    c.{name} = {value!r}" for name, value in BLANK_INTERNALS if name != "_has"]
    for i, (spec, bit) in enumerate(schema.field_bits):
        name = spec.name  # an identifier: checked when the class was declared
        if spec.repeated:
            names[f"L{i}"] = container_class(spec)
            items = f"[copy(v) for v in o.{name}]" if spec.kind is Kind.MESSAGE else f"o.{name}"
            lines += [f"    if has & {bit}:", f"        v = new(L{i})", f"        add(v, {items})"]
            lines += [f"        c.{name} = v"]
        elif spec.kind is Kind.MESSAGE:
            lines += [f"    if has & {bit}:", f"        c.{name} = copy(o.{name})"]
        else:
            lines += [f"    c.{name} = o.{name}"]
    lines += [
        "    c._has = has",
        "    c.__class__ = cls",  # on the holder: plain stores until here
        "    x = o._x",
        "    if x is not None and x.unknown:",
        "        extras(c).unknown = list(x.unknown)",
        "    return c",
    ]
    exec("\n".join(lines), names)
    made: Callable[[Any], Any] = names["copy_slots"]
    _COPIERS[schema] = made
    return made


def _copy_slots(message: Message) -> Message:
    """:func:`copy_message` of a message with no field waiting: its stored slots copied
    by the class's copier (the same values :func:`rebuild` would store)."""
    copied: Message = _copier(message.__schema__)(message)
    return copied


def _stored_state(message: Message) -> Iterator[tuple[str, Any]]:
    """:func:`state_of` without loading anything: what is stored (carried fields are not)."""
    has = message._has
    table = message._lazy
    for spec, bit in message.__schema__.field_bits:
        if has & bit and not (table and table.record(spec.name) is not None):
            yield spec.name, getattr(message, spec.name)
    if message._unknown:
        yield _UNKNOWN, message._unknown


def shallow_copy(message: _M, leave_out: frozenset[str] = frozenset()) -> _M:
    """A new message sharing ``message``'s containers and sub-messages (for code that
    replaces some fields of a large message and leaves the rest alone). Fields named in
    ``leave_out`` are not copied, and not loaded if they wait (a tensor's ``raw_data``
    fetched from a URL is not fetched to be dropped)."""
    if not leave_out:
        return cast(_M, rebuild(message.__schema__.cls, dict(state_of(message)), convert=False))
    table = message._lazy
    if table is not None:
        for spec in message.__schema__.fields:
            if spec.name not in leave_out and table.record(spec.name) is not None:
                load_pending(message, spec.name)
    has = message._has
    state: dict[str, Any] = {
        spec.name: getattr(message, spec.name)
        for spec, bit in message.__schema__.field_bits
        if has & bit and spec.name not in leave_out
    }
    if message._unknown:
        state[_UNKNOWN] = message._unknown
    return cast(_M, rebuild(message.__schema__.cls, state, convert=False))
