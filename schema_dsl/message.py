"""The message base class: declared fields become attributes with proto2 semantics.

Representation (chosen for decode speed, see docs/performance.md):

* every declared class is two classes: a private *holder* with one ``__slots__`` entry
  per field, and the declared class itself, a subclass that adds nothing but the checked
  ``__setattr__`` (typed assignment). A decoder fills a holder instance with plain
  attribute stores, the cheapest Python has, then gives it the declared class
  (``o.__class__ = cls``: same layout, no copy);
* ``_has`` is a bit mask of the fields that are *stored*: a present singular field, or
  a repeated field whose container exists. ``HasField`` tests its bit;
* an unset singular scalar reads as its default because every constructor fills all
  scalar slots with their defaults (:func:`blank`): a read is a plain slot read, set or not;
* an unset message field's slot stays empty: reading it reaches ``__getattr__`` (whose
  presence costs every attribute read of the class CPython's specialization, see
  docs/performance.md, so only classes with a message or repeated field have it: their
  holders derive from :class:`_UnsetFallback`), which gives a *detached* empty
  instance, remembered by its owner (in ``_stubs``) so that every read returns the same
  one; the first write into it attaches it (and every detached parent above it) to its
  owner, as in protobuf: every reference a user holds sees every write. ``ClearField``
  and ``Clear`` cut the link;
* an unset repeated field reads (through ``__getattr__``) as an empty container stored
  in the owner at once, so all references share it; while the owner is itself
  detached, the first write into the list attaches the owner;
* unknown fields are raw wire records kept in ``_unknown`` and re-emitted verbatim;
* a decoder may leave a repeated message field *pending*: ``_lazy`` then holds a
  :class:`DeferredTable` (the codec's; see wirecodec.protobuf.lazy) whose
  ``take(name).load()`` gives the elements. The field's slot is empty meanwhile, so the
  first read reaches ``__getattr__``, which loads and stores the list; everything that
  looks at the fields wholesale (ListFields, copies, pickling, the encoder) loads first.
  That is all the message model knows of it.
* a decoder may give a message a *span* (``_span``, an int; see schema_dsl.spans)
  meaning "my source bytes are my encoding", and its repeated fields the same span.
  Every change to the message or its containers reports the span first
  (:func:`_changed`), so the codec re-emits the bytes only while they still hold. Copies
  never take a span (nor what keeps the decoded root's bytes): their changes would go
  unreported.
"""

from __future__ import annotations

import contextlib
import enum
import inspect
import keyword
import sys
import threading
import types
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, ClassVar, Final, Protocol, TypeVar, cast

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
    "BLANK_INTERNALS",
    "Codec",
    "DeferredTable",
    "Extras",
    "Message",
    "MessageSchema",
    "attach",
    "blank",
    "copy_message",
    "dropped",
    "extras",
    "install_codec",
    "resolve_message_type",
    "shallow_copy",
    "slot_value",
    "stored_fields",
    "stored_value",
]

_M = TypeVar("_M", bound="Message")
_UNKNOWN: Final = "_unknown"
# The internal slots every constructor fills, with their empty values (see Message).
BLANK_INTERNALS: Final[tuple[tuple[str, Any], ...]] = (("_span", None), ("_has", 0), ("_x", None))
_new_list: Final = list.__new__
_new: Final = object.__new__
_osa: Final = object.__setattr__
_odel: Final = object.__delattr__


class Extras:
    """What few messages need, kept in one slot (``_x``, None until needed) so that the
    others pay 8 bytes for it: unknown fields, pending fields (``lazy``), the children
    handed out by reads (``stubs``), a detached child's link to its parent (``owner``),
    and what keeps a decoded root's bytes (``origin``)."""

    __slots__ = ("lazy", "loading", "origin", "owner", "stubs", "unknown")

    def __init__(self) -> None:
        self.lazy: DeferredTable | None = None
        self.loading: threading.Lock | None = None  # held while a pending field is decoded
        self.origin: Any = None
        self.owner: tuple[Message, str] | None = None
        self.stubs: dict[str, Message] | None = None
        self.unknown: tuple[Any, ...] | list[Any] = ()


def extras(message: Message) -> Extras:
    """``message``'s :class:`Extras`, made now if it had none."""
    found = message._x
    if found is None:
        found = Extras()
        _osa(message, "_x", found)
    return found


