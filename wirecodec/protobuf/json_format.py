"""Messages as ProtoJSON, the way protobuf's ``json_format`` writes and reads them.

:func:`to_json` equals ``json_format.MessageToJson(msg)`` with default options: field
names in lowerCamelCase (``raw_data`` → ``rawData``), only present fields, 64-bit
integers as strings, ``bytes`` as base64, enums by name, floats shown as their shortest
float32 text, ``NaN``/``Infinity``/``-Infinity`` as strings, ASCII-only output indented by
two spaces.

:func:`from_json` reads the ProtoJSON mapping (protobuf.dev/programming-guides/json):
either field name, ``null`` for "absent", numbers or strings for integers (integral
exponent forms such as ``1e3`` included) and floats, standard or URL-safe base64 with
or without padding, enum names or numbers. Every refusal is a
:class:`~wirecodec.errors.ParseError` with the line and column of the offending value
and the field path.

>>> from schema_dsl.onnx import TensorProto
>>> tensor = TensorProto(name="w", dims=[2], data_type=TensorProto.FLOAT, raw_data=b"\\x00\\x00\\x80?")
>>> print(to_json(tensor))
{
  "dims": [
    "2"
  ],
  "dataType": 1,
  "name": "w",
  "rawData": "AACAPw=="
}
>>> from_json(TensorProto, '{"dims": [2], "data_type": 1, "name": "w", "rawData": "AACAPw"}') == tensor
True
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from decimal import Decimal
from typing import Any, Final, TypeVar

from schema_dsl import FieldSpec, Kind, Message
from schema_dsl.text_format import round_to_float32, shortest_float32
from wirecodec.errors import EncodeError, ParseError
from wirecodec.protobuf.json_reader import JsonValue, read_json

__all__ = ["DEFAULT_MAX_DEPTH", "from_json", "json_name", "to_json"]

M = TypeVar("M", bound=Message)

DEFAULT_MAX_DEPTH: Final = 100  # message nesting, as protobuf's json_format default

_INT64_KINDS: Final = frozenset({Kind.INT64, Kind.UINT64, Kind.SINT64, Kind.FIXED64, Kind.SFIXED64})
_INT_RANGES: Final = {
    **dict.fromkeys((Kind.INT32, Kind.SINT32, Kind.SFIXED32), (-(2**31), 2**31 - 1)),
    **dict.fromkeys((Kind.INT64, Kind.SINT64, Kind.SFIXED64), (-(2**63), 2**63 - 1)),
    **dict.fromkeys((Kind.UINT32, Kind.FIXED32), (0, 2**32 - 1)),
    **dict.fromkeys((Kind.UINT64, Kind.FIXED64), (0, 2**64 - 1)),
}
_SPECIAL_FLOATS: Final = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}
_NUMBER_TEXT: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_BASE64: Final = re.compile(r"[A-Za-z0-9+/_-]*={0,2}")
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def json_name(spec: FieldSpec) -> str:
    """The lowerCamelCase JSON name protoc gives a field: each ``_`` dropped, the next letter raised."""
    parts = spec.name.split("_")
    return parts[0] + "".join(part[:1].upper() + part[1:] for part in parts[1:])


# -- writing ------------------------------------------------------------------------------

_json_name_cache: dict[FieldSpec, str] = {}


def _cached_json_name(spec: FieldSpec) -> str:
    name = _json_name_cache.get(spec)
    if name is None:
        name = _json_name_cache[spec] = json_name(spec)
    return name


def to_json(message: Message, *, indent: int | None = 2) -> str:
    """``message`` as ``json_format.MessageToJson`` writes it (``indent`` as in :func:`json.dumps`).

    Raises :class:`~wirecodec.errors.EncodeError` for an enum field holding a number its
    (closed) enum does not define, which protobuf refuses to print as well.
    """
    return json.dumps(_message_object(message, type(message).__qualname__), indent=indent)


def _message_object(message: Message, path: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for spec, value in message.ListFields():
        where = f"{path}.{spec.name}"
        if spec.repeated:
            out[_cached_json_name(spec)] = [
                _json_value(spec, item, f"{where}[{i}]") for i, item in enumerate(value)
            ]
        else:
            out[_cached_json_name(spec)] = _json_value(spec, value, where)
    return out


def _json_value(spec: FieldSpec, value: Any, path: str) -> Any:
    kind = spec.kind
    if kind is Kind.MESSAGE:
        return _message_object(value, path)
    if kind in _INT64_KINDS:
        return str(int(value))
    if kind is Kind.FLOAT or kind is Kind.DOUBLE:
        number = round_to_float32(value) if kind is Kind.FLOAT else float(value)
        if math.isnan(number):
            return "NaN"
        if math.isinf(number):
            return "Infinity" if number > 0 else "-Infinity"
        return shortest_float32(number) if kind is Kind.FLOAT else number
    if kind is Kind.BYTES:
        return base64.b64encode(bytes(value)).decode("ascii")
    if kind is Kind.ENUM:
        assert spec.enum_type is not None
        number = int(value)
        if number not in spec.enum_values:
            raise EncodeError(f"{number} is not a value of enum {spec.enum_type.__qualname__}", path)
        return spec.enum_type(number).name
    if kind is Kind.BOOL:
        return bool(value)
    if kind is Kind.STRING:
        return value
    return int(value)


# -- reading ------------------------------------------------------------------------------


def from_json(cls: type[M], text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> M:
    """Parse ProtoJSON into a new ``cls`` message (``json_format.Parse`` for our classes).

    ``bytes`` are read as UTF-8. Raises :class:`~wirecodec.errors.ParseError` with the
    line and column (1-based) of the value at fault.
    """
    if not isinstance(text, str):
        text = _decode_utf8(bytes(text))
    root = read_json(text, max_depth=max_depth)
    message = cls()
    _fill(message, root, cls.__qualname__)
    return message


def _decode_utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8")
        line = prefix.count("\n") + 1
        raise ParseError("the text is not valid UTF-8", line, len(prefix) - prefix.rfind("\n")) from None


_names_cache: dict[type[Message], dict[str, FieldSpec]] = {}


def _names(cls: type[Message]) -> dict[str, FieldSpec]:
    """Every name a field may be given under in JSON: its own and its JSON name."""
    names = _names_cache.get(cls)
    if names is None:
        names = {}
        for spec in cls.__schema__.fields:
            names[spec.name] = spec
            names.setdefault(json_name(spec), spec)
        _names_cache[cls] = names
    return names


def _error(path: str, reason: str, node: JsonValue) -> ParseError:
    return ParseError(f"{path}: {reason}", node.line, node.column)


def _fill(message: Message, node: JsonValue, path: str) -> None:
    schema = message.__schema__
    if node.kind != "object":
        raise _error(path, f"expected an object for {schema.full_name}, got {node.describe()}", node)
    names = _names(schema.cls)
    given: dict[str, str] = {}  # field name -> the key it was given under
    oneofs: dict[str, str] = {}  # oneof -> the member given (non-null)
    for key, (line, column), value in node.members:
        spec = names.get(key)
        if spec is None:
            raise ParseError(f"{path}: {schema.full_name} has no field named {key!r}", line, column)
        where = f"{path}.{spec.name}"
        if spec.name in given:
            raise ParseError(f"{where}: given twice (as {given[spec.name]!r} and {key!r})", line, column)
        given[spec.name] = key
        if value.kind == "null":
            continue  # null means the field's default: absent
        if spec.oneof is not None:
            other = oneofs.setdefault(spec.oneof, spec.name)
            if other != spec.name:
                raise ParseError(
                    f"{where}: {other!r} is already set, another member of oneof {spec.oneof!r}", line, column
                )
        if spec.repeated:
            if value.kind != "array":
                raise _error(where, f"a repeated field needs an array, got {value.describe()}", value)
            items = []
            for index, item in enumerate(value.items):
                item_path = f"{where}[{index}]"
                if item.kind == "null":
                    raise _error(item_path, "null is not allowed in a repeated field", item)
                items.append(_read_value(spec, item, item_path))
            if items:
                setattr(message, spec.name, items)
        else:
            setattr(message, spec.name, _read_value(spec, value, where))


def _read_value(spec: FieldSpec, node: JsonValue, path: str) -> Any:
    kind = spec.kind
    if kind is Kind.MESSAGE:
        child = spec.message_type()
        _fill(child, node, path)
        return child
    if kind in _INT_RANGES:
        number = _integer(node, path)
        low, high = _INT_RANGES[kind]
        if not low <= number <= high:
            raise _error(path, f"{number} is out of range for {kind.value}", node)
        return number
    if kind is Kind.FLOAT or kind is Kind.DOUBLE:
        return _float(node, kind, path)
    if kind is Kind.BOOL:
        if node.kind not in ("true", "false"):
            raise _error(path, f"expected true or false, got {node.describe()}", node)
        return node.kind == "true"
    if kind is Kind.STRING:
        if node.kind != "string":
            raise _error(path, f"expected a string, got {node.describe()}", node)
        if _LONE_SURROGATE.search(node.text):
            raise _error(path, "unpaired surrogate in a string", node)
        return node.text
    if kind is Kind.BYTES:
        return _bytes(node, path)
    assert kind is Kind.ENUM and spec.enum_type is not None
    if node.kind == "string":
        member = spec.enum_type.__members__.get(node.text)
        if member is None:
            raise _error(path, f"{spec.enum_type.__qualname__} has no value named {node.text!r}", node)
        return int(member)
    number = _integer(node, path, allow_string=False)
    if number not in spec.enum_values:
        raise _error(path, f"{spec.enum_type.__qualname__} has no value {number}", node)
    return number


def _integer(node: JsonValue, path: str, *, allow_string: bool = True) -> int:
    """A JSON number (or numeric string) that is a whole number, exactly (no float rounding)."""
    ok_kinds = ("number", "string") if allow_string else ("number",)
    if node.kind not in ok_kinds or _NUMBER_TEXT.fullmatch(node.text) is None:
        raise _error(path, f"expected an integer, got {node.describe()}", node)
    text = node.text
    if text.lstrip("-").isdigit():
        if len(text) > 40:  # beyond every 64-bit value; spares int() a huge conversion
            raise _error(path, f"{len(text)}-digit integer is out of range for an integer field", node)
        return int(text)
    value = Decimal(text)
    if value.is_zero():
        return 0
    if value.adjusted() > 20:  # beyond every 64-bit integer; spares int() a huge exponent
        raise _error(path, f"{text} is out of range for an integer field", node)
    if value != value.to_integral_value():
        raise _error(path, f"expected an integer, got {node.describe()}", node)
    return int(value)


def _float(node: JsonValue, kind: Kind, path: str) -> float:
    text = node.text
    if node.kind == "string" and text in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[text]
    if node.kind not in ("number", "string") or _NUMBER_TEXT.fullmatch(text) is None:
        raise _error(
            path, f"expected a number, 'NaN', 'Infinity' or '-Infinity', got {node.describe()}", node
        )
    value = float(text)
    narrow = round_to_float32(value) if kind is Kind.FLOAT else value
    if math.isinf(narrow):
        raise _error(path, f"{text} is out of range for a {kind.value}", node)
    return narrow


def _bytes(node: JsonValue, path: str) -> bytes:
    text = node.text
    if node.kind != "string" or _BASE64.fullmatch(text) is None or len(text.rstrip("=")) % 4 == 1:
        raise _error(path, f"expected base64 data, got {node.describe()}", node)
    body = text.rstrip("=")
    if text != body and len(text) % 4:
        raise _error(path, "base64 padding does not fill the last group", node)
    standard = body.replace("-", "+").replace("_", "/")
    try:
        return base64.b64decode(standard + "=" * (-len(standard) % 4), validate=True)
    except binascii.Error as exc:  # pragma: no cover - the pattern above admits only valid text
        raise _error(path, f"invalid base64: {exc}", node) from None
