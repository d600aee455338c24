"""Field declarations: what a protobuf field is, independent of any bytes.

A message class declares each field as a class attribute whose value comes from
:func:`optional` or :func:`repeated`; the annotation gives the Python type and, for
message fields, the message class (``graph: GraphProto = optional(7, MESSAGE)``).
"""

from __future__ import annotations

import enum
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, cast

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "resolve_message_type",
    "BOOL",
    "BYTES",
    "DOUBLE",
    "ENUM",
    "FIXED32",
    "FIXED64",
    "FLOAT",
    "INT32",
    "INT64",
    "MESSAGE",
    "SFIXED32",
    "SFIXED64",
    "SINT32",
    "SINT64",
    "STRING",
    "UINT32",
    "UINT64",
    "FieldSpec",
    "Kind",
    "SchemaError",
    "WireType",
    "optional",
    "repeated",
]

MAX_FIELD_NUMBER: Final = (1 << 29) - 1
RESERVED_NUMBERS: Final = range(19000, 20000)  # protobuf keeps these for itself


class SchemaError(TypeError):
    """A message declaration breaks a protobuf rule (raised at class creation)."""


class WireType(enum.IntEnum):
    """The 3-bit wire type that follows the field number in a tag."""

    VARINT = 0
    I64 = 1
    LEN = 2
    SGROUP = 3
    EGROUP = 4
    I32 = 5


class Kind(enum.Enum):
    """The scalar kind of a field, as spelled in a ``.proto`` file."""

    INT32 = "int32"
    INT64 = "int64"
    UINT32 = "uint32"
    UINT64 = "uint64"
    SINT32 = "sint32"
    SINT64 = "sint64"
    FIXED32 = "fixed32"
    FIXED64 = "fixed64"
    SFIXED32 = "sfixed32"
    SFIXED64 = "sfixed64"
    FLOAT = "float"
    DOUBLE = "double"
    BOOL = "bool"
    STRING = "string"
    BYTES = "bytes"
    ENUM = "enum"
    MESSAGE = "message"

    @property
    def wire_type(self) -> WireType:
        """The wire type a single (unpacked) value of this kind travels with."""
        return _WIRE_TYPES[self]

    @property
    def packable(self) -> bool:
        """Whether repeated values of this kind may use the packed encoding."""
        return _WIRE_TYPES[self] != WireType.LEN


_WIRE_TYPES: Final = {
    Kind.INT32: WireType.VARINT,
    Kind.INT64: WireType.VARINT,
    Kind.UINT32: WireType.VARINT,
    Kind.UINT64: WireType.VARINT,
    Kind.SINT32: WireType.VARINT,
    Kind.SINT64: WireType.VARINT,
    Kind.BOOL: WireType.VARINT,
    Kind.ENUM: WireType.VARINT,
    Kind.FIXED64: WireType.I64,
    Kind.SFIXED64: WireType.I64,
    Kind.DOUBLE: WireType.I64,
    Kind.FIXED32: WireType.I32,
    Kind.SFIXED32: WireType.I32,
    Kind.FLOAT: WireType.I32,
    Kind.STRING: WireType.LEN,
    Kind.BYTES: WireType.LEN,
    Kind.MESSAGE: WireType.LEN,
}

# Short aliases so a schema reads like its .proto file.
INT32: Final = Kind.INT32
INT64: Final = Kind.INT64
UINT32: Final = Kind.UINT32
UINT64: Final = Kind.UINT64
SINT32: Final = Kind.SINT32
SINT64: Final = Kind.SINT64
FIXED32: Final = Kind.FIXED32
FIXED64: Final = Kind.FIXED64
SFIXED32: Final = Kind.SFIXED32
SFIXED64: Final = Kind.SFIXED64
FLOAT: Final = Kind.FLOAT
DOUBLE: Final = Kind.DOUBLE
BOOL: Final = Kind.BOOL
STRING: Final = Kind.STRING
BYTES: Final = Kind.BYTES
ENUM: Final = Kind.ENUM
MESSAGE: Final = Kind.MESSAGE


@dataclass(eq=False)
class FieldSpec:
    """One declared field. ``name`` and ``message_type`` are filled in by the message class."""

    number: int
    kind: Kind
    repeated: bool = False
    packed: bool = False
    oneof: str | None = None
    enum_type: type[enum.IntEnum] | None = None
    name: str = ""
    owner: type[Message] | None = field(default=None, repr=False)
    _message_type: type[Message] | None = field(default=None, repr=False)
    _annotation: str = field(default="", repr=False)
    view: bool = False
    noted: bool = False  # decoders report each record of it (see ``optional``)
    rarely_read: bool = False  # lazy decoders leave every element waiting (see ``repeated``)
    records: bool = False  # a records decoder keeps its elements as records (see ``repeated``)
    _container: type | None = field(default=None, repr=False)  # see schema_dsl.containers

    @property
    def message_type(self) -> type[Message]:
        """The message class of a MESSAGE field, resolved from its annotation on first use."""
        if self._message_type is None:
            self._message_type = resolve_message_type(self)
        return self._message_type

    @property
    def default(self) -> Any:
        """The value an unset singular scalar field reads as (proto2 zero defaults)."""
        return _DEFAULTS.get(self.kind)

    @property
    def tag(self) -> int:
        """The tag of a single unpacked value: ``number << 3 | wire type``."""
        return (self.number << 3) | int(self.kind.wire_type)

    @property
    def packed_tag(self) -> int:
        """The tag of a packed run (length-delimited)."""
        return (self.number << 3) | int(WireType.LEN)

    @property
    def enum_values(self) -> frozenset[int]:
        """The values a closed enum accepts; others go to the unknown fields."""
        assert self.enum_type is not None
        return frozenset(int(m) for m in self.enum_type)

    @property
    def full_name(self) -> str:
        owner = self.owner.__qualname__ if self.owner is not None else "?"
        return f"{owner}.{self.name}"


