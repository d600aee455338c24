"""Records and views: decoded elements the garbage collector never has to visit.

A repeated message field filled by a *records* decoder (wirecodec.protobuf.records) is a
:func:`record_container_class` container whose list items are **records**: tuples of the
element's field values (nested records as tuples, repeated scalars as tuples), which
CPython stops tracking the first time a young collection sees them. An element that
could not be kept as a record (a large subgraph inside it, unknown fields, bytes that are
not canonical) is an ordinary message among them.

**Reading** an element hands out its **view**: an ordinary message of the declared class,
built from the record when no view of it is alive, and otherwise the live one. The
container holds its views weakly (``_live``, keyed by the record's identity), as upb holds
one wrapper per element while any reference to it lives, so every reference a program
holds — the node, a dict of nodes built by a walk, a held attribute, output list or dim
of it — is part of the one view and sees every write. Everything a message does, a view
does (equality, ``ListFields``, copies, text format, encoding, re-emit of unchanged
bytes: a view carries its record's span). Every object built for one view (the element,
its children, their containers) shares one *family link*: the shared
:class:`~schema_dsl.layout.Extras` of the messages (``home``) and the containers'
``_home``, both ``(container, record, element, index read at)``. The link holds the
element strongly, so a held child keeps its element (and so its view) alive: a view is a
small reference cycle that the young collection frees once nothing holds it.

**The first write** to anything in a family *pins* the element: it becomes a full
message of its container, found through the record itself (``_pins``, keyed by the
record's identity, so inserts and deletes of other elements do not confuse it), and
every later read of that record returns it.

**Sealed storage.** A full collection visits every item of every tracked list, untracked
or not, and touching 100k records' headers costs as much as tracking them. So once
decoded, the container is *sealed*: the records move to a tuple (``_store``, untracked
like them) and the list keeps None in their place (the same object, visited at no
cost) and the elements that are messages. The first change of the container moves
them back.

Structural changes of the container (append, insert, delete, pop, remove) keep the
records in place; reordering (``sort``, ``reverse``) first turns every record into a
message, pinned — its live view where it has one (the container is then an ordinary
one). The searches (``index``, ``count``, ``in``, ``remove``) compare an unchanged
record by its bytes when the value looked for has source bytes too, building no view.
Iteration goes by index, as a list's (and protobuf's container's) does, so a loop that
changes the field it walks behaves as it would on onnx.
"""

from __future__ import annotations

import itertools
import operator
import weakref
from collections.abc import Callable, Iterator
from typing import Any, Final, SupportsIndex

from schema_dsl.containers import RepeatedContainer, container_class, pop_position
from schema_dsl.contract import installed_codec
from schema_dsl.fields import FieldSpec
from schema_dsl.layout import Extras, Family

__all__ = ["RecordContainer", "record_container_class"]

# The plain list methods, typed loosely: the mixin's ``self`` is a list only once mixed in.
_lget: Final[Callable[..., Any]] = list.__getitem__
_liter: Final[Callable[..., Iterator[Any]]] = list.__iter__
_llen: Final[Callable[..., int]] = list.__len__
_lset: Final[Callable[..., None]] = list.__setitem__
_osa: Final = object.__setattr__
_new: Final = object.__new__
_chain: Final = itertools.chain.from_iterable
_index: Final = operator.index
# Sealed records are kept in tuples of this many: each is untracked by the young collection
# that first sees it, so a full collection visits a few hundred chunks, not every record.
CHUNK: Final = 1024  # a power of two: the decoder tests a length's low bits
# wirecodec.protobuf.origin's span layout (a test compares them: schema_dsl imports no codec)
_SHIFT: Final = 40
_OFFSETS: Final = (1 << _SHIFT) - 1


Home = tuple[Any, tuple[Any, ...], Any, int]


class _LiveView(weakref.ref):  # type: ignore[type-arg]
    """A container's weak reference to a live view, holding the view's record (so the
    record's id stays its key) and where it is filed: one object per view, where a
    callback bound by ``functools.partial`` and an entry tuple made three."""

    __slots__ = ("key", "live", "record")
    key: int
    live: dict[int, _LiveView]
    record: tuple[Any, ...]


def _forget(gone: _LiveView) -> None:
    """A view died: its container stops naming it (unless a newer view took the key)."""
    live = gone.live
    if live.get(gone.key) is gone:
        del live[gone.key]


