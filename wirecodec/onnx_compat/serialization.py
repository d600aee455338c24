"""``onnx.serialization``: the serializer registry behind ``load``/``save`` and their ``format``.

Four formats are registered, as in onnx: ``protobuf`` (binary), ``textproto``
(protobuf text format), ``json`` (protobuf JSON mapping) and ``onnxtxt`` (the ONNX
textual syntax, models, graphs, functions and nodes only). ``registry.register`` adds
others.

>>> from schema_dsl.onnx import ModelProto
>>> text = registry.get("textproto").serialize_proto(ModelProto(ir_version=10))
>>> text
b'ir_version: 10\\n'
>>> registry.get("textproto").deserialize_proto(text, ModelProto()).ir_version
10
>>> registry.get_format_from_file_extension(".json")
'json'
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any, Protocol, TypeVar

from schema_dsl.message import Message
from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto

__all__ = ["ProtoSerializer", "registry"]

_Proto = TypeVar("_Proto", bound=Message)
_ENCODING = "utf-8"


class ProtoSerializer(Protocol):
    """A serializer-deserializer to and from in-memory messages (onnx's protocol)."""

    supported_format: str
    file_extensions: Collection[str]

    def serialize_proto(self, proto: Any) -> Any:
        """Serialize a message."""

    def deserialize_proto(self, serialized: Any, proto: Any) -> Any:
        """Parse ``serialized`` into ``proto`` and return it."""


class _Registry:
    """Serializers by format name, and formats by file extension."""

    def __init__(self) -> None:
        self._serializers: dict[str, ProtoSerializer] = {}
        self._extension_to_format: dict[str, str] = {}

    def register(self, serializer: ProtoSerializer) -> None:
        """Add (or replace) the serializer of ``serializer.supported_format``."""
        self._serializers[serializer.supported_format] = serializer
        self._extension_to_format.update(
            dict.fromkeys(serializer.file_extensions, serializer.supported_format)
        )

    def get(self, fmt: str) -> ProtoSerializer:
        """The serializer of ``fmt``; ``ValueError`` if none is registered."""
        try:
            return self._serializers[fmt]
        except KeyError:
            raise ValueError(
                f"Unsupported format: '{fmt}'. Supported formats are: {sorted(self._serializers)}"
            ) from None

    def get_format_from_file_extension(self, file_extension: str) -> str | None:
        """The format registered for ``file_extension`` (with its dot), or None."""
        return self._extension_to_format.get(file_extension)


def _text(serialized: Any) -> str:
    if isinstance(serialized, str):
        return serialized
    if isinstance(serialized, (bytes, bytearray, memoryview)):
        return bytes(serialized).decode(_ENCODING)
    raise TypeError(f"expected str or bytes to deserialize, got {type(serialized).__name__}")


def _fill(proto: _Proto, parsed: Message) -> _Proto:
    """Replace the content of ``proto`` with ``parsed`` (onnx's deserializers fill the given message)."""
    proto.CopyFrom(parsed)
    return proto


class _ProtobufSerializer:
    supported_format: str = "protobuf"
    file_extensions: Collection[str] = frozenset({".onnx", ".pb"})

    def serialize_proto(self, proto: Message) -> bytes:
        from wirecodec.protobuf.codec import encode

        if not hasattr(proto, "SerializeToString"):
            raise TypeError(
                f"No SerializeToString method is detected. Neither proto is a str.\ntype is {type(proto)}"
            )
        return encode(proto)

    def deserialize_proto(self, serialized: Any, proto: _Proto) -> _Proto:
        from wirecodec.protobuf.codec import decode

        if not isinstance(serialized, (bytes, bytearray, memoryview)):
            raise TypeError(f"Parameter 'serialized' must be bytes, but got type: {type(serialized)}")
        return _fill(proto, decode(type(proto), serialized))


class _TextProtoSerializer:
    supported_format: str = "textproto"
    file_extensions: Collection[str] = frozenset({".textproto", ".prototxt", ".pbtxt"})

    def serialize_proto(self, proto: Message) -> bytes:
        from schema_dsl.text_format import to_text

        return to_text(proto).encode(_ENCODING)

    def deserialize_proto(self, serialized: Any, proto: _Proto) -> _Proto:
        from wirecodec.protobuf.text_parser import from_text

        return _fill(proto, from_text(type(proto), _text(serialized)))


# A key of the JSON mapping, alone at the start of its line (to_json indents every member):
# a string value never matches, since quotes inside a string are escaped.
_JSON_KEY = re.compile(r'^( *)"([A-Za-z0-9]+)": ', re.MULTILINE)
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])([A-Z])")


def _proto_field_names(text: str) -> str:
    """JSON with protobuf's JSON names (``irVersion``) renamed to the .proto's (``ir_version``)."""

    def renamed(key: re.Match[str]) -> str:
        snake = _CAMEL_HUMP.sub(r"_\1", key[2]).lower()
        return f'{key[1]}"{snake}": '

    return _JSON_KEY.sub(renamed, text)


class _JsonSerializer:
    """The protobuf JSON mapping with the .proto's field names, as onnx writes it."""

    supported_format: str = "json"
    file_extensions: Collection[str] = frozenset({".json", ".onnxjson"})

    def serialize_proto(self, proto: Message) -> bytes:
        from wirecodec.protobuf.json_format import to_json

        return _proto_field_names(to_json(proto)).encode(_ENCODING)

    def deserialize_proto(self, serialized: Any, proto: _Proto) -> _Proto:
        from wirecodec.protobuf.json_format import from_json

        return _fill(proto, from_json(type(proto), _text(serialized)))


_ONNXTXT_HOLDS = "the onnxtxt format holds models, graphs, functions and nodes, not "


class _TextualSerializer:
    """The ONNX textual syntax (``onnx.printer`` / ``onnx.parser``)."""

    supported_format: str = "onnxtxt"
    file_extensions: Collection[str] = frozenset({".onnxtxt", ".onnxtext"})

    def serialize_proto(self, proto: Message) -> bytes:
        from wirecodec.printer import to_text

        if not isinstance(proto, (ModelProto, GraphProto, FunctionProto, NodeProto)):
            raise TypeError(
                f"the onnxtxt format holds models, graphs, functions and nodes, not {type(proto).__name__}"
            )
        return to_text(proto).encode(_ENCODING)

    def deserialize_proto(self, serialized: Any, proto: _Proto) -> _Proto:
        from wirecodec import parser

        text = _text(serialized)
        parsed: Message
        if isinstance(proto, ModelProto):
            parsed = parser.parse_model(text)
        elif isinstance(proto, GraphProto):
            parsed = parser.parse_graph(text)
        elif isinstance(proto, FunctionProto):
            parsed = parser.parse_function(text)
        elif isinstance(proto, NodeProto):
            parsed = parser.parse_node(text)
        else:
            raise TypeError(
                f"the onnxtxt format holds models, graphs, functions and nodes, not {type(proto).__name__}"
            )
        return _fill(proto, parsed)


registry = _Registry()
"""The serializers ``load``/``save`` look up by ``format`` or file extension."""
registry.register(_ProtobufSerializer())
registry.register(_TextProtoSerializer())
registry.register(_JsonSerializer())
registry.register(_TextualSerializer())