_DEFAULTS: Final[dict[Kind, Any]] = {
    **dict.fromkeys(
        (INT32, INT64, UINT32, UINT64, SINT32, SINT64, FIXED32, FIXED64, SFIXED32, SFIXED64, ENUM),
        0,
    ),
    FLOAT: 0.0,
    DOUBLE: 0.0,
    BOOL: False,
    STRING: "",
    BYTES: b"",
}


def optional(
    number: int,
    kind: Kind,
    *,
    oneof: str | None = None,
    enum: type[enum.IntEnum] | None = None,
    view: bool = False,
    noted: bool = False,
) -> Any:
    """Declare a singular (proto2 ``optional``) field; it has presence.

    ``view``: a ``bytes`` field whose decoded value is a zero-copy ``memoryview`` of the
    input instead of ``bytes`` (for payload-sized fields such as ``TensorProto.raw_data``).
    ``noted``: decoding reports each record of this field to whoever asked which such
    fields a decode met (wirecodec.protobuf.notes), so a question like "does any tensor
    set ``data_location``?" needs no walk over the decoded model.
    """
    if view and kind is not Kind.BYTES:
        raise SchemaError(f"field {number}: only a bytes field can be a view")
    return FieldSpec(number, kind, oneof=oneof, enum_type=enum, view=view, noted=noted)


def repeated(
    number: int,
    kind: Kind,
    *,
    packed: bool = False,
    enum: type[enum.IntEnum] | None = None,
    rarely_read: bool = False,
    records: bool = False,
) -> Any:
    """Declare a ``repeated`` field; ``packed`` only where the .proto says ``[packed = true]``.

    ``rarely_read``: a message field most readers never look at (metadata): a lazy
    decoder validates its elements and leaves every one waiting until the field is read
    (wirecodec.protobuf.lazy), whatever their size. Only *when* to defer changes.

    ``records``: a message field of many small elements (a graph's nodes and values): a
    records decoder keeps each element as a tuple of its values, read through views
    (schema_dsl.views), so that the host's collector never visits them.
    """
    if (rarely_read or records) and kind is not Kind.MESSAGE:
        raise SchemaError(f"field {number}: only a message field can be rarely_read or records")
    return FieldSpec(
        number, kind, repeated=True, packed=packed, enum_type=enum, rarely_read=rarely_read, records=records
    )


def _plain_name(text: str, scopes: list[Any]) -> Any:
    """What a dotted name (``TypeProto.Tensor``) names, looked up as ``eval`` would in the
    scopes (innermost first), or None to leave it to ``eval``: resolving every field of
    a model's types by ``eval`` cost a fresh process about a millisecond."""
    parts = text.split(".")
    if not all(part.isidentifier() for part in parts):
        return None
    for scope in scopes:
        found = vars(scope).get(parts[0])
        if found is not None:
            for part in parts[1:]:
                found = getattr(found, part, None)
            return found
    return None


def resolve_message_type(spec: FieldSpec) -> type[Message]:
    """Find the class a MESSAGE field's annotation names (forward references allowed)."""
    owner = spec.owner
    text = spec._annotation.strip()
    if text.startswith(("list[", "List[")) and text.endswith("]"):
        text = text[text.index("[") + 1 : -1].strip()
    if owner is None or not text:
        raise SchemaError(f"{spec.full_name}: a MESSAGE field needs a class annotation")
    module = sys.modules[owner.__module__]
    # Let a nested message name its siblings without the outer prefix: the innermost
    # enclosing class first, the module last.
    scopes: list[Any] = [module]
    scope: Any = module
    for part in owner.__qualname__.split(".")[:-1]:
        scope = getattr(scope, part, None)
        if not isinstance(scope, type):
            break  # a class declared inside a function: only module names are visible
        scopes.append(scope)
    target = _plain_name(text, scopes[::-1])
    if target is None:
        namespace: dict[str, Any] = {}
        for found in scopes:
            namespace.update(vars(found))
        try:
            target = eval(text, namespace)
        except Exception as exc:
            raise SchemaError(f"{spec.full_name}: cannot resolve annotation {text!r}: {exc}") from exc
    # A message class is the class of its own schema (schema_dsl.declare gives it one).
    if not (isinstance(target, type) and getattr(getattr(target, "__schema__", None), "cls", None) is target):
        raise SchemaError(f"{spec.full_name}: annotation {text!r} is not a message class")
    message_class: type[Message] = cast("type[Message]", target)
    return message_class
