"""The message base class: declared fields become attributes with proto2 semantics.

Representation (chosen for decode speed, see docs/format.md):

* a field that is set lives in the instance ``__dict__``; presence is "the name is there";
* an unset singular scalar reads as its default through a plain class attribute;
* an unset message field reads as a *detached* empty instance, remembered by its owner
  (in ``_stubs``) so that every read returns the same one, and the first write into it
  attaches it (and every detached parent above it) to its owner, as in protobuf: every
  reference a user holds sees every write. ``ClearField`` and ``Clear`` cut the link;
* an unset repeated field reads as an empty list stored in the owner at once, so all
  references share it; while the owner is itself detached, the first write into the
  list attaches the owner;
* unknown fields are raw wire records kept in ``_unknown`` and re-emitted verbatim;
* a decoder may leave a repeated message field *pending*: ``_lazy`` then holds a
  :class:`DeferredTable` (the codec's; see wirecodec.protobuf.lazy) whose
  ``take(name).load()`` gives the elements. The field's name is absent from
  ``__dict__`` meanwhile, so the first read reaches the class descriptor, which loads
  and stores the list; everything that looks at ``__dict__`` wholesale (ListFields,
  copies, pickling, the encoder) loads first. That is all the message model knows of it.
* a decoder may give a message a *span* (``_span``, an int; see schema_dsl.spans)
  meaning "my source bytes are my encoding", and its repeated fields the same span.
  Every change to the message or its containers reports the span first
  (:func:`_changed`), so the codec re-emits the bytes only while they still hold. Copies
  never take a span (nor the decoded root's ``_origin``): their changes would go
  unreported.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import sys
import threading
import types
from collections.abc import Iterator
from typing import Any, ClassVar, Final, Protocol, TypeVar

from schema_dsl.assign import Converter, FieldNameError, converter
from schema_dsl.containers import RepeatedContainer, container_class, new_container
from schema_dsl.fields import (
    MAX_FIELD_NUMBER,
    RESERVED_NUMBERS,
    FieldSpec,
    Kind,
    SchemaError,
)
from schema_dsl.spans import report as report_span

__all__ = [
    "Codec",
    "DeferredTable",
    "Message",
    "MessageSchema",
    "attach",
    "copy_message",
    "install_codec",
    "resolve_message_type",
]

_M = TypeVar("_M", bound="Message")
_UNKNOWN: Final = "_unknown"
_LAZY: Final = "_lazy"  # see the module docstring
_OWNER: Final = "_owner"  # on a detached child: (parent message, field name)
_STUBS: Final = "_stubs"  # on a parent: {field name: detached child} handed out by reads
# Links to an owner and to stubs stay behind, and so do the span and what keeps its
# bytes (see the module docstring): a copy's changes would not be reported.
_NOT_COPIED: Final = frozenset({_OWNER, _STUBS, "_span", "_origin"})
_new_list: Final = list.__new__
_osa: Final = object.__setattr__


class PendingField(Protocol):
    """What a deferred field's record offers the message model."""

    def load(self) -> list[Any]: ...


class DeferredTable(Protocol):
    """The fields a decoder left pending on a message (implemented by the codec)."""

    def __contains__(self, name: object, /) -> bool: ...

    def __len__(self) -> int: ...

    def take(self, name: str) -> PendingField | None: ...

    def first_name(self) -> str | None: ...


class Codec(Protocol):
    """What protobuf's serialization methods on a message need from a codec.

    The schema layer knows nothing about bytes: the codec (``wirecodec``) installs itself
    with :func:`install_codec` when it is imported, and ``SerializeToString`` and its
    siblings call it.
    """

    def encode(self, message: Message) -> bytes: ...

    def byte_size(self, message: Message) -> int: ...

    def decode(self, cls: type[Message], data: Any) -> Message: ...


_codec: Codec | None = None


def install_codec(codec: Codec) -> None:
    """Make ``codec`` the one protobuf's serialization methods use (wirecodec calls this)."""
    global _codec
    _codec = codec


