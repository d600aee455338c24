"""The message base class: declared fields become attributes with proto2 semantics.

:class:`Message` is protobuf's Python API over the representation; the other jobs
live in modules of their own, re-exported here for the code that imports them from
this module:

* schema_dsl.layout: the slotted representation (holder classes, the ``_has`` presence
  bits, scalar defaults in every slot, :class:`Extras`), and the plain looks and stores;
* schema_dsl.declare: a class statement becomes a checked message class;
* schema_dsl.presence: what an unset field reads as (a detached child, an empty
  container), attaching and severing detached children, checked assignment;
* schema_dsl.contract: where the codec plugs in (serialization, spans);
* schema_dsl.pending: fields a decoder left pending, and the thread contract of reads;
* schema_dsl.copying: copies and pickles.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

from schema_dsl.assign import FieldNameError
from schema_dsl.containers import list_extend
from schema_dsl.contract import (
    Codec,
    DeferredTable,
    PendingField,
    install_codec,
    install_receiver,
    installed_codec,
    the_codec,
)
from schema_dsl.copying import copy_message, deep_value, rebuild, shallow_copy, state_of
from schema_dsl.declare import MessageType
from schema_dsl.equality import comparators, unknown_equal
from schema_dsl.fields import FieldSpec, Kind
from schema_dsl.layout import (
    BLANK_INTERNALS,
    Extras,
    MessageSchema,
    blank,
    clear_slots,
    dropped,
    extras,
    slot_value,
    stored_fields,
    stored_value,
    take_state,
    unset,
)
from schema_dsl.pending import forget_pending, load_all_pending
from schema_dsl.presence import attach, before_write, changed, sever, store_valid

__all__ = [
    "BLANK_INTERNALS",
    "Codec",
    "DeferredTable",
    "Extras",
    "Message",
    "MessageSchema",
    "PendingField",
    "attach",
    "blank",
    "copy_message",
    "dropped",
    "extras",
    "install_codec",
    "install_receiver",
    "shallow_copy",
    "slot_value",
    "stored_fields",
    "stored_value",
]


class _Descriptor:
    """``DESCRIPTOR``: protobuf's descriptor of the class, as data (schema_dsl.descriptors)."""

    def __get__(self, obj: object, owner: type[Message]) -> Any:
        from schema_dsl.descriptors import descriptor_of  # on first use: few programs ask

        return descriptor_of(owner)


_M = TypeVar("_M", bound="Message")
_odel = object.__delattr__
_osa = object.__setattr__
# Pickles made before the split name their rebuilding function here.
_rebuild = rebuild


