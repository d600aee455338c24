"""The values of repeated fields: lists that behave like protobuf's repeated containers.

Each repeated field gets its own subclass of :class:`RepeatedScalarFieldContainer` or
:class:`RepeatedCompositeFieldContainer` (made once per field, see :func:`container_class`),
so an element is converted and checked exactly as an assignment to the field would be:
``node.input.append(3)`` is a TypeError naming ``NodeProto.input``. Messages are
*copied* into a composite container (``append``, ``extend``, ``insert``), as protobuf
does, so one template appended three times gives three independent elements; ``add(**fields)``
builds the element in place and returns it.

Reading is plain ``list`` reading (indexing, slices, iteration, ``len``, ``==`` against any
list), at C speed. Decoders fill containers through the unbound ``list`` methods
(:data:`list_append`, :data:`list_extend`): what they store is valid by construction.

A container of an unset field of a *detached* message (see schema_dsl.message) knows its
owner; the first change to it makes the owner present, so every reference to it sees
the write. A container that is already a present field has no owner to tell, only,
if its owner was decoded, the owner's span, which every change reports first
(schema_dsl.contract).
"""

from __future__ import annotations

import copy
import operator
import threading
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar, Final, SupportsIndex, TypeVar, overload

from schema_dsl.assign import element_converter
from schema_dsl.contract import report as report_span
from schema_dsl.fields import FieldSpec, Kind

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "RepeatedCompositeFieldContainer",
    "RepeatedContainer",
    "RepeatedScalarFieldContainer",
    "append_valid",
    "container_class",
    "list_append",
    "list_extend",
    "new_container",
    "pop_position",
    "waiting_class",
]

_T = TypeVar("_T")
list_append: Final = list.append
list_extend: Final = list.extend
_new_list: Final = list.__new__


class RepeatedContainer(list[_T]):
    """What both kinds of container share: the field they belong to and the owner link."""

    __slots__ = ("_home", "_owner", "_records", "_span", "_waiting")
    _home: Any  # a view's shared Extras (schema_dsl.views): the first change pins the view
    _owner: Message | None
    _span: int | None  # what a change reports (schema_dsl.contract)
    _records: int | None  # set by a decoder: the field's own records in its source
    _waiting: Any  # while its class is a waiting one: what the decoder left (see WaitingContainer)
    _spec: ClassVar[FieldSpec]
    _element_converter: ClassVar[Callable[[Any], Any] | None] = None

    @classmethod
    def _converter(cls) -> Callable[[Any], Any]:
        convert = cls._element_converter
        if convert is None:
            convert = cls._element_converter = element_converter(cls._spec)
        return convert

    def _touch(self) -> None:
        """Before any change: the owner's source bytes no longer hold, and a detached
        owner becomes a present field of its parent."""
        home = getattr(self, "_home", None)
        if home is not None and home.home is not None:
            home.home[0]._pin(home.home)  # the records container of the view's family (schema_dsl.views)
        span = getattr(self, "_span", None)
        if span is not None:
            report_span(span)
        owner = getattr(self, "_owner", None)
        if owner is not None:
            self._owner = None
            owner._attach()  # schema_dsl.presence.attach, reached through the message

    # A container compared with another field's container that still waits (``g.input ==
    # g.output``): list's C comparison reads the other's storage, so it arrives first.
    def __eq__(self, other: object) -> bool:
        if isinstance(other, WaitingContainer):
            WaitingContainer._arrive(other)
        return list.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        if isinstance(other, WaitingContainer):
            WaitingContainer._arrive(other)
        return list.__ne__(self, other)

    __hash__ = None

    def __add__(self, other: list[Any]) -> list[Any]:
        if type(other) is list:
            return list.__add__(self, other)
        if isinstance(other, list):
            # Another container: its storage may hold what is not yet its elements (offsets
            # waiting, sealed records), which list's C code would copy; its iteration does not.
            return [*self, *other]
        return NotImplemented

    def __radd__(self, other: list[Any]) -> list[Any]:
        # ``[] + field``: Python asks a list subclass's __radd__ before list's own
        # concatenation, which would copy this container's storage (waiting offsets,
        # sealed records) as if it were the elements. protobuf raises TypeError here.
        if isinstance(other, list):
            return [*other, *self]
        return NotImplemented

    # -- changes that need no conversion ---------------------------------------------------

    def __delitem__(self, index: SupportsIndex | slice, /) -> None:
        self._touch()
        super().__delitem__(index)

    def pop(self, index: SupportsIndex = -1, /) -> _T:
        """Remove and return element ``index``. An index out of range pops the last element
        with a FutureWarning, as protobuf does (an empty field is an IndexError)."""
        position = pop_position(list.__len__(self), index)
        self._touch()
        return super().pop(position)

    def remove(self, value: _T, /) -> None:
        self._touch()
        super().remove(value)

    def clear(self) -> None:
        self._touch()
        super().clear()

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        self._touch()
        super().sort(key=key, reverse=reverse)

    def reverse(self) -> None:
        self._touch()
        super().reverse()

    def MergeFrom(self, other: Iterable[_T]) -> None:
        """Append every element of ``other`` (protobuf's name for ``extend``)."""
        self.extend(other)

    def __iadd__(self, values: Iterable[_T], /) -> RepeatedContainer[_T]:  # type: ignore[override,misc]
        self.extend(values)
        return self

    def __imul__(self, count: SupportsIndex, /) -> RepeatedContainer[_T]:
        raise TypeError(f"{self._spec.full_name}: a repeated field cannot be multiplied in place")

    # -- copies and pickles are plain lists: the owner link belongs to the field ------------

    def __copy__(self) -> list[_T]:
        return list(self)

    def __deepcopy__(self, memo: dict[int, Any]) -> list[_T]:
        return [copy.deepcopy(item, memo) for item in self]

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))

    def __repr__(self) -> str:
        return list.__repr__(self)


