"""Declaring a message: the class statement becomes a slotted holder and the declared
class, checked as protobuf checks a ``.proto`` file (field numbers, reserved ranges,
packing, oneofs, names), and given its :class:`~schema_dsl.layout.MessageSchema`."""

from __future__ import annotations

import enum
import inspect
import keyword
import sys
from typing import TYPE_CHECKING, Any

from schema_dsl.fields import MAX_FIELD_NUMBER, RESERVED_NUMBERS, FieldSpec, Kind, SchemaError
from schema_dsl.layout import MessageSchema, fresh_maker
from schema_dsl.presence import UnsetFallback, checked_setattr, refused_delattr

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = ["MessageType"]


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


class MessageType(type):
    """Builds each declared message as a slotted holder of its fields and, on top of it,
    the declared class (see schema_dsl.layout)."""

    def __new__(
        mcs,
        name: str,
        bases: tuple[type, ...],
        namespace: dict[str, Any],
        **kwargs: Any,
    ) -> MessageType:
        if not any(isinstance(base, MessageType) for base in bases):
            return super().__new__(mcs, name, bases, namespace, **kwargs)  # the base, Message
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
            bases = (*bases, UnsetFallback)
        holder = super().__new__(mcs, name, bases, holder_namespace)
        rest["__slots__"] = ()
        rest["__setattr__"] = checked_setattr
        # On the declared class only: a __setattr__ or __delattr__ anywhere in the holder's
        # bases would take CPython's plain slot stores away from the decoders (every store
        # into a holder went through a Python-level lookup: three to four times slower).
        rest["__delattr__"] = refused_delattr
        cls = super().__new__(mcs, name, (holder,), rest, **kwargs)
        _declare(cls, holder, specs)  # type: ignore[arg-type]
        return cls

    def __init__(cls, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args)  # type.__init__ takes no keywords


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
    schema.fresh = fresh_maker(holder, schema.defaults)
    holder.__schema__ = schema
    cls.__schema__ = schema


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
