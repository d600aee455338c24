"""protobuf's ``DESCRIPTOR`` of a declared message or enum, as data built from the declarations.

Code written for onnx reads a few parts of the descriptors protobuf generates
(``TensorProto.DataType.DESCRIPTOR.values_by_number[1].name``,
``ModelProto.DESCRIPTOR.fields_by_name["graph"].message_type``). This module builds
those parts from the schema (the field declarations and the enum members), on the first
read of ``DESCRIPTOR``:

>>> from schema_dsl.onnx import ModelProto, TensorProto
>>> TensorProto.DataType.DESCRIPTOR.values_by_number[1].name
'FLOAT'
>>> field = ModelProto.DESCRIPTOR.fields_by_name["graph"]
>>> field.number, field.label, field.type, field.message_type.full_name
(7, 1, 11, 'onnx.GraphProto')

A descriptor here is not a ``google.protobuf`` descriptor (none can be made without
protobuf): reading a part this module does not build raises
:class:`DescriptorNotProvidedError`, naming it.
"""

from __future__ import annotations

import enum
import sys
from typing import TYPE_CHECKING, Any, Final

from schema_dsl.fields import FieldSpec, Kind

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "Descriptor",
    "DescriptorNotProvidedError",
    "EnumDescriptor",
    "EnumValueDescriptor",
    "FieldDescriptor",
    "OneofDescriptor",
    "descriptor_of",
    "enum_descriptor_of",
]


class DescriptorNotProvidedError(AttributeError, NotImplementedError):
    """A part of a protobuf descriptor that wirecodec does not build (the message names it).

    An ``AttributeError``, so that ``hasattr`` and ``getattr(d, name, default)`` answer as
    for any absent attribute, and a ``NotImplementedError``, as wirecodec's other "not
    provided" errors are.
    """


class _Part:
    """Base of the descriptor parts: a read of anything not built names what was asked."""

    __slots__ = ()

    def _what(self) -> str:
        raise NotImplementedError

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise DescriptorNotProvidedError(
            f"{type(self).__name__}.{name} (of {self._what()}) is not provided by wirecodec: its descriptors "
            "are data built from the schema (name, full_name, fields, fields_by_name, values_by_name, "
            "values_by_number, label, type, message_type, enum_type, ...), not google.protobuf objects"
        )

    def __repr__(self) -> str:
        return f"<wirecodec {type(self).__name__} {self._what()}>"


class EnumValueDescriptor(_Part):
    """One value of an enum: ``name``, ``number``, ``index``, ``type`` (its enum's descriptor)."""

    __slots__ = ("index", "name", "number", "type")

    def __init__(self, name: str, number: int, index: int, type: EnumDescriptor) -> None:
        self.name = name
        self.number = number
        self.index = index
        self.type = type

    def _what(self) -> str:
        return f"{self.type.full_name}.{self.name}"


class EnumDescriptor(_Part):
    """An enum: ``name``, ``full_name``, ``values`` (declaration order), ``values_by_name``,
    ``values_by_number``, ``containing_type`` (the message it is declared in, or None)."""

    __slots__ = ("_containing", "_enum", "full_name", "name", "values", "values_by_name", "values_by_number")

    def __init__(self, cls: type[enum.IntEnum], full_name: str, containing: type[Message] | None) -> None:
        self._enum = cls
        self._containing = containing
        self.name = cls.__name__
        self.full_name = full_name
        self.values = [EnumValueDescriptor(m.name, int(m), i, self) for i, m in enumerate(cls)]
        self.values_by_name = {v.name: v for v in self.values}
        self.values_by_number: dict[int, EnumValueDescriptor] = {}
        for value in self.values:
            self.values_by_number.setdefault(value.number, value)  # the first name of a number, as protobuf

    @property
    def containing_type(self) -> Descriptor | None:
        return None if self._containing is None else descriptor_of(self._containing)

    @property
    def is_closed(self) -> bool:
        return True  # proto2: a value the enum lacks goes to the unknown fields

    def _what(self) -> str:
        return self.full_name