def _the_codec() -> Codec:
    if _codec is None:
        raise RuntimeError("no codec is installed for schema_dsl messages: import wirecodec first")
    return _codec


class MessageSchema:
    """Everything the codec needs to know about one message class.

    ``codecs`` is a cache the codec fills with what it generates for the class (keyed
    by its own names); the schema never reads it, and it goes away with the class.
    """

    __slots__ = (
        "by_name",
        "by_number",
        "cls",
        "codecs",
        "converters",
        "detached",
        "fields",
        "full_name",
        "oneofs",
    )

    def __init__(self, cls: type[Message], full_name: str, fields: tuple[FieldSpec, ...]) -> None:
        self.cls = cls
        self.codecs: dict[str, Any] = {}
        # name -> (converter, other members of its oneof), filled on first assignment
        # (message types resolve late)
        self.converters: dict[str, tuple[Converter, tuple[str, ...]]] = {}
        self.detached: type[Message] = cls
        self.full_name = full_name
        self.fields = tuple(sorted(fields, key=lambda f: f.number))
        self.by_name = {f.name: f for f in self.fields}
        self.by_number = {f.number: f for f in self.fields}
        oneofs: dict[str, tuple[FieldSpec, ...]] = {}
        for f in self.fields:
            if f.oneof is not None:
                oneofs[f.oneof] = (*oneofs.get(f.oneof, ()), f)
        self.oneofs = oneofs


class _RepeatedDefault:
    """Unset repeated field: reading it stores an empty list in the owner and returns it."""

    __slots__ = ("name", "spec")

    def __init__(self, spec: FieldSpec) -> None:
        self.name = spec.name
        self.spec = spec

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        return _store_empty_list(obj, self.spec)


def _store_empty_list(obj: Message, spec: FieldSpec) -> RepeatedContainer[Any]:
    """Store an empty container as field ``spec`` of ``obj`` and return it (the first read of the field)."""
    empty: RepeatedContainer[Any] = _new_list(container_class(spec))
    if type(obj) is not obj.__schema__.cls:
        empty._owner = obj  # only a detached owner needs to hear of the first write
    else:
        empty._span = obj._span
    _osa(obj, spec.name, empty)
    return empty


class _MessageListDefault(_RepeatedDefault):
    """Repeated message field: as above, unless a decoder left its elements pending."""

    __slots__ = ()

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        # An attribute read, not obj.__dict__: that would build a dict on every instance.
        pending = obj._lazy
        if pending is not None and self.name in pending:
            return _load_pending(obj, self.name, absent=True)
        return _store_empty_list(obj, self.spec)


_load_lock: Final = threading.RLock()


def _take_pending(message: Message, name: str) -> PendingField | None:
    """Remove and return the pending record of ``name`` (None if there is none)."""
    table = message._lazy
    if table is None:
        return None
    record = table.take(name)
    if not table:
        object.__delattr__(message, _LAZY)
    return record


def _load_pending(message: Message, name: str, absent: bool = False) -> Any:
    """Decode a pending field and store its list (``absent``: the name is known unset)."""
    # One thread decodes; another arriving meanwhile then finds the stored list.
    with _load_lock:
        record = _take_pending(message, name)
        if record is None:
            return getattr(message, name)
        if not absent and name in message.__dict__:
            return message.__dict__[name]  # assigned since the decode: the record is stale
        loaded = record.load()
        spec = message.__schema__.by_name[name]
        value = loaded if type(loaded) is container_class(spec) else new_container(spec, loaded)
        value._span = message._span
        object.__setattr__(message, name, value)
        return value