class PendingField(Protocol):
    """What a deferred field's record offers the message model."""

    def load(self) -> list[Any]: ...


class DeferredTable(Protocol):
    """The fields a decoder left pending on a message (implemented by the codec)."""

    def __contains__(self, name: object, /) -> bool: ...

    def __len__(self) -> int: ...

    def record(self, name: str) -> PendingField | None: ...

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
        "detached",
        "field_bits",
        "fields",
        "fresh",
        "full_name",
        "holder",
        "oneofs",
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
        self.detached: type[Message] = cls
        self.full_name = full_name
        self.declared = fields
        self.fresh: Callable[[], Any] = holder  # replaced by _fresh_maker once declared
        self.fields = tuple(sorted(fields, key=lambda f: f.number))
        self.by_name = {f.name: f for f in self.fields}
        self.by_number = {f.number: f for f in self.fields}
        self.bit = {f.name: 1 << i for i, f in enumerate(self.fields)}
        self.field_bits = tuple((f, 1 << i) for i, f in enumerate(self.fields))
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


def _fresh_maker(holder: type[Message], defaults: tuple[tuple[str, Any], ...]) -> Callable[[], Any]:
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


def _store(message: Message, name: str, value: Any) -> None:
    """Store field ``name`` and mark it stored (no checks, no conversion)."""
    _osa(message, name, value)
    _osa(message, "_has", message._has | message.__schema__.bit[name])


def _unset(message: Message, name: str) -> None:
    """Make field ``name`` unset: its slot emptied (or back to the default), its bit cleared."""
    _osa(message, "_has", dropped(message, name, message._has))


def _store_empty_list(obj: Message, spec: FieldSpec) -> RepeatedContainer[Any]:
    """Store an empty container as field ``spec`` of ``obj`` and return it (the first read of the field)."""
    empty: RepeatedContainer[Any] = _new_list(container_class(spec))
    if type(obj) is not obj.__schema__.cls:
        empty._owner = obj  # only a detached owner needs to hear of the first write
    else:
        empty._span = obj._span
    _store(obj, spec.name, empty)
    return empty


# Reading is safe from many threads (docs/guide.md, "Threads"). A read that stores
# something (a pending field's elements, the empty container of an unset repeated field,
# a detached child) publishes it under the message's *stripe*: one of a few locks, picked
# by the message's address, held only for the few stores that publish (never while
# decoding), so that a presence bit set by one thread is never lost to another's
# read-modify-write of ``_has``, and a reader never sees a field neither pending nor stored.
# Decoding a pending field happens under a lock of the message itself (Extras.loading):
# one thread decodes, the others wait for its list; unrelated messages never wait.
_STRIPES: Final = tuple(threading.Lock() for _ in range(64))


def _stripe(message: Message) -> threading.Lock:
    return _STRIPES[(id(message) >> 4) & 63]


def _loading_lock(x: Extras, message: Message) -> threading.Lock:
    lock = x.loading
    if lock is None:
        with _stripe(message):
            lock = x.loading
            if lock is None:
                lock = x.loading = threading.Lock()
    return lock


def _load_pending(message: Message, name: str) -> Any:
    """Decode a pending field, store its list and return it (or what another thread stored)."""
    x = message._x
    if x is None:  # no table: nothing was ever pending (or Clear() ran since)
        return getattr(message, name)
    with _loading_lock(x, message):
        table = x.lazy
        record = None if table is None else table.record(name)
        if table is None or record is None:
            return getattr(message, name)  # another thread loaded it while this one waited
        value = slot_value(message, name)  # stored: assigned since the decode, the record is stale
        if value is None:
            loaded = record.load()
            spec = message.__schema__.by_name[name]
            value = loaded if type(loaded) is container_class(spec) else new_container(spec, loaded)
            value._span = message._span
        with _stripe(message):
            # Stored before the record goes: a reader finding no record finds the list.
            _store(message, name, value)
            table.take(name)
            if not table:
                x.lazy = None
        return value


def _read_unset_repeated(message: Message, spec: FieldSpec) -> Any:
    """The first read of repeated field ``spec`` whose slot is empty: its pending
    elements loaded, or an empty container stored (see :func:`_store_empty_list`)."""
    table = message._lazy
    if table is not None and spec.name in table:
        return _load_pending(message, spec.name)
    with _stripe(message):
        # Another reader may have stored it since this one found the slot empty.
        value = slot_value(message, spec.name)
        if value is None:
            value = _store_empty_list(message, spec)
        return value