class FieldDescriptor(_Part):
    """A field: ``name``, ``full_name``, ``number``, ``index``, ``label``, ``type``, ``cpp_type``,
    ``message_type``, ``enum_type``, ``containing_type``, ``containing_oneof``, ``has_presence``,
    ``default_value``, ``json_name``; the constants ``TYPE_*``, ``CPPTYPE_*``, ``LABEL_*``."""

    TYPE_DOUBLE: Final = 1
    TYPE_FLOAT: Final = 2
    TYPE_INT64: Final = 3
    TYPE_UINT64: Final = 4
    TYPE_INT32: Final = 5
    TYPE_FIXED64: Final = 6
    TYPE_FIXED32: Final = 7
    TYPE_BOOL: Final = 8
    TYPE_STRING: Final = 9
    TYPE_GROUP: Final = 10
    TYPE_MESSAGE: Final = 11
    TYPE_BYTES: Final = 12
    TYPE_UINT32: Final = 13
    TYPE_ENUM: Final = 14
    TYPE_SFIXED32: Final = 15
    TYPE_SFIXED64: Final = 16
    TYPE_SINT32: Final = 17
    TYPE_SINT64: Final = 18
    MAX_TYPE: Final = 18

    CPPTYPE_INT32: Final = 1
    CPPTYPE_INT64: Final = 2
    CPPTYPE_UINT32: Final = 3
    CPPTYPE_UINT64: Final = 4
    CPPTYPE_DOUBLE: Final = 5
    CPPTYPE_FLOAT: Final = 6
    CPPTYPE_BOOL: Final = 7
    CPPTYPE_ENUM: Final = 8
    CPPTYPE_STRING: Final = 9
    CPPTYPE_MESSAGE: Final = 10
    CPPTYPE_BYTES: Final = 9  # protobuf's alias of CPPTYPE_STRING
    MAX_CPPTYPE: Final = 10

    LABEL_OPTIONAL: Final = 1
    LABEL_REQUIRED: Final = 2
    LABEL_REPEATED: Final = 3
    MAX_LABEL: Final = 3

    __slots__ = ("_owner", "_spec", "cpp_type", "full_name", "index", "label", "name", "number", "type")

    def __init__(self, spec: FieldSpec, index: int, owner: type[Message], owner_name: str) -> None:
        self._spec = spec
        self._owner = owner
        self.name = spec.name
        self.full_name = f"{owner_name}.{spec.name}"
        self.number = spec.number
        self.index = index
        self.label = self.LABEL_REPEATED if spec.repeated else self.LABEL_OPTIONAL
        self.type, self.cpp_type = _TYPES[spec.kind]

    @property
    def message_type(self) -> Descriptor | None:
        return descriptor_of(self._spec.message_type) if self._spec.kind is Kind.MESSAGE else None

    @property
    def enum_type(self) -> EnumDescriptor | None:
        enum_type = self._spec.enum_type
        return None if enum_type is None else enum_descriptor_of(enum_type)

    @property
    def containing_type(self) -> Descriptor:
        return descriptor_of(self._owner)

    @property
    def containing_oneof(self) -> OneofDescriptor | None:
        oneof = self._spec.oneof
        return None if oneof is None else self.containing_type.oneofs_by_name[oneof]

    @property
    def has_presence(self) -> bool:
        return not self._spec.repeated  # proto2: every singular field has presence

    @property
    def is_extension(self) -> bool:
        return False

    @property
    def default_value(self) -> Any:
        if self._spec.repeated:
            return []
        if self._spec.kind is Kind.MESSAGE:
            return None
        if self._spec.enum_type is not None:
            return int(next(iter(self._spec.enum_type)))  # proto2: the first value declared
        return self._spec.default

    @property
    def has_default_value(self) -> bool:
        return False  # the ONNX schema declares no [default = ...]

    @property
    def is_repeated(self) -> bool:
        return self._spec.repeated

    @property
    def is_required(self) -> bool:
        return False

    @property
    def is_packed(self) -> bool:
        return self._spec.packed

    @property
    def extension_scope(self) -> None:
        return None

    @property
    def json_name(self) -> str:
        head, *rest = self.name.split("_")
        return head + "".join(part[:1].upper() + part[1:] for part in rest)

    @property
    def camelcase_name(self) -> str:
        return self.json_name

    def _what(self) -> str:
        return self.full_name


class OneofDescriptor(_Part):
    """A oneof: ``name``, ``full_name``, ``index``, ``fields``, ``containing_type``."""

    __slots__ = ("_owner", "fields", "full_name", "index", "name")

    def __init__(self, name: str, index: int, owner: type[Message], owner_name: str) -> None:
        self._owner = owner
        self.name = name
        self.full_name = f"{owner_name}.{name}"
        self.index = index
        self.fields: list[FieldDescriptor] = []

    @property
    def containing_type(self) -> Descriptor:
        return descriptor_of(self._owner)

    def _what(self) -> str:
        return self.full_name


