"""schema_dsl: protobuf messages declared as typed Python classes.

A message is a class deriving from :class:`Message` whose fields are declared with
:func:`optional` / :func:`repeated`, carrying number, kind, label, packing and oneof.
The classes know nothing about bytes; :mod:`wirecodec` compiles codecs from them.

>>> from schema_dsl import Message, optional, repeated, INT64, STRING
>>> class Point(Message):
...     label: str = optional(1, STRING)
...     coords: list[int] = repeated(2, INT64, packed=True)
>>> p = Point(label="origin")
>>> p.HasField("label"), p.coords
(True, [])
"""

from schema_dsl.enums import ProtoEnum
from schema_dsl.fields import (
    BOOL,
    BYTES,
    DOUBLE,
    ENUM,
    FIXED32,
    FIXED64,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    SFIXED32,
    SFIXED64,
    SINT32,
    SINT64,
    STRING,
    UINT32,
    UINT64,
    FieldSpec,
    Kind,
    SchemaError,
    WireType,
    optional,
    repeated,
)
from schema_dsl.message import Message, MessageSchema

__all__ = [
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
    "Message",
    "MessageSchema",
    "ProtoEnum",
    "SchemaError",
    "WireType",
    "optional",
    "repeated",
]