class _MessageDefault:
    """Unset message field: reading it gives a detached empty child, absent until written."""

    __slots__ = ("spec",)

    def __init__(self, spec: FieldSpec) -> None:
        self.spec = spec

    def __get__(self, obj: Message | None, owner: type | None = None) -> Any:
        if obj is None:
            return self
        name = self.spec.name
        stubs: dict[str, Message] | None = obj._stubs
        if stubs is not None and name in stubs:
            return stubs[name]
        cls = self.spec.message_type
        child = cls.__new__(cls.__schema__.detached)
        child.__dict__[_OWNER] = (obj, name)
        if stubs is None:
            stubs = {}
            object.__setattr__(obj, _STUBS, stubs)
        stubs[name] = child
        return child


def _attach(message: Message) -> None:
    """Make a detached child (and its detached ancestors) a present field of its parent."""
    link = message.__dict__.pop(_OWNER, None)
    if link is None:
        return
    parent, name = link
    _attach(parent)
    object.__setattr__(message, "__class__", message.__schema__.cls)
    stubs = parent._stubs
    if stubs is not None and stubs.get(name) is message:
        del stubs[name]
    if name not in parent.__dict__:
        _store_child(parent, name, message)


attach: Final = _attach


def _changed(message: Message) -> None:
    """Before any change to ``message``: its source bytes, if it has any, no longer hold."""
    span = message._span
    if span is not None:
        report_span(span)


def _before_write(message: Message) -> None:
    """Before any change to ``message``: a detached child becomes a present field of its
    parent, and the message's source bytes, if it has any, no longer hold."""
    # The type, not message.__dict__: reading that would give every written message a dict.
    if type(message) is not message.__schema__.cls:
        _attach(message)
    _changed(message)


def _store_child(parent: Message, name: str, child: Message) -> None:
    """Make ``child`` itself field ``name`` of ``parent`` (an assignment would store a copy)."""
    _changed(parent)
    _, others = _plan(parent.__schema__, name, type(parent))
    for other in others:
        with contextlib.suppress(AttributeError):
            object.__delattr__(parent, other)
    object.__setattr__(parent, name, child)


def _sever(message: Message, name: str | None) -> None:
    """Forget the stubs handed out for field ``name`` (all fields when None): later writes
    into them no longer reach ``message``, as after protobuf's ClearField/Clear."""
    stubs = message._stubs
    if not stubs:
        return
    for field_name in [name] if name is not None else list(stubs):
        child = stubs.pop(field_name, None)
        if child is not None:
            child.__dict__.pop(_OWNER, None)
            object.__setattr__(child, "__class__", child.__schema__.cls)


def _check_field(cls: type, spec: FieldSpec) -> None:
    where = f"{cls.__qualname__}.{spec.name}"
    if not 1 <= spec.number <= MAX_FIELD_NUMBER:
        raise SchemaError(f"{where}: field number {spec.number} is outside 1..{MAX_FIELD_NUMBER}")
    if spec.number in RESERVED_NUMBERS:
        raise SchemaError(f"{where}: field number {spec.number} is reserved (19000-19999)")
    if spec.packed and not (spec.repeated and spec.kind.packable):
        raise SchemaError(f"{where}: only repeated scalar numeric fields can be packed")
    if spec.repeated and spec.oneof is not None:
        raise SchemaError(f"{where}: a oneof member cannot be repeated")
    if (spec.kind is Kind.ENUM) != (spec.enum_type is not None):
        raise SchemaError(f"{where}: an ENUM field needs enum=..., and only an ENUM field takes one")
    if spec.enum_type is not None and not issubclass(spec.enum_type, enum.IntEnum):
        raise SchemaError(f"{where}: enum= must be an IntEnum")
    if spec.name.startswith("_"):
        raise SchemaError(f"{where}: field names may not start with '_'")


def _full_name(cls: type) -> str:
    package = getattr(sys.modules.get(cls.__module__), "PROTO_PACKAGE", "")
    return f"{package}.{cls.__qualname__}" if package else cls.__qualname__