def _stub(obj: Message, spec: FieldSpec) -> Message:
    """The detached empty child an unset message field reads as (the same one every time)."""
    name = spec.name
    stubs: dict[str, Message] | None = obj._stubs
    child = None if stubs is None else stubs.get(name)
    if child is not None:
        return child
    with _stripe(obj):
        x = extras(obj)
        if x.stubs is None:
            x.stubs = {}
        child = x.stubs.get(name)
        if child is None:
            child = blank(spec.message_type.__schema__.detached)
            extras(child).owner = (obj, name)
            x.stubs[name] = child
        return child


def _attach(message: Message) -> None:
    """Make a detached child (and its detached ancestors) a present field of its parent."""
    schema = message.__schema__
    if type(message) is schema.cls:
        return  # attached already (only the detached class carries a link)
    x = message._x
    if x is None or x.owner is None:
        return
    parent, name = x.owner
    x.owner = None
    _attach(parent)
    _osa(message, "__class__", schema.cls)
    stubs = parent._stubs
    if stubs is not None and stubs.get(name) is message:
        del stubs[name]
    if not parent._has & parent.__schema__.bit[name]:
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
    if type(message) is not message.__schema__.cls:
        _attach(message)
    _changed(message)


def _store_child(parent: Message, name: str, child: Message) -> None:
    """Make ``child`` itself field ``name`` of ``parent`` (an assignment would store a copy)."""
    _changed(parent)
    _, others = _plan(parent.__schema__, name, type(parent))
    for other in others:
        _unset(parent, other)
    _store(parent, name, child)


def _sever(message: Message, name: str | None) -> None:
    """Forget the stubs handed out for field ``name`` (all fields when None): later writes
    into them no longer reach ``message``, as after protobuf's ClearField/Clear."""
    stubs = message._stubs
    if not stubs:
        return
    for field_name in [name] if name is not None else list(stubs):
        child = stubs.pop(field_name, None)
        if child is not None:
            extras(child).owner = None
            _osa(child, "__class__", child.__schema__.cls)


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
    if not spec.name.isidentifier() or keyword.iskeyword(spec.name):
        raise SchemaError(f"{where}: a field name must be a Python identifier")


def _full_name(cls: type) -> str:
    package = getattr(sys.modules.get(cls.__module__), "PROTO_PACKAGE", "")
    return f"{package}.{cls.__qualname__}" if package else cls.__qualname__


