"""Records and views: decoded elements the garbage collector never has to visit.

A repeated message field filled by a *records* decoder (wirecodec.protobuf.records) is a
:func:`record_container_class` container whose list items are **records**: tuples of the
element's field values (nested records as tuples, repeated scalars as tuples), which
CPython stops tracking the first time a young collection sees them. An element that
could not be kept as a record (a subgraph inside it, unknown fields, bytes that are not
canonical) is an ordinary message among them.

**Reading** an element hands out a **view**: an ordinary message of the declared class,
built from the record on each read and kept by nobody but the reader, so it dies with
the expression that read it. Everything a message does, a view does (equality,
``ListFields``, copies, text format, encoding, re-emit of unchanged bytes: a view carries
its record's span). Every object built for one view (the element, its children, their
containers) shares one *family link*: the shared :class:`~schema_dsl.layout.Extras` of
the messages (``home``) and the containers' ``_home``, both ``(container, record,
weak reference to the element)``.

**The first write** to anything in a family *pins* the element: it becomes a full
message of its container, found through the record itself (``_pins``, keyed by the
record's identity, so inserts and deletes of other elements do not confuse it), and
every later read of that record returns it. When the written object's element is gone
already (``graph.node[3].attribute[0].i = 5`` drops the node at once), the element is
built again from its record and the written object put in place of its twin (the
object of the same span). Two views of one record both alive, both written, cannot
both be the element: the second write raises :class:`StaleViewError` (protobuf's
wrappers would be the same object there; ``is`` between two reads of an unwritten
element is the one observable difference).

**Sealed storage.** A full collection visits every item of every tracked list, untracked
or not, and touching 100k records' headers costs as much as tracking them. So once
decoded, the container is *sealed*: the records move to a tuple (``_store``, untracked
like them) and the list keeps None in their place (the same object, visited at no
cost) and the elements that are messages. The first change of the container moves
them back.

Structural changes of the container (append, insert, delete, pop) keep the records in
place; reordering (``sort``, ``reverse``) and ``remove`` first turn every record into a
message, pinned (the container is then an ordinary one).
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import operator
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, SupportsIndex

from schema_dsl.containers import RepeatedContainer, container_class
from schema_dsl.fields import FieldSpec
from schema_dsl.layout import Extras, Family, store

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = ["RecordContainer", "StaleViewError", "holding_views", "pin", "record_container_class"]

# The plain list methods, typed loosely: the mixin's ``self`` is a list only once mixed in.
_lget: Final[Callable[..., Any]] = list.__getitem__
_liter: Final[Callable[..., Iterator[Any]]] = list.__iter__
_llen: Final[Callable[..., int]] = list.__len__
_lset: Final[Callable[..., None]] = list.__setitem__
_osa: Final = object.__setattr__
_new: Final = object.__new__
_ref: Final = weakref.ref
_chain: Final = itertools.chain.from_iterable
_index: Final = operator.index
# Sealed records are kept in tuples of this many: each is untracked by the young collection
# that first sees it, so a full collection visits a few hundred chunks, not every record.
CHUNK: Final = 1024  # a power of two: the decoder tests a length's low bits
# wirecodec.protobuf.origin's span layout (a test compares them: schema_dsl imports no codec)
_SHIFT: Final = 40
_OFFSETS: Final = (1 << _SHIFT) - 1


class StaleViewError(RuntimeError):
    """A write to a view whose record another view of it was pinned for since."""


Home = tuple[Any, tuple[Any, ...], Callable[[], Any], int]


class RecordContainer:
    """The methods of a container of records (mixed into the field's container class)."""

    __slots__ = ()
    # Set per instance by the decoder: the build function of the element's class, the
    # span base of the input, and the pins (record id -> (record, pinned message)).
    _build: Callable[[tuple[Any, ...], int, int, Any, Extras | None, Any], tuple[Any, int]]
    _table: Any  # the decode's fragments (wirecodec.protobuf.fragments), or None
    _src: Any
    _pins: dict[int, tuple[tuple[Any, ...], Any]] | None
    # The records while sealed, in chunks of CHUNK (None where the list holds a message).
    _store: list[tuple[Any, ...]] | None

    def _seal(self) -> None:
        """Move the records out of the list's storage (see the module docstring): what
        :meth:`_seal_chunk` has not moved yet, once decoded."""
        store = getattr(self, "_store", None)
        done = 0 if store is None else len(store) * CHUNK
        if done < _llen(self):
            self._seal_chunk(done, _llen(self))

    def _seal_chunk(self, start: int, end: int) -> None:
        """Move the records of ``[start:end]`` into a chunk of their own. The decoder seals
        each CHUNK as it is decoded: a young collection soon untracks it (all its records
        are), where a chunk made at the end would wait for the host's next full collection."""
        store = getattr(self, "_store", None)
        if store is None:
            store = []
            _osa(self, "_store", store)
        items = _lget(self, slice(start, end))
        store.append(tuple(item if type(item) is tuple else None for item in items))
        _lset(self, slice(start, end), [None if type(item) is tuple else item for item in items])

    def _sealed(self) -> list[Any] | None:
        """The records while sealed, in order (None where the list holds a message)."""
        store = getattr(self, "_store", None)
        return None if store is None else list(_chain(store))

    def _unseal(self) -> None:
        store = getattr(self, "_store", None)
        if store is not None:
            items = [s if i is None else i for i, s in zip(_liter(self), _chain(store), strict=True)]
            _lset(self, slice(None), items)
            _osa(self, "_store", None)

    def _touch(self) -> None:
        self._unseal()
        super()._touch()  # type: ignore[misc]

    def _raw(self) -> Iterator[Any]:
        """The list's items, records in their places."""
        store = getattr(self, "_store", None)
        if store is None:
            return _liter(self)
        return (s if i is None else i for i, s in zip(_liter(self), _chain(store), strict=True))

    def _element_starts(self) -> list[int] | None:
        """Where each element's payload starts in the input, read from the records where
        they are (building no view); None when an element has no place there."""
        if self._src is None:
            return None
        pins = self._pins or {}
        starts: list[int] = []
        for item in self._raw():
            if type(item) is tuple:
                found = pins.get(id(item))
                if found is None:
                    starts.append(item[1])  # a record's first start is its place in the input
                    continue
                item = found[1]
            span = item._span
            if span is None:
                return None  # cleared since: where it began is not known
            starts.append(span >> _SHIFT & _OFFSETS)
        return starts

    def _raw_at(self, index: Any) -> Any:
        item = _lget(self, index)
        if type(index) is slice:
            sealed = self._sealed()
            if sealed is None:
                return item
            return [s if i is None else i for i, s in zip(item, sealed[index], strict=True)]
        if item is not None:
            return item
        at = _index(index)
        if at < 0:
            at += _llen(self)
        return self._store[at // CHUNK][at % CHUNK]  # type: ignore[index]

    def _view(self, item: Any, at: int = -1) -> Any:
        """The element ``item`` stands for (a view of a record, built now), read at ``at``."""
        if type(item) is not tuple:
            return item
        pins = self._pins
        if pins:
            found = pins.get(id(item))
            if found is not None:
                return found[1]
        held = _HELD.get()
        if held is not None:
            kept = held.get(id(item))
            if kept is not None:
                return kept[1]
        x = _new(Family)
        element = self._build(item, 0, 0, self._src, x, self._table)[0]
        x.home = (self, item, _ref(element), at)
        if held is not None:
            held[id(item)] = (item, element)
        return element

    def __getitem__(self, index: Any) -> Any:
        item = self._raw_at(index)
        if type(index) is slice:
            return [self._view(i) for i in item]
        return self._view(item, index if index >= 0 else index + _llen(self))

    def __iter__(self) -> Iterator[Any]:
        view = self._view
        for at, item in enumerate(self._raw()):
            yield view(item, at)

    def __reversed__(self) -> Iterator[Any]:
        view = self._view
        for at in range(_llen(self) - 1, -1, -1):
            yield view(self._raw_at(at))

    def __contains__(self, value: object) -> bool:
        return any(element == value for element in self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, tuple)):
            return NotImplemented
        return _llen(self) == len(other) and all(a == b for a, b in zip(self, other, strict=False))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = 2**62) -> int:
        for at in range(*slice(start, stop).indices(_llen(self))):
            if self._view(self._raw_at(at)) == value:
                return at
        raise ValueError(f"{value!r} is not in list")

    def count(self, value: Any) -> int:
        return sum(1 for element in self if element == value)

    def pop(self, index: SupportsIndex = -1) -> Any:
        element = self[index]
        super().pop(index)  # type: ignore[misc]
        return element

    def _materialize(self) -> None:
        """Every record becomes its message (the pinned one, or one built now and pinned):
        a view read before is stale from now on, a pinned element stays what it was."""
        self._unseal()
        pins = self._pins
        if pins is None:
            pins = {}
            _osa(self, "_pins", pins)
        for at in range(_llen(self)):
            item = _lget(self, at)
            if type(item) is tuple:
                element = self._build_plain(item)
                pins[id(item)] = (item, element)
                _lset(self, at, element)

    def _build_plain(self, record: tuple[Any, ...]) -> Any:
        pins = self._pins
        found = None if not pins else pins.get(id(record))
        return found[1] if found is not None else self._build(record, 0, 0, self._src, None, self._table)[0]

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        self._materialize()
        super().sort(key=key, reverse=reverse)  # type: ignore[misc]

    def reverse(self) -> None:
        self._materialize()
        super().reverse()  # type: ignore[misc]

    def remove(self, value: Any) -> None:
        self._materialize()
        super().remove(value)  # type: ignore[misc]

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