class Message:
    """Base of every declared message.

    >>> from schema_dsl.onnx import TensorShapeProto
    >>> dim = TensorShapeProto.Dimension(dim_value=3)
    >>> dim.HasField("dim_value"), dim.dim_param
    (True, '')

    Method names follow the protobuf Python API so code written against ``onnx``
    reads the same; none of them collides with a field of the ONNX schema.
    """

    __schema__: ClassVar[MessageSchema]
    _unknown: ClassVar[tuple[Any, ...]] = ()
    _lazy: ClassVar[DeferredTable | None] = None  # pending repeated fields (see the module docstring)
    _stubs: ClassVar[dict[str, Message] | None] = None  # detached children handed out by reads
    _span: ClassVar[int | None] = None  # source bytes that are this message's encoding (schema_dsl.spans)

    def __init_subclass__(cls, detached: bool = False, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if detached:
            return  # the detached variant shares its base's schema
        specs: list[FieldSpec] = []
        annotations = inspect.get_annotations(cls)
        for name, value in list(cls.__dict__.items()):
            if not isinstance(value, FieldSpec):
                continue
            value.name = name
            value.owner = cls
            value._annotation = str(annotations.get(name, ""))
            _check_field(cls, value)
            specs.append(value)
            if value.repeated and value.kind is Kind.MESSAGE:
                setattr(cls, name, _MessageListDefault(value))
            elif value.repeated:
                setattr(cls, name, _RepeatedDefault(value))
            elif value.kind is Kind.MESSAGE:
                setattr(cls, name, _MessageDefault(value))
            else:
                setattr(cls, name, value.default)
        for name, annotation in annotations.items():
            # ``x: int`` with no ``= optional(...)`` would silently declare nothing.
            if name not in cls.__dict__ and not name.startswith("_") and "ClassVar" not in str(annotation):
                raise SchemaError(
                    f"{cls.__qualname__}.{name}: annotated but not declared as a field "
                    "(give it a value such as optional(...) or repeated(...))"
                )
        field_names = {s.name for s in specs}
        _expose_enum_values(cls, field_names)
        for group in sorted({s.oneof for s in specs if s.oneof is not None} & field_names):
            raise SchemaError(f"{cls.__qualname__}: oneof {group!r} has the name of a field")
        numbers = [s.number for s in specs]
        if len(set(numbers)) != len(numbers):
            dup = sorted({n for n in numbers if numbers.count(n) > 1})
            raise SchemaError(f"{cls.__qualname__}: field numbers used twice: {dup}")
        cls.__schema__ = MessageSchema(cls, _full_name(cls), tuple(specs))
        # Same layout and behaviour; being of this class marks a child not yet attached.
        cls.__schema__.detached = types.new_class(
            cls.__name__,
            (cls,),
            {"detached": True},
            lambda ns: ns.update(__slots__=(), __qualname__=cls.__qualname__),
        )

    def __init__(self, **fields: Any) -> None:
        by_name = self.__schema__.by_name
        for name, value in fields.items():
            if name not in by_name:
                raise FieldNameError(f"{type(self).__qualname__} has no field {name!r}")
            if value is not None:  # None leaves the field unset, as in protobuf
                setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        """Assign a field, checked and converted as protobuf does (see schema_dsl.assign).

        A name that is not a field is an AttributeError; setting a oneof member clears
        the others; the first write into a detached child attaches it to its parent.
        """
        schema = self.__schema__
        plan = schema.converters.get(name)
        if plan is None:
            plan = _plan(schema, name, type(self))
        convert, others = plan
        value = convert(value)
        _before_write(self)
        for other in others:
            # Not self.__dict__: reading it would give every written message a dict.
            with contextlib.suppress(AttributeError):
                object.__delattr__(self, other)
        object.__setattr__(self, name, value)

    # -- presence -------------------------------------------------------------------------

    def HasField(self, name: str) -> bool:
        """Whether a singular field is present (an implicit empty child is not)."""
        spec = self._spec(name)
        if spec.repeated:
            raise ValueError(f"{spec.full_name} is repeated and has no presence")
        return name in self.__dict__

    def ClearField(self, name: str) -> None:
        """Make a field absent again (an empty list for a repeated field)."""
        self._spec(name)
        _before_write(self)  # clearing counts as a write, as in protobuf
        self.__dict__.pop(name, None)
        _sever(self, name)
        with _load_lock:
            _take_pending(self, name)

    def _load_lazy(self) -> None:
        """Decode every pending repeated field (before looking at ``__dict__`` wholesale)."""
        while self._lazy:
            name = self._lazy.first_name()
            assert name is not None
            _load_pending(self, name)

    def WhichOneof(self, group: str) -> str | None:
        """The name of the member of oneof ``group`` that is present, or None."""
        members = self.__schema__.oneofs.get(group)
        if members is None:
            raise ValueError(f"{type(self).__qualname__} has no oneof {group!r}")
        for spec in members:
            if self.HasField(spec.name):
                return spec.name
        return None

    def ListFields(self) -> list[tuple[FieldSpec, Any]]:
        """Present fields in field-number order, as ``(spec, value)`` pairs."""
        out = []
        if self._lazy:
            self._load_lazy()
        d = self.__dict__
        for spec in self.__schema__.fields:
            if spec.name not in d:
                continue
            value = d[spec.name]
            if spec.repeated:
                if value:
                    out.append((spec, value))
            elif self.HasField(spec.name):
                out.append((spec, value))
        return out

    # -- serialization (through the installed codec) --------------------------------------

    def SerializeToString(self, *, deterministic: bool | None = None) -> bytes:
        """The message's encoding, exactly as protobuf writes it (``deterministic`` is accepted
        for compatibility: the encoding is always deterministic)."""
        return _the_codec().encode(self)

    def SerializePartialToString(self, *, deterministic: bool | None = None) -> bytes:
        """The same as :meth:`SerializeToString` (ONNX declares no required fields)."""
        return _the_codec().encode(self)

    def ByteSize(self) -> int:
        """The length of :meth:`SerializeToString`'s result, computed without joining the bytes."""
        return _the_codec().byte_size(self)

    def MergeFromString(self, data: Any) -> int:
        """Parse ``data`` and merge it into this message (protobuf's merge); returns its length.

        View fields of the result (``TensorProto.raw_data``) are views of ``data``.
        """
        self.MergeFrom(_the_codec().decode(self.__schema__.cls, data))
        return len(memoryview(data))

    def ParseFromString(self, data: Any) -> int:
        """Replace this message's content with ``data`` parsed; returns its length."""
        self.Clear()
        return self.MergeFromString(data)

    @classmethod
    def FromString(cls: type[_M], data: Any) -> _M:
        """A new message parsed from ``data`` (its view fields, such as ``raw_data``, look into ``data``)."""
        message = _the_codec().decode(cls.__schema__.cls, data)
        assert isinstance(message, cls)
        return message

    def IsInitialized(self) -> bool:
        """Always True: the ONNX schema (proto2) declares no required fields."""
        return True

    def DiscardUnknownFields(self) -> None:
        """Drop unknown fields here and in every sub-message, as protobuf does."""
        if self._unknown:
            _changed(self)
        self.__dict__.pop(_UNKNOWN, None)
        for spec, value in self.ListFields():
            if spec.kind is Kind.MESSAGE:
                for child in value if spec.repeated else (value,):
                    child.DiscardUnknownFields()

    def UnknownFields(self) -> list[Any]:
        """Raw wire records (tag and value) of fields the schema does not know, in order."""
        return list(self._unknown)

    def _spec(self, name: str) -> FieldSpec:
        spec = self.__schema__.by_name.get(name)
        if spec is None:
            raise ValueError(f"{type(self).__qualname__} has no field {name!r}")
        return spec

    # -- whole-message operations ----------------------------------------------------------

    def Clear(self) -> None:
        """Remove every field, known and unknown (a detached child becomes present, as in protobuf)."""
        # References to this message's unset children stop writing into it, as in protobuf.
        # (upb keeps them for a detached parent in some cases, depending on which of its
        # wrapper objects are still alive; one rule here.)
        _before_write(self)
        _sever(self, None)
        self.__dict__.clear()

    def SetInParent(self) -> None:
        """Make this (possibly still detached) child a present field of its parent."""
        _attach(self)

    def MergeFrom(self, other: Message) -> None:
        """protobuf's merge: scalars overwrite, repeated fields extend, messages merge."""
        if not isinstance(other, Message) or other.__schema__ is not self.__schema__:
            raise TypeError(f"cannot merge {type(other).__qualname__} into {type(self).__qualname__}")
        for spec, value in other.ListFields():
            if spec.repeated:
                getattr(self, spec.name).extend(value)
            elif spec.kind is Kind.MESSAGE:
                child = getattr(self, spec.name)
                _attach(child)  # merging a present message makes it present, even if empty
                child.MergeFrom(value)
            else:
                setattr(self, spec.name, value)
        if other._unknown:
            _before_write(self)
            self.__dict__[_UNKNOWN] = [*self._unknown, *other._unknown]

    def CopyFrom(self, other: Message) -> None:
        """Replace this message's content with a deep copy of ``other``'s."""
        if other is self:
            return
        if not isinstance(other, Message) or other.__schema__ is not self.__schema__:
            raise TypeError(f"cannot copy {type(other).__qualname__} into {type(self).__qualname__}")
        source = copy_message(other)  # first: ``other`` may live inside this message
        self.Clear()
        self.MergeFrom(source)

    # Copies are ordinary (attached) messages: a detached child's link to its parent
    # belongs to the original alone.

    def __deepcopy__(self, memo: dict[int, Any]) -> Message:
        self._load_lazy()
        cls = self.__schema__.cls
        clone = cls.__new__(cls)
        for key, value in self.__dict__.items():
            if key not in _NOT_COPIED:
                clone.__dict__[key] = _deep(value, memo)
        return clone

    def __copy__(self) -> Message:
        self._load_lazy()
        cls = self.__schema__.cls
        clone = cls.__new__(cls)
        clone.__dict__.update(self.__dict__)
        for key in _NOT_COPIED:
            clone.__dict__.pop(key, None)
        return clone

    def __reduce__(self) -> tuple[Any, ...]:
        # Views into a mapped file cannot travel; pickling takes a copy of the bytes.
        self._load_lazy()
        state = {key: _deep(value, {}) for key, value in self.__dict__.items() if key not in _NOT_COPIED}
        return (_rebuild, (self.__schema__.cls, state))

    # -- comparison and display -------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Message) or other.__schema__ is not self.__schema__:
            return NotImplemented
        mine, theirs = self.ListFields(), other.ListFields()
        if [s.number for s, _ in mine] != [s.number for s, _ in theirs]:
            return False
        for (spec, a), (_, b) in zip(mine, theirs, strict=True):
            if spec.kind is Kind.BYTES:
                a = [bytes(x) for x in a] if spec.repeated else bytes(a)
                b = [bytes(x) for x in b] if spec.repeated else bytes(b)
            if not _same(a, b):
                return False
        return [bytes(u) for u in self._unknown] == [bytes(u) for u in other._unknown]

    __hash__ = None  # type: ignore[assignment]  # mutable, like protobuf messages

    def __str__(self) -> str:
        """The message as ``str()`` shows a message of the onnx package (protobuf text format)."""
        from schema_dsl.text_format import to_str  # imports this module: a cycle at import time

        return to_str(self)

    def __repr__(self) -> str:
        parts = []
        for spec, value in self.ListFields():
            if isinstance(value, memoryview) or (spec.kind is Kind.BYTES and not spec.repeated):
                shown = f"<{len(value)} bytes>" if len(value) > 32 else repr(bytes(value))
            else:
                shown = repr(value)
            parts.append(f"{spec.name}={shown}")
        if self._unknown:
            parts.append(f"<{len(self._unknown)} unknown fields>")
        return f"{type(self).__qualname__}({', '.join(parts)})"

    def __iter__(self) -> Iterator[Any]:
        raise TypeError(f"{type(self).__qualname__} is not iterable")


def _plan(schema: MessageSchema, name: str, cls: type) -> tuple[Converter, tuple[str, ...]]:
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
    return converter(spec), others


def _expose_enum_values(cls: type, field_names: set[str]) -> None:
    """Each value of an enum declared in ``cls`` becomes an int class attribute, as protobuf does."""
    taken: dict[str, str] = {}
    for enum_name, value in list(cls.__dict__.items()):
        if not (isinstance(value, type) and issubclass(value, enum.IntEnum)):
            continue
        for member in value:
            if member.name in field_names or member.name in taken:
                clash = "a field" if member.name in field_names else f"a value of {taken[member.name]}"
                raise SchemaError(
                    f"{cls.__qualname__}.{enum_name}.{member.name}: the name is already {clash}"
                )
            taken[member.name] = enum_name
            setattr(cls, member.name, int(member))


def _same(a: Any, b: Any) -> bool:
    # Float fields compare bit-for-bit so NaN == NaN, as protobuf's message equality does.
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _rebuild(cls: type[Message], state: dict[str, Any]) -> Message:
    message = cls.__new__(cls)
    by_name = cls.__schema__.by_name
    for key, value in state.items():
        spec = by_name.get(key)
        if spec is not None and spec.repeated:
            value = new_container(spec, value)
        message.__dict__[key] = value
    return message


def _deep(value: Any, memo: dict[int, Any]) -> Any:
    if isinstance(value, memoryview):
        return value.tobytes()
    if isinstance(value, RepeatedContainer):
        return new_container(value._spec, [_deep(v, memo) for v in value])
    if isinstance(value, list):
        return [_deep(v, memo) for v in value]
    if isinstance(value, Message):
        return value.__deepcopy__(memo)
    return value


def copy_message(message: Message) -> Message:
    """An independent copy of ``message`` (what a repeated field stores on append): its
    messages and lists are new, its immutable values and ``bytes`` views are shared."""
    message._load_lazy()
    cls = message.__schema__.cls
    clone = cls.__new__(cls)
    target = clone.__dict__
    for key, value in message.__dict__.items():
        if key in _NOT_COPIED:
            continue
        if isinstance(value, RepeatedContainer):
            items = [copy_message(v) for v in value] if value._spec.kind is Kind.MESSAGE else value
            value = new_container(value._spec, items)
        elif isinstance(value, Message):
            value = copy_message(value)
        elif key == _UNKNOWN:
            value = list(value)
        target[key] = value
    return clone


def resolve_message_type(spec: FieldSpec) -> type[Message]:
    """Find the class a MESSAGE field's annotation names (forward references allowed)."""
    owner = spec.owner
    text = spec._annotation.strip()
    if text.startswith(("list[", "List[")) and text.endswith("]"):
        text = text[text.index("[") + 1 : -1].strip()
    if owner is None or not text:
        raise SchemaError(f"{spec.full_name}: a MESSAGE field needs a class annotation")
    namespace = dict(vars(sys.modules[owner.__module__]))
    # Let a nested message name its siblings without the outer prefix.
    outer_path = owner.__qualname__.split(".")[:-1]
    scope: Any = sys.modules[owner.__module__]
    for part in outer_path:
        scope = getattr(scope, part, None)
        if not isinstance(scope, type):
            break  # a class declared inside a function: only module names are visible
        namespace.update(vars(scope))
    try:
        target = eval(text, namespace)
    except Exception as exc:
        raise SchemaError(f"{spec.full_name}: cannot resolve annotation {text!r}: {exc}") from exc
    if not (isinstance(target, type) and issubclass(target, Message)):
        raise SchemaError(f"{spec.full_name}: annotation {text!r} is not a message class")
    return target