class RepeatedScalarFieldContainer(RepeatedContainer[_T]):
    """A repeated scalar field: every element is checked and converted as on assignment."""

    __slots__ = ()

    def append(self, value: _T, /) -> None:
        converted = self._converter()(value)
        self._touch()
        list_append(self, converted)

    def extend(self, values: Iterable[_T], /) -> None:
        converted = _convert_all(self._spec, self._converter(), values)
        self._touch()
        list_extend(self, converted)

    def insert(self, index: SupportsIndex, value: _T, /) -> None:
        converted = self._converter()(value)
        self._touch()
        super().insert(index, converted)

    @overload
    def __setitem__(self, index: SupportsIndex, value: _T, /) -> None: ...

    @overload
    def __setitem__(self, index: slice, value: Iterable[_T], /) -> None: ...

    def __setitem__(self, index: Any, value: Any, /) -> None:
        if isinstance(index, slice):
            value = _convert_all(self._spec, self._converter(), value)
        else:
            value = self._converter()(value)
        self._touch()
        super().__setitem__(index, value)


class RepeatedCompositeFieldContainer(RepeatedContainer[_T]):
    """A repeated message field: elements are copied in, or built in place by :meth:`add`."""

    __slots__ = ()

    def add(self, **fields: Any) -> _T:
        """Append a new element made from ``fields`` (keyword arguments) and return it."""
        element = self._spec.message_type(**fields)
        self._touch()
        list.append(self, element)  # type: ignore[misc]
        return element  # type: ignore[return-value]

    def append(self, value: _T, /) -> None:
        element = _copy_in(self._spec, self._converter(), value)
        self._touch()
        list_append(self, element)

    def extend(self, values: Iterable[_T], /) -> None:
        convert = self._converter()
        elements = [_copy_in(self._spec, convert, v) for v in _iterable(self._spec, values)]
        self._touch()
        list_extend(self, elements)

    def insert(self, index: SupportsIndex, value: _T, /) -> None:
        element = _copy_in(self._spec, self._converter(), value)
        self._touch()
        super().insert(index, element)

    def __repr__(self) -> str:
        # What printing a repeated message field of the onnx package shows: each element in
        # protobuf's text format.
        return "[" + ", ".join(str(element) for element in self) + "]"

    def __setitem__(self, index: Any, value: Any, /) -> None:
        # As protobuf: an element is replaced by changing it, or by del + insert.
        raise TypeError(
            f"{self._spec.full_name}: a repeated message field does not support item assignment "
            "(change the element in place, or delete it and insert a new one)"
        )


def pop_position(size: int, index: SupportsIndex) -> int:
    """Where ``pop(index)`` takes from a field of ``size`` elements, as protobuf's container
    decides: out of range is the last element, with a FutureWarning; empty, an IndexError."""
    position = operator.index(index)
    if not size:
        raise IndexError("pop from an empty repeated field")
    if not -size <= position < size:
        warnings.warn("pop index out of range", FutureWarning, stacklevel=3)
        position = -1
    return position


def _iterable(spec: FieldSpec, values: Any) -> Iterable[Any]:
    if isinstance(values, (str, bytes, bytearray, memoryview)) or not hasattr(values, "__iter__"):
        got = type(values).__qualname__
        raise TypeError(f"{spec.full_name}: needs a list or another iterable, got {got}")
    return values  # type: ignore[no-any-return]


def _convert_all(spec: FieldSpec, convert: Callable[[Any], Any], values: Any) -> list[Any]:
    # All or nothing: an element that does not fit leaves the field as it was.
    return [convert(v) for v in _iterable(spec, values)]