class RecordContainer:
    """The methods of a container of records (mixed into the field's container class)."""

    __slots__ = ()
    # Set per instance by the decoder: the build function of the element's class, the
    # span base of the input, and the pins (record id -> (record, pinned message)).
    _build: Callable[[tuple[Any, ...], int, int, Any, Extras | None, Any], tuple[Any, int]]
    _table: Any  # the decode's fragments (wirecodec.protobuf.fragments), or None
    _src: Any
    _spec: FieldSpec  # (the container class's)
    _pins: dict[int, tuple[tuple[Any, ...], Any]] | None
    # The live views, held weakly: record id -> weak reference to its view (and record).
    _live: dict[int, _LiveView]
    # The records while sealed, in chunks of CHUNK (None where the list holds a message).
    _store: list[tuple[Any, ...]] | None

    def _pin(self, home: Home) -> None:
        """Before a write into a view's family (``home`` is its link, this container
        first): make the family's element the pinned element of its record (see the
        module docstring). Called by the message model through the link, which is how
        it reaches this module without importing it."""
        _, record, element, at = home
        pins = self._pins
        if pins is None:
            pins = {}
            _osa(self, "_pins", pins)
        key = id(record)
        if key in pins:
            return  # pinned already: the one live view is the pinned element
        pins[key] = (record, element)
        live = getattr(self, "_live", None)
        if live is not None:
            live.pop(key, None)  # the pin answers every read now: its weak reference goes
        if 0 <= at < _llen(self) and self._raw_at(at) is record:
            # Still where it was read: the list holds the element from now on (reads and
            # the encoder find it at once; the pin stays for views read before).
            _lset(self, at, element)

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
        """The element ``item`` stands for, read at ``at``: a message as it is, a record's
        pinned element or live view, or a view built now."""
        if type(item) is not tuple:
            return item
        key = id(item)
        pins = self._pins
        if pins:
            found = pins.get(key)
            if found is not None:
                return found[1]
        try:
            live = self._live
        except AttributeError:
            live = {}
            _osa(self, "_live", live)
        entry = live.get(key)
        if entry is not None:
            element = entry()
            if element is not None:
                return element
        x = _new(Family)
        element = self._build(item, 0, 0, self._src, x, self._table)[0]
        x.home = (self, item, element, at)
        entry = live[key] = _LiveView(element, _forget)
        entry.key = key
        entry.live = live
        entry.record = item
        return element

    def __getitem__(self, index: Any) -> Any:
        item = self._raw_at(index)
        if type(index) is slice:
            return [self._view(i) for i in item]
        return self._view(item, index if index >= 0 else index + _llen(self))

    def __iter__(self) -> Iterator[Any]:
        # By index, as a list iterates: the field may change while it is walked.
        # (_raw_at and, for a message, _view inlined: this is every walk's inner loop.)
        view = self._view
        at = 0
        while at < _llen(self):
            item = _lget(self, at)
            if item is None:
                item = self._store[at // CHUNK][at % CHUNK]  # type: ignore[index]
            yield view(item, at) if type(item) is tuple else item
            at += 1

    def __reversed__(self) -> Iterator[Any]:
        at = _llen(self) - 1
        while 0 <= at < _llen(self):
            yield self._view(self._raw_at(at), at)
            at -= 1

    def __contains__(self, value: object) -> bool:
        return next(self._equal_at(value, 0, _llen(self)), None) is not None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, list):
            return NotImplemented  # a tuple is never equal, as for protobuf's container
        return _llen(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def index(self, value: Any, start: SupportsIndex = 0, stop: SupportsIndex = 2**62) -> int:
        first, last, _ = slice(start, stop).indices(_llen(self))
        found = next(self._equal_at(value, first, last), None)
        if found is None:
            raise ValueError(f"{value!r} is not in list")
        return found

    def count(self, value: Any) -> int:
        return sum(1 for _ in self._equal_at(value, 0, _llen(self)))

    def _equal_at(self, value: Any, first: int, last: int) -> Iterator[int]:
        """The positions in ``first:last`` of the elements equal to ``value``, as ``==`` says
        (protobuf's search). A record unchanged since it was decoded is compared by its
        bytes, building no view, when ``value`` also is its source bytes (a record is only
        ever made of canonical bytes, and canonical bytes are one per value)."""
        wanted = None
        codec = installed_codec()
        span = getattr(value, "_span", None)
        if (
            codec is not None
            and span is not None
            and self._src is not None
            and getattr(type(value), "__schema__", None) is self._spec.message_type.__schema__
        ):
            wanted = codec.source_bytes(span)
        at = first
        while at < min(last, _llen(self)):
            item = self._raw_at(at)
            if wanted is not None and type(item) is tuple:  # (a changed one has no source bytes)
                if item[2] != len(wanted):
                    at += 1
                    continue  # payloads of other sizes: other values
                own = codec.source_bytes(self._src | item[1] << _SHIFT | (item[1] + item[2]))  # type: ignore[union-attr]
                if own is not None:
                    if own == wanted:
                        yield at
                    at += 1
                    continue
            if self._view(item, at) == value:
                yield at
            at += 1

    def pop(self, index: SupportsIndex = -1) -> Any:
        position = pop_position(_llen(self), index)
        element = self[position]
        self._touch()
        list.pop(self, position)  # type: ignore[arg-type]
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
        """The element of ``record`` for good: its pinned element, its live view, or a
        message built now (no family link: it is no view)."""
        key = id(record)
        found = None if not self._pins else self._pins.get(key)
        if found is not None:
            return found[1]
        entry = getattr(self, "_live", {}).get(key)
        element = None if entry is None else entry()
        if element is not None:
            return element
        return self._build(record, 0, 0, self._src, None, self._table)[0]

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        self._materialize()
        super().sort(key=key, reverse=reverse)  # type: ignore[misc]

    def reverse(self) -> None:
        self._materialize()
        super().reverse()  # type: ignore[misc]

    def remove(self, value: Any) -> None:
        # Found as index() finds it, deleted as ``del`` deletes: the other records stay.
        found = next(self._equal_at(value, 0, _llen(self)), None)
        if found is None:
            raise ValueError(f"{value!r} is not in list")
        del self[found]  # type: ignore[attr-defined]

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def record_container_class(spec: FieldSpec) -> type[RepeatedContainer[Any]]:
    """The container class of records of repeated message field ``spec`` (one per field)."""
    cls: type[RepeatedContainer[Any]] | None = _RECORD_CLASSES.get(spec)
    if cls is None:
        base = container_class(spec)
        cls = type(
            base.__name__,
            (RecordContainer, base),
            {
                "__slots__": ("_build", "_live", "_pins", "_src", "_store", "_table"),
                "__module__": base.__module__,
            },
        )
        cls.__qualname__ = base.__qualname__
        _RECORD_CLASSES[spec] = cls
    return cls


_RECORD_CLASSES: Final[dict[FieldSpec, type[RepeatedContainer[Any]]]] = {}