_HELD: Final[contextvars.ContextVar[dict[int, tuple[Any, Any]] | None]] = contextvars.ContextVar(
    "wirecodec_views_held", default=None
)


@contextlib.contextmanager
def holding_views() -> Iterator[None]:
    """Within the block (this thread or task), a read of an element returns the view built
    by the first read of it: code that finds objects in one walk and looks them up by
    ``id`` in another (writers swapping tensors for references to where their bytes
    went) sees the same objects. The views live until the block ends."""
    if _HELD.get() is not None:
        yield
        return
    token = _HELD.set({})
    try:
        yield
    finally:
        _HELD.reset(token)


def record_container_class(spec: FieldSpec) -> type[RepeatedContainer[Any]]:
    """The container class of records of repeated message field ``spec`` (one per field)."""
    cls: type[RepeatedContainer[Any]] | None = _RECORD_CLASSES.get(spec)
    if cls is None:
        base = container_class(spec)
        cls = type(
            base.__name__,
            (RecordContainer, base),
            {"__slots__": ("_build", "_pins", "_src", "_store", "_table"), "__module__": base.__module__},
        )
        cls.__qualname__ = base.__qualname__
        _RECORD_CLASSES[spec] = cls
    return cls


_RECORD_CLASSES: Final[dict[FieldSpec, type[RepeatedContainer[Any]]]] = {}