class Descriptor(_Part):
    """A message: ``name``, ``full_name``, ``fields`` (declaration order), ``fields_by_name``,
    ``fields_by_number``, ``fields_by_camelcase_name``, ``oneofs``, ``oneofs_by_name``,
    ``nested_types``, ``nested_types_by_name``, ``enum_types``, ``enum_types_by_name``,
    ``enum_values_by_name``, ``containing_type``, ``is_extendable``, ``_concrete_class``."""

    __slots__ = (
        "_concrete_class",
        "_containing",
        "_nested",
        "enum_types",
        "enum_types_by_name",
        "enum_values_by_name",
        "fields",
        "fields_by_camelcase_name",
        "fields_by_name",
        "fields_by_number",
        "full_name",
        "name",
        "oneofs",
        "oneofs_by_name",
    )

    def __init__(self, cls: type[Message], full_name: str, containing: type[Message] | None) -> None:
        self._concrete_class = cls
        self._containing = containing
        self.name = cls.__name__
        self.full_name = full_name
        self.fields = [
            FieldDescriptor(spec, i, cls, full_name) for i, spec in enumerate(cls.__schema__.declared)
        ]
        self.fields_by_name = {f.name: f for f in self.fields}
        self.fields_by_number = {f.number: f for f in self.fields}
        self.fields_by_camelcase_name = {f.json_name: f for f in self.fields}
        self.oneofs: list[OneofDescriptor] = []
        self.oneofs_by_name: dict[str, OneofDescriptor] = {}
        for field, spec in zip(self.fields, cls.__schema__.declared, strict=True):
            if spec.oneof is not None:
                if spec.oneof not in self.oneofs_by_name:
                    oneof = OneofDescriptor(spec.oneof, len(self.oneofs), cls, full_name)
                    self.oneofs.append(oneof)
                    self.oneofs_by_name[spec.oneof] = oneof
                self.oneofs_by_name[spec.oneof].fields.append(field)
        nested = [
            v
            for v in vars(cls).values()
            if isinstance(v, type) and v.__qualname__ == f"{cls.__qualname__}.{v.__name__}"
        ]
        self._nested = [n for n in nested if hasattr(n, "__schema__")]
        self.enum_types = [enum_descriptor_of(e) for e in nested if issubclass(e, enum.IntEnum)]
        self.enum_types_by_name = {e.name: e for e in self.enum_types}
        self.enum_values_by_name = {v.name: v for e in self.enum_types for v in e.values}

    @property
    def nested_types(self) -> list[Descriptor]:
        return [descriptor_of(n) for n in self._nested]

    @property
    def nested_types_by_name(self) -> dict[str, Descriptor]:
        return {d.name: d for d in self.nested_types}

    @property
    def containing_type(self) -> Descriptor | None:
        return None if self._containing is None else descriptor_of(self._containing)

    @property
    def is_extendable(self) -> bool:
        return False

    @property
    def extensions(self) -> list[FieldDescriptor]:
        return []

    @property
    def extensions_by_name(self) -> dict[str, FieldDescriptor]:
        return {}

    @property
    def extension_ranges(self) -> list[tuple[int, int]]:
        return []

    def EnumValueName(self, enum: str, value: int) -> str:
        """The name of ``value`` in the nested enum called ``enum`` (KeyError if either is unknown)."""
        return self.enum_types_by_name[enum].values_by_number[value].name

    def _what(self) -> str:
        return self.full_name


_TYPES: Final[dict[Kind, tuple[int, int]]] = {
    Kind.DOUBLE: (1, 5),
    Kind.FLOAT: (2, 6),
    Kind.INT64: (3, 2),
    Kind.UINT64: (4, 4),
    Kind.INT32: (5, 1),
    Kind.FIXED64: (6, 4),
    Kind.FIXED32: (7, 3),
    Kind.BOOL: (8, 7),
    Kind.STRING: (9, 9),
    Kind.MESSAGE: (11, 10),
    Kind.BYTES: (12, 9),
    Kind.UINT32: (13, 3),
    Kind.ENUM: (14, 8),
    Kind.SFIXED32: (15, 1),
    Kind.SFIXED64: (16, 2),
    Kind.SINT32: (17, 1),
    Kind.SINT64: (18, 2),
}
"""protobuf's (``FieldDescriptor.TYPE_*``, ``CPPTYPE_*``) of each kind."""

_MESSAGES: dict[type, Descriptor] = {}
_ENUMS: dict[type, EnumDescriptor] = {}


def _placed(cls: type) -> tuple[str, type[Message] | None]:
    """The full name of a declared class (``onnx.TensorProto.DataType``) and the message it is nested in."""
    module = sys.modules.get(cls.__module__)
    package = getattr(module, "PROTO_PACKAGE", "")
    outer_name, _, _ = cls.__qualname__.rpartition(".")
    outer: Any = module
    for part in outer_name.split(".") if outer_name else ():
        outer = getattr(outer, part, None)
    containing = outer if outer_name and isinstance(outer, type) and hasattr(outer, "__schema__") else None
    return (f"{package}.{cls.__qualname__}" if package else cls.__qualname__), containing


def descriptor_of(cls: type[Message]) -> Descriptor:
    """The descriptor of a declared message class (one object per class, built on first use)."""
    declared = cls.__schema__.cls
    found = _MESSAGES.get(declared)
    if found is None:
        full_name, containing = _placed(declared)
        found = _MESSAGES.setdefault(declared, Descriptor(declared, full_name, containing))
    return found


def enum_descriptor_of(cls: type[enum.IntEnum]) -> EnumDescriptor:
    """The descriptor of a declared enum (one object per enum, built on first use)."""
    found = _ENUMS.get(cls)
    if found is None:
        full_name, containing = _placed(cls)
        found = _ENUMS.setdefault(cls, EnumDescriptor(cls, full_name, containing))
    return found