class _MessageType(type):
    """Builds each declared message as a slotted holder of its fields and, on top of it,
    the declared class (see the module docstring)."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        detached: bool = False,
        **kwargs: Any,
    ) -> _MessageType:
        if detached or not any(isinstance(base, _MessageType) for base in bases):
            return super().__new__(mcs, name, bases, namespace, **kwargs)  # the base, or a detached variant
        if "__slots__" in namespace:
            raise SchemaError(f"{namespace.get('__qualname__', name)}: a message's slots are its fields")
        specs = {key: value for key, value in namespace.items() if isinstance(value, FieldSpec)}
        rest = {key: value for key, value in namespace.items() if key not in specs}
        qualname = namespace.get("__qualname__", name)
        holder_namespace = {
            "__slots__": tuple(specs),
            "__module__": namespace.get("__module__"),
            "__qualname__": qualname,
        }
        if any(spec.repeated or spec.kind is Kind.MESSAGE for spec in specs.values()):
            # Only these can have an empty slot to fall back from; a class without the
            # fallback keeps CPython's specialized attribute reads (docs/performance.md).
            bases = (*bases, _UnsetFallback)
        holder = super().__new__(mcs, name, bases, holder_namespace)
        rest["__slots__"] = ()
        rest["__setattr__"] = _checked_setattr
        cls = super().__new__(mcs, name, (holder,), rest, **kwargs)
        _declare(cls, holder, specs)  # type: ignore[arg-type]
        return cls

    def __init__(cls, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args)  # type.__init__ takes no keywords (``detached`` is __new__'s)


def _declare(cls: type[Message], holder: type[Message], declared: dict[str, FieldSpec]) -> None:
    """Check the declared fields and give both classes their schema."""
    specs: list[FieldSpec] = []
    annotations = inspect.get_annotations(cls)
    for name, value in declared.items():
        value.name = name
        value.owner = cls
        value._annotation = str(annotations.get(name, ""))
        _check_field(cls, value)
        specs.append(value)
    for name, annotation in annotations.items():
        # ``x: int`` with no ``= optional(...)`` would silently declare nothing.
        if (
            name not in declared
            and name not in cls.__dict__
            and not name.startswith("_")
            and "ClassVar" not in str(annotation)
        ):
            raise SchemaError(
                f"{cls.__qualname__}.{name}: annotated but not declared as a field "
                "(give it a value such as optional(...) or repeated(...))"
            )
    field_names = set(declared)
    _expose_enum_values(cls, field_names)
    for group in sorted({s.oneof for s in specs if s.oneof is not None} & field_names):
        raise SchemaError(f"{cls.__qualname__}: oneof {group!r} has the name of a field")
    numbers = [s.number for s in specs]
    if len(set(numbers)) != len(numbers):
        dup = sorted({n for n in numbers if numbers.count(n) > 1})
        raise SchemaError(f"{cls.__qualname__}: field numbers used twice: {dup}")
    schema = MessageSchema(cls, holder, _full_name(cls), tuple(specs))
    schema.fresh = _fresh_maker(holder, schema.defaults)
    holder.__schema__ = schema
    cls.__schema__ = schema
    # Same layout and behaviour; being of this class marks a child not yet attached.
    schema.detached = types.new_class(
        cls.__name__,
        (cls,),
        {"detached": True},
        lambda ns: ns.update(__slots__=(), __qualname__=cls.__qualname__, __module__=cls.__module__),
    )


def _checked_setattr(self: Message, name: str, value: Any) -> None:
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
        _unset(self, other)
    _store(self, name, value)


class _UnsetFallback:
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
                if spec.kind is Kind.MESSAGE:
                    return _stub(self, spec)
            raise AttributeError(f"{type(self).__qualname__!r} object has no attribute {name!r}")


class Message(metaclass=_MessageType):
    """Base of every declared message.

    >>> from schema_dsl.onnx import TensorShapeProto
    >>> dim = TensorShapeProto.Dimension(dim_value=3)
    >>> dim.HasField("dim_value"), dim.dim_param
    (True, '')

    Method names follow the protobuf Python API so code written against ``onnx``
    reads the same; none of them collides with a field of the ONNX schema.
    """

    __slots__ = tuple(name for name, _ in BLANK_INTERNALS)
    __schema__: ClassVar[MessageSchema]
    _span: int | None  # source bytes that are this message's encoding (schema_dsl.spans)
    _has: int  # a bit per stored field (MessageSchema.bit)
    _x: Extras | None  # what few messages need (Extras)

    @property
    def _unknown(self) -> tuple[Any, ...] | list[Any]:
        x = self._x
        return () if x is None else x.unknown

    @property
    def _lazy(self) -> DeferredTable | None:
        """Pending repeated fields (see the module docstring)."""
        x = self._x
        return None if x is None else x.lazy

    @property
    def _stubs(self) -> dict[str, Message] | None:
        """Detached children handed out by reads."""
        x = self._x
        return None if x is None else x.stubs

    def __new__(cls, *args: Any, **kwargs: Any) -> Message:
        declared = cls.__schema__.cls
        if cls is declared:
            return blank(cls)
        # The class of an unset field's detached child (``type(model.graph)``) makes an
        # ordinary message, as protobuf's does. Python skips __init__ for an object that
        # is not an instance of ``cls``, so it is called here.
        message = blank(declared)
        Message.__init__(message, *args, **kwargs)
        return message

    def __init__(self, **fields: Any) -> None:
        by_name = self.__schema__.by_name
        for name, value in fields.items():
            spec = by_name.get(name)
            if spec is None:
                raise FieldNameError(f"{type(self).__qualname__} has no field {name!r}")
            if value is None:  # None leaves the field unset, as in protobuf
                continue
            if spec.kind is Kind.MESSAGE:
                # As protobuf's constructor: a dict stands for the message it would make.
                if spec.repeated and not isinstance(value, (str, bytes, dict)):
                    value = [_from_dict(spec, item) for item in value]
                else:
                    value = _from_dict(spec, value)
            setattr(self, name, value)

    # -- presence -------------------------------------------------------------------------

    def HasField(self, name: str) -> bool:
        """Whether a singular field is present (an implicit empty child is not); with a
        oneof's name, whether any of its members is, as in protobuf."""
        if name in self.__schema__.oneofs and name not in self.__schema__.by_name:
            return self.WhichOneof(name) is not None
        spec = self._spec(name)
        if spec.repeated:
            raise ValueError(f"{spec.full_name} is repeated and has no presence")
        return bool(self._has & self.__schema__.bit[name])

    def ClearField(self, name: str) -> None:
        """Make a field absent again (an empty list for a repeated field); with a oneof's
        name, whichever of its members is present, as in protobuf."""
        if name in self.__schema__.oneofs and name not in self.__schema__.by_name:
            member = self.WhichOneof(name)
            if member is not None:
                self.ClearField(member)
            return
        self._spec(name)
        _before_write(self)  # clearing counts as a write, as in protobuf
        _unset(self, name)
        _sever(self, name)
        x = self._x
        if x is not None and x.lazy is not None:
            x.lazy.take(name)
            if not x.lazy:
                x.lazy = None

    def _load_lazy(self) -> None:
        """Decode every pending repeated field (before looking at the fields wholesale)."""
        while True:
            table = self._lazy
            name = None if table is None else table.first_name()
            if name is None:
                return
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
        if self._lazy:
            self._load_lazy()
        return [(spec, value) for spec, value in stored_fields(self) if value or not spec.repeated]

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
        declared = cls.__schema__.cls  # also when ``cls`` is a detached child's class
        message = _the_codec().decode(declared, data)
        assert isinstance(message, declared)
        return cast(_M, message)

    def IsInitialized(self) -> bool:
        """Always True: the ONNX schema (proto2) declares no required fields."""
        return True

    def DiscardUnknownFields(self) -> None:
        """Drop unknown fields here and in every sub-message, as protobuf does."""
        if self._unknown:
            _changed(self)
            extras(self).unknown = ()
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
        for spec in self.__schema__.fields:
            if spec.repeated or spec.kind is Kind.MESSAGE:
                with contextlib.suppress(AttributeError):
                    _odel(self, spec.name)
        for name, value in (*BLANK_INTERNALS, *self.__schema__.defaults):
            _osa(self, name, value)

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
            extras(self).unknown = [*self._unknown, *other._unknown]

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
        return _rebuild(self.__schema__.cls, {key: _deep(value, memo) for key, value in _state(self)})

    def __copy__(self) -> Message:
        # As protobuf's: an independent message (views of bytes, immutable, are shared).
        return copy_message(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Views into a mapped file cannot travel; pickling takes a copy of the bytes.
        return (_rebuild, (self.__schema__.cls, {key: _deep(value, {}) for key, value in _state(self)}))

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


def _from_dict(spec: FieldSpec, value: Any) -> Any:
    """``value``, or the message of ``spec``'s type a dict of its fields stands for."""
    return spec.message_type(**value) if isinstance(value, dict) else value


def shallow_copy(message: _M) -> _M:
    """A new message sharing ``message``'s containers and sub-messages (for code that
    replaces some fields of a large message and leaves the rest alone)."""
    return cast(_M, _rebuild(message.__schema__.cls, dict(_state(message)), convert=False))


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


def _state(message: Message) -> Iterator[tuple[str, Any]]:
    """What a copy or a pickle keeps: the stored fields by name, and the unknown records.
    (Links to an owner and to stubs stay behind, and so do the span and what keeps its
    bytes: a copy's changes would not be reported.)"""
    message._load_lazy()
    for spec, value in stored_fields(message):
        yield spec.name, value
    if message._unknown:
        yield _UNKNOWN, message._unknown


def _rebuild(cls: type[Message], state: dict[str, Any], convert: bool = True) -> Message:
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
        _store(message, key, value)
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
    state: dict[str, Any] = {}
    for key, value in _state(message):
        if isinstance(value, RepeatedContainer) and value._spec.kind is Kind.MESSAGE:
            value = [copy_message(v) for v in value]
        elif isinstance(value, Message):
            value = copy_message(value)
        state[key] = value
    return _rebuild(message.__schema__.cls, state)


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