def pin(home: Home, written: Any) -> None:
    """Before a write to ``written`` (a message or container of a view's family): make
    the family's element the pinned element of its record (see the module docstring)."""
    container, record, element_ref, at = home
    pins = container._pins
    found = pins.get(id(record))
    element = element_ref()
    if found is None:
        if element is None:  # the family's element is gone: built again, the written object in place
            element = container._build_plain(record)
            _put_in_place(element, written)
        pins[id(record)] = (record, element)
        if 0 <= at < _llen(container) and container._raw_at(at) is record:
            # Still where it was read: the list holds the element from now on (reads and
            # the encoder find it at once; the pin stays for views read before).
            _lset(container, at, element)
        return
    pinned = found[1]
    if element is pinned:
        return
    if element is not None:
        raise StaleViewError("another view of this element was changed first: read the element again")
    _put_in_place(pinned, written)


def _put_in_place(element: Message, written: Any) -> None:
    """Put ``written`` (a message or container of a dead view of ``element``'s record) in
    place of its twin inside ``element``."""
    if written is element:
        return
    spot = _find_twin(element, written)
    if spot is None:
        raise StaleViewError("another view of this element was changed first: read the element again")
    owner, name, at = spot
    if at is None:
        store(owner, name, written)
    else:
        _lset(getattr(owner, name), at, written)


def _find_twin(element: Message, written: Any) -> tuple[Any, str, int | None] | None:
    """Where, inside ``element``, the object of ``written``'s kind and span is: (owner,
    field name, index or None)."""
    from schema_dsl.fields import Kind
    from schema_dsl.layout import stored_fields

    span = written._span
    is_container = isinstance(written, list)
    wanted_spec = written._spec if is_container else None
    wanted = "" if wanted_spec is None else wanted_spec.name
    stack: list[Message] = [element]
    while stack:
        message = stack.pop()
        # A container read from an unset field: the field is unset in the twin too.
        if (
            is_container
            and message._span == span
            and message.__schema__.by_name.get(wanted) is wanted_spec
            and not message._has & message.__schema__.bit[wanted]
        ):
            return (message, wanted, None)
        for spec, value in stored_fields(message):
            if is_container and spec is wanted_spec and getattr(value, "_span", None) == span:
                return (message, spec.name, None)
            if spec.kind is not Kind.MESSAGE:
                continue
            children: Iterable[Any] = value if spec.repeated else (value,)
            for at, child in enumerate(children):
                if not is_container and type(child) is type(written) and child._span == span:
                    return (message, spec.name, at if spec.repeated else None)
                stack.append(child)
    return None