def _copy_in(spec: FieldSpec, convert: Callable[[Any], Any], value: Any) -> Any:
    return convert(value).__copy__()  # schema_dsl.copying.copy_message, through the message


def container_class(spec: FieldSpec) -> type[RepeatedContainer[Any]]:
    """The container subclass of repeated field ``spec`` (one per field, made on first use)."""
    cls: type[RepeatedContainer[Any]] | None = spec._container
    if cls is None:
        base: type[RepeatedContainer[Any]] = (
            RepeatedCompositeFieldContainer if spec.kind is Kind.MESSAGE else RepeatedScalarFieldContainer
        )
        cls = type(base.__name__, (base,), {"__slots__": (), "_spec": spec, "__module__": base.__module__})
        cls.__qualname__ = base.__qualname__
        spec._container = cls
    return cls


def append_valid(container: RepeatedContainer[Any], value: Any) -> None:
    """Append ``value``, valid for the field already (a reader's, not a user's): no
    conversion, so a string holding surrogate escapes for bytes that are not UTF-8 stays."""
    container._touch()
    list_append(container, value)


def new_container(spec: FieldSpec, items: Iterable[Any] = ()) -> RepeatedContainer[Any]:
    """A container of field ``spec`` holding ``items`` as they are (already valid)."""
    container: RepeatedContainer[Any] = _new_list(container_class(spec))
    list_extend(container, items)
    return container


# -- a field whose elements wait ------------------------------------------------------------


class WaitingContainer:
    """The methods of a container whose elements the decoder left waiting (mixed into the
    field's container class, same layout). The container *is* the field: present, stored in
    its slot, its length known; ``_waiting`` holds what the decoder left (offsets of small
    elements, a packed run's place: wirecodec.protobuf.lazy), an object with ``len()``,
    ``load()`` (the elements, in order) and, for message elements, ``iterate(needles)``.

    The first use of the container beyond its length *arrives*: the elements are loaded into
    the list, once, under a lock (readers in other threads wait for the same list), and the
    container becomes an instance of the field's plain class, so every later read is plain
    ``list`` reading at C speed and every reference to the container sees one list."""

    __slots__ = ()

    def _arrive(self) -> None:
        with _ARRIVING:
            waiting = self._waiting  # type: ignore[attr-defined]
            if waiting is not None:
                items = waiting.load()
                list_extend(self, items)  # type: ignore[arg-type]
                _osa(self, "_waiting", None)
                _osa(self, "__class__", type(self).__mro__[2])  # the field's plain class

    def __len__(self) -> int:
        waiting = self._waiting  # type: ignore[attr-defined]
        if waiting is not None:
            return len(waiting)
        return list.__len__(self)  # type: ignore[arg-type]  # (another thread arrived first)

    def __bool__(self) -> bool:
        return self.__len__() > 0


def _arriving(name: str) -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        # Unbound: another thread may have made ``self`` plain since its method was looked up.
        WaitingContainer._arrive(self)
        for other in args:  # ``==``, ``+``, ``extend``: list's C code reads the other's storage
            if isinstance(other, WaitingContainer):
                WaitingContainer._arrive(other)
        return getattr(self, name)(*args, **kwargs)  # the plain class's, from now on

    method.__name__ = method.__qualname__ = name
    return method


_osa: Final = object.__setattr__
# Arrivals are rare (once per waiting field read) and short: one lock for all of them keeps
# containers free of a lock each. Reentrant: loading an element may build containers.
_ARRIVING: Final = threading.RLock()
# Every method of a container but its length: each arrives first.
for _name in (
    "__getitem__",
    "__iter__",
    "__reversed__",
    "__contains__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__radd__",
    "__mul__",
    "__rmul__",
    "__iadd__",
    "__imul__",
    "__setitem__",
    "__delitem__",
    "__copy__",
    "__deepcopy__",
    "__reduce__",
    "__reduce_ex__",
    "__repr__",
    "__str__",
    "__sizeof__",
    "__format__",
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
    "index",
    "count",
    "copy",
    "add",
    "MergeFrom",
    "_touch",
):
    setattr(WaitingContainer, _name, _arriving(_name))
WaitingContainer.__hash__ = None  # type: ignore[assignment]


def waiting_class(spec: FieldSpec) -> type[RepeatedContainer[Any]]:
    """The waiting variant of field ``spec``'s container class (see :class:`WaitingContainer`)."""
    cls: type[RepeatedContainer[Any]] | None = _WAITING_CLASSES.get(spec)
    if cls is None:
        base = container_class(spec)
        cls = type(base.__name__, (WaitingContainer, base), {"__slots__": (), "__module__": base.__module__})
        cls.__qualname__ = base.__qualname__
        _WAITING_CLASSES[spec] = cls
    return cls


_WAITING_CLASSES: Final[dict[FieldSpec, type[RepeatedContainer[Any]]]] = {}