def _serialized(data: Any) -> Any:
    """``data`` if it can be serialized bytes as protobuf's parsers take them (``bytes``,
    ``bytearray``, ``memoryview``, a mapped file), else protobuf's TypeError: an array of
    numbers is not a message's bytes, even if it has a buffer."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return data
    import mmap  # only for this rarer case: ``import wirecodec`` loads no more than it needs

    if isinstance(data, mmap.mmap):
        return data
    kind = type(data)
    where = "" if kind.__module__ == "builtins" else f"{kind.__module__}."
    raise TypeError(f"expected bytes, {where}{kind.__qualname__} found")


class Message(metaclass=MessageType):
    """Base of every declared message.

    >>> from schema_dsl.onnx import TensorShapeProto
    >>> dim = TensorShapeProto.Dimension(dim_value=3)
    >>> dim.HasField("dim_value"), dim.dim_param
    (True, '')

    Method names follow the protobuf Python API so code written against ``onnx``
    reads the same; none of them collides with a field of the ONNX schema.
    """

    # Weak references: a view's children find their element (schema_dsl.views).
    __slots__ = (*(name for name, _ in BLANK_INTERNALS), "__weakref__")
    __schema__: ClassVar[MessageSchema]
    DESCRIPTOR: ClassVar[Any] = _Descriptor()
    _span: int | None  # source bytes that are this message's encoding (schema_dsl.contract)
    _has: int  # a bit per stored field (MessageSchema.bit)
    _x: Extras | None  # what few messages need (Extras)

    if not TYPE_CHECKING:  # (declared, it would hide the class's own __name__ from the checker)

        @property
        def __name__(self) -> str:
            # As protobuf's (upb) messages: an instance answers its class's name. pytest
            # names a parameter that has one by it: onnx's parametrized test ids say
            # "TensorProto".
            return type.__getattribute__(type(self), "__name__")

    @property
    def _unknown(self) -> tuple[Any, ...] | list[Any]:
        x = self._x
        return () if x is None else x.unknown

    @property
    def _lazy(self) -> DeferredTable | None:
        """Pending repeated fields (see schema_dsl.contract)."""
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
        # Another class of the schema's (its holder) makes a message of the declared class.
        # Python skips __init__ for an object that is not an instance of ``cls``, so it is
        # called here.
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

    def HasField(self, name: str | bytes) -> bool:
        """Whether a singular field is present (an implicit empty child is not); with a
        oneof's name, whether any of its members is, as in protobuf."""
        bit = self.__schema__.singular_bit.get(name)  # type: ignore[arg-type]  # bytes: never found
        if bit is not None:  # the common case: a field's name as str
            return bool(self._has & bit)
        name = _name_text(name)
        if name in self.__schema__.oneofs and name not in self.__schema__.by_name:
            return self.WhichOneof(name) is not None
        spec = self._spec(name)
        if spec.repeated:
            raise ValueError(f"{spec.full_name} is repeated and has no presence")
        return bool(self._has & self.__schema__.bit[name])

    def ClearField(self, name: str | bytes) -> None:
        """Make a field absent again (an empty list for a repeated field); with a oneof's
        name, whichever of its members is present, as in protobuf."""
        name = _name_text(name)
        if name in self.__schema__.oneofs and name not in self.__schema__.by_name:
            member = self.WhichOneof(name)
            if member is not None:
                self.ClearField(member)
            return
        self._spec(name)
        before_write(self)  # clearing counts as a write, as in protobuf
        unset(self, name)
        sever(self, name)
        forget_pending(self, name)

    def _load_lazy(self) -> None:
        """Load every pending field (before looking at the fields wholesale)."""
        load_all_pending(self)

    def WhichOneof(self, group: str | bytes) -> str | None:
        """The name of the member of oneof ``group`` (``str`` or ``bytes``) that is present, or None."""
        group = _name_text(group)
        members = self.__schema__.oneofs.get(group)
        if members is None:
            raise ValueError(f"{type(self).__qualname__} has no oneof {group!r}")
        for spec in members:
            if self.HasField(spec.name):
                return spec.name
        return None

    def ListFields(self) -> list[tuple[FieldSpec, Any]]:
        """Present fields in field-number order, as ``(spec, value)`` pairs."""
        x = self._x
        if x is not None and x.lazy:
            self._load_lazy()
        listed: list[tuple[FieldSpec, Any]] = []
        has = self._has
        if has:
            # Bits follow field numbers: past the highest stored bit nothing is left to list.
            for spec, bit, name, repeated in self.__schema__.listing:
                if has & bit:
                    value = getattr(self, name)
                    if value or not repeated:
                        listed.append((spec, value))
                elif bit > has:
                    break
        return listed

    # -- serialization (through the installed codec) --------------------------------------

    def SerializeToString(self, deterministic: bool | None = None) -> bytes:
        """The message's encoding, exactly as protobuf writes it (``deterministic`` is accepted
        for compatibility: the encoding is always deterministic)."""
        return the_codec().encode(self)

    def SerializePartialToString(self, deterministic: bool | None = None) -> bytes:
        """The same as :meth:`SerializeToString` (ONNX declares no required fields)."""
        return the_codec().encode(self)

    def ByteSize(self) -> int:
        """The length of :meth:`SerializeToString`'s result, computed without joining the bytes."""
        return the_codec().byte_size(self)

    def MergeFromString(self, data: Any) -> int:
        """Parse ``data`` and merge it into this message (protobuf's merge); returns its length.

        View fields of the result (``TensorProto.raw_data``) are views of ``data``.
        """
        self.MergeFrom(the_codec().decode(self.__schema__.cls, _serialized(data)))
        return len(memoryview(data))

    def ParseFromString(self, data: Any) -> int:
        """Replace this message's content with ``data`` parsed; returns its length."""
        self.Clear()
        return self.MergeFromString(data)

    @classmethod
    def FromString(cls: type[_M], data: Any) -> _M:
        """A new message parsed from ``data`` (its view fields, such as ``raw_data``, look into ``data``)."""
        declared = cls.__schema__.cls
        message = the_codec().decode(declared, _serialized(data))
        assert isinstance(message, declared)
        return cast(_M, message)

    def IsInitialized(self, errors: list[str] | None = None) -> bool:
        """Always True: the ONNX schema (proto2) declares no required fields (so nothing is
        added to ``errors``, the list protobuf fills with what is missing)."""
        return True

    def FindInitializationErrors(self) -> list[str]:
        """The paths of required fields that are missing: none (see :meth:`IsInitialized`)."""
        return []

    def DiscardUnknownFields(self) -> None:
        """Drop unknown fields here and in every sub-message, as protobuf does."""
        if self._unknown:
            changed(self)
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
        before_write(self)
        sever(self, None)
        clear_slots(self)

    def SetInParent(self) -> None:
        """Make this (possibly still detached) child a present field of its parent."""
        attach(self)

    def MergeFrom(self, other: Message) -> None:
        """protobuf's merge: scalars overwrite, repeated fields extend, messages merge."""
        if not isinstance(other, Message) or other.__schema__ is not self.__schema__:
            raise TypeError(f"cannot merge {type(other).__qualname__} into {type(self).__qualname__}")
        # ``other``'s values are valid for the field already: scalars are stored as they
        # are (a decoded string that is not UTF-8 merges as it was read, as in protobuf).
        for spec, value in other.ListFields():
            if spec.repeated:
                target = getattr(self, spec.name)
                if spec.kind is Kind.MESSAGE:
                    target.extend(value)  # copies
                else:
                    target._touch()
                    list_extend(target, list(value))  # a copy first: ``value`` may be ``target``
            elif spec.kind is Kind.MESSAGE:
                child = getattr(self, spec.name)
                attach(child)  # merging a present message makes it present, even if empty
                child.MergeFrom(value)
            else:
                store_valid(self, spec.name, value)
        if other._unknown:
            before_write(self)
            extras(self).unknown = [*self._unknown, *other._unknown]

    def CopyFrom(self, other: Message) -> None:
        """Replace this message's content with a deep copy of ``other``'s."""
        if other is self:
            return
        if not isinstance(other, Message) or other.__schema__ is not self.__schema__:
            raise TypeError(f"cannot copy {type(other).__qualname__} into {type(self).__qualname__}")
        source = copy_message(other)  # first: ``other`` may live inside this message
        self.Clear()
        # ``source`` is a fresh copy nobody else holds: its state is taken, not copied again
        # (fields still waiting in it wait in this message).
        take_state(self, source)

    # Copies are ordinary (attached) messages: a detached child's link to its parent
    # belongs to the original alone.

    def __deepcopy__(self, memo: dict[int, Any]) -> Message:
        return rebuild(self.__schema__.cls, {key: deep_value(value, memo) for key, value in state_of(self)})

    def _attach(self) -> None:
        """A write into a repeated field of this detached message makes it a present
        field of its parent (schema_dsl.containers calls it, through the owner link)."""
        attach(self)

    def __copy__(self) -> Message:
        # As protobuf's: an independent message (views of bytes, immutable, are shared).
        return copy_message(self)

    def __reduce__(self) -> tuple[Any, ...]:
        # Views into a mapped file cannot travel; pickling takes a copy of the bytes.
        return (rebuild, (self.__schema__.cls, {key: deep_value(value, {}) for key, value in state_of(self)}))

    # -- comparison and display -------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if other is self:  # as upb: no field lists built (list.index(node) compares each node)
            return True
        if type(other) is not type(self) and (
            not isinstance(other, Message) or other.__schema__ is not self.__schema__
        ):
            return NotImplemented
        if self._span is not None and other._span is not None:
            codec = installed_codec()
            if codec is not None:
                # Both decoded from canonical bytes and unchanged: equal exactly when their
                # bytes are (canonical bytes are one per value, floats bit for bit).
                equal = codec.equal_sources(self, other)
                if equal is not None:
                    return equal
        x = self._x
        if x is not None and x.lazy:
            self._load_lazy()
        x = other._x
        if x is not None and x.lazy:
            other._load_lazy()
        # Most unequal messages differ where a look is cheap (list.remove(node) compares
        # the node with every one before it): presence, a name, a list's length.
        quick, rest = comparators(self.__schema__)
        return not quick(self, other) and rest(self, other) and unknown_equal(self, other)

    __hash__ = None  # type: ignore[assignment]  # mutable, like protobuf messages

    def __str__(self) -> str:
        """The message as ``str()`` shows a message of the onnx package (protobuf text format)."""
        from schema_dsl.text_format import to_str  # on first use: it imports fractions and re

        return to_str(self)

    def __repr__(self) -> str:
        """The text format, as ``repr()`` of a protobuf message (onnx shows a short summary
        of models, graphs and functions instead: see schema_dsl.summaries)."""
        return self.__str__()

    def __contains__(self, name: object) -> bool:
        """``"field" in message``: protobuf's spelling of :meth:`HasField`."""
        if not isinstance(name, (str, bytes)):
            raise ValueError(f"Expected a field name, but got non-string argument {type(name).__qualname__}")
        return self.HasField(name)

    def __iter__(self) -> Iterator[Any]:
        raise TypeError(f"{type(self).__qualname__} is not iterable")


def _name_text(name: str | bytes) -> str:
    """A field name given as protobuf takes it: ``str``, or UTF-8 ``bytes``."""
    if isinstance(name, bytes):
        return name.decode("utf-8", "replace")  # a name that is not UTF-8 names no field
    return name


def _from_dict(spec: FieldSpec, value: Any) -> Any:
    """``value``, or the message of ``spec``'s type a dict of its fields stands for."""
    return spec.message_type(**value) if isinstance(value, dict) else value
