"""Read protobuf text format into a message of any declared class.

Reads everything :func:`schema_dsl.text_format.to_text` writes, and the hand-written
forms of the Text Format Language Specification:

* ``field: value`` for scalars, ``field { ... }`` or ``field < ... >`` for messages,
  with an optional ``:`` before a message;
* ``field: [a, b]`` (and ``field [{...}, {...}]``) for repeated fields, which may also
  simply repeat;
* ``#`` comments, and an optional ``,`` or ``;`` after each field;
* adjacent string literals concatenated, in ``"`` or ``'`` quotes, with every escape
  of the specification (see :func:`wirecodec.protobuf.text_lexer.unescape`);
* integers in decimal, octal (``017``) or hex (``0x1f``), negative with ``-``;
* floats as ``1``, ``1.5``, ``.5``, ``1e-3``, ``1.5f``, ``inf``, ``-infinity``, ``nan``
  (any case); float fields round to float32 as protobuf does;
* booleans as ``true``/``True``/``t``/``1`` and ``false``/``False``/``f``/``0``;
* enum values by name or number.

Everything protobuf refuses is a :class:`~wirecodec.errors.ParseError` with the line
and column of the offending token and the field path: unknown field names, a value of
the wrong type, integers outside their field's range, a scalar given ``{...}``, a
singular field or a second member of a oneof given twice, enum numbers outside a
(closed, proto2) enum, nesting deeper than ``max_depth``.

>>> from schema_dsl.onnx import TensorShapeProto
>>> shape = from_text(TensorShapeProto, "dim { dim_value: 3 } dim < dim_param: 'N' >")
>>> [d.WhichOneof("value") for d in shape.dim]
['dim_value', 'dim_param']
>>> try:
...     from_text(TensorShapeProto, "dim { dim_value: 3.5 }")
... except ParseError as err:
...     print(err.line, err.column, err.reason)
1 18 TensorShapeProto.dim[0].dim_value: expected an integer, got number '3.5'
"""

from __future__ import annotations

import math
import re
from typing import Any, Final, TypeVar

from schema_dsl import FieldSpec, Kind, Message
from schema_dsl.containers import append_valid
from schema_dsl.presence import store_valid
from schema_dsl.text_format import round_to_float32
from wirecodec.errors import ParseError
from wirecodec.protobuf.text_lexer import Lexer, Token, TokenKind

__all__ = ["DEFAULT_MAX_DEPTH", "from_text"]

M = TypeVar("M", bound=Message)

DEFAULT_MAX_DEPTH: Final = 100  # nesting levels, as protobuf's default recursion limit

_INT_RANGES: Final = {
    **dict.fromkeys((Kind.INT32, Kind.SINT32, Kind.SFIXED32), (-(2**31), 2**31 - 1)),
    **dict.fromkeys((Kind.INT64, Kind.SINT64, Kind.SFIXED64), (-(2**63), 2**63 - 1)),
    **dict.fromkeys((Kind.UINT32, Kind.FIXED32), (0, 2**32 - 1)),
    **dict.fromkeys((Kind.UINT64, Kind.FIXED64), (0, 2**64 - 1)),
}
_TRUE: Final = frozenset({"true", "True", "t", "1"})
_FALSE: Final = frozenset({"false", "False", "f", "0"})
_INFINITY: Final = frozenset({"inf", "infinity"})
_OPENERS: Final = {"{": "}", "<": ">"}
_MAX_DECIMAL_DIGITS: Final = 40  # beyond every 64-bit value; spares int() a huge conversion
_LONE_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def from_text(cls: type[M], text: str | bytes, *, max_depth: int = DEFAULT_MAX_DEPTH) -> M:
    """Parse protobuf text format into a new ``cls`` message (``text_format.Parse`` for our classes).

    ``bytes`` are read as UTF-8. Raises :class:`~wirecodec.errors.ParseError` (line and
    column 1-based) for anything that is not a valid text-format ``cls``.
    """
    source = _as_text(text)
    parser = _Parser(Lexer(source), max_depth)
    message = cls()
    parser.parse_fields(message, cls.__qualname__, None, 1)
    return message


def _as_text(text: str | bytes) -> str:
    if isinstance(text, str):
        bad = _LONE_SURROGATE.search(text)
        if bad is not None:
            raise ParseError("lone surrogate in the text (not valid Unicode)", *_position(text, bad.start()))
        return text
    try:
        return bytes(text).decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = bytes(text)[: exc.start].decode("utf-8")
        raise ParseError("the text is not valid UTF-8", *_position(prefix, len(prefix))) from None


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


class _Parser:
    def __init__(self, lexer: Lexer, max_depth: int) -> None:
        self.lexer = lexer
        self.max_depth = max_depth

    # -- structure ------------------------------------------------------------------------

    def parse_fields(self, message: Message, path: str, closer: Token | None, depth: int) -> None:
        """Fields until the closing bracket of ``closer`` (or the end of input at top level)."""
        if depth > self.max_depth:
            assert closer is not None
            raise ParseError(
                f"{path}: nesting deeper than {self.max_depth} levels", closer.line, closer.column
            )
        end = _OPENERS[closer.text] if closer is not None else ""
        lexer = self.lexer
        while True:
            lexer.path = path
            token = lexer.next()
            if token.kind is TokenKind.END:
                if closer is None:
                    return
                raise ParseError(
                    f"{path}: expected {end!r} to close the {closer.text!r} of line {closer.line}, "
                    f"column {closer.column}, got end of input",
                    token.line,
                    token.column,
                )
            if token.kind is TokenKind.PUNCT and token.text == end:
                return
            self.parse_field(message, path, token, depth)
            lexer.path = path
            separator = lexer.peek()
            if separator.kind is TokenKind.PUNCT and separator.text in ",;":
                lexer.next()

    def parse_field(self, message: Message, path: str, name: Token, depth: int) -> None:
        schema = message.__schema__
        if name.kind is not TokenKind.IDENT:
            if name.text == "[":
                raise _error(path, f"{schema.full_name} has no extensions or Any fields ('[...]')", name)
            raise _error(path, f"expected a field name, got {name.describe()}", name)
        spec = schema.by_name.get(name.text)
        if spec is None:
            raise _error(path, f"{schema.full_name} has no field named {name.text!r}", name)
        where = f"{path}.{spec.name}"
        self.lexer.path = where
        if spec.oneof is not None:
            other = message.WhichOneof(spec.oneof)
            if other is not None and other != spec.name:
                raise _error(where, f"{other!r} is already set, another member of oneof {spec.oneof!r}", name)
        if not spec.repeated and message.HasField(spec.name):
            raise _error(where, "a singular field may be given only once", name)
        colon = self._take(":")
        if spec.kind is not Kind.MESSAGE and colon is None:
            after = self.lexer.peek()
            if after.kind is TokenKind.PUNCT and after.text in _OPENERS:
                raise _error(where, f"a field of type {spec.kind.value} takes a value, not a message", after)
            raise _error(where, f"expected ':' after field name {spec.name!r}, got {after.describe()}", after)
        opening = self._take("[")
        if opening is None:
            value = self.parse_value(
                spec, f"{where}[{len(getattr(message, spec.name))}]" if spec.repeated else where, depth
            )
            _put(message, spec, value)
            return
        if not spec.repeated:
            raise _error(where, "a list '[...]' needs a repeated field", opening)
        items = getattr(message, spec.name)
        if self._take("]") is not None:
            return
        while True:
            _put(message, spec, self.parse_value(spec, f"{where}[{len(items)}]", depth))
            if self._take("]") is not None:
                return
            if self._take(",") is None:
                raise _error(
                    where,
                    f"expected ',' or ']' in a list, got {self.lexer.peek().describe()}",
                    self.lexer.peek(),
                )

    def parse_value(self, spec: FieldSpec, path: str, depth: int) -> Any:
        """One value of field ``spec``: a message in brackets or a scalar."""
        self.lexer.path = path
        if spec.kind is Kind.MESSAGE:
            return self.parse_message_value(spec, path, depth)
        return self.parse_scalar(spec, path)

    def parse_message_value(self, spec: FieldSpec, path: str, depth: int) -> Message:
        opening = self.lexer.next()
        if opening.kind is not TokenKind.PUNCT or opening.text not in _OPENERS:
            raise _error(path, f"expected '{{' or '<' to open a message, got {opening.describe()}", opening)
        child = spec.message_type()
        self.parse_fields(child, path, opening, depth + 1)
        return child

    def _take(self, punct: str) -> Token | None:
        token = self.lexer.peek()
        if token.kind is TokenKind.PUNCT and token.text == punct:
            return self.lexer.next()
        return None

    # -- scalars --------------------------------------------------------------------------

    def parse_scalar(self, spec: FieldSpec, path: str) -> Any:
        kind = spec.kind
        first = self.lexer.peek()
        if first.kind is TokenKind.PUNCT and first.text in _OPENERS:
            raise _error(path, f"a field of type {kind.value} takes a value, not a message", first)
        if kind is Kind.STRING or kind is Kind.BYTES:
            data = self._strings(path)
            return data if kind is Kind.BYTES else data.decode("utf-8", "surrogateescape")
        negative = self._take("-")
        token = self.lexer.next()
        start = negative or token
        if kind in _INT_RANGES:
            number = self._integer(token, negative is not None, path)
            low, high = _INT_RANGES[kind]
            if not low <= number <= high:
                written = _written(negative, token)
                raise _error(path, f"{written} is out of range for {kind.value} ({low}..{high})", start)
            return number
        if kind is Kind.FLOAT or kind is Kind.DOUBLE:
            value = self._float(token, path)
            value = -value if negative is not None else value
            return round_to_float32(value) if kind is Kind.FLOAT else value
        if kind is Kind.BOOL:
            if negative is None and token.kind is not TokenKind.STRING:
                if token.text in _TRUE:
                    return True
                if token.text in _FALSE:
                    return False
            raise _error(path, f"expected true or false, got {_shown(start, token)}", start)
        assert kind is Kind.ENUM and spec.enum_type is not None
        if token.kind is TokenKind.IDENT and negative is None:
            member = spec.enum_type.__members__.get(token.text)
            if member is None:
                raise _error(path, f"{spec.enum_type.__qualname__} has no value named {token.text!r}", token)
            return int(member)
        number = self._integer(token, negative is not None, path)
        if number not in spec.enum_values:
            written = _written(negative, token)
            raise _error(path, f"{spec.enum_type.__qualname__} has no value {written}", start)
        return number

    def _strings(self, path: str) -> bytes:
        token = self.lexer.next()
        if token.kind is not TokenKind.STRING:
            raise _error(path, f"expected a string, got {token.describe()}", token)
        parts = [token.data]
        while self.lexer.peek().kind is TokenKind.STRING:
            parts.append(self.lexer.next().data)
        return b"".join(parts)

    def _integer(self, token: Token, negative: bool, path: str) -> int:
        text = token.text
        if token.kind is not TokenKind.NUMBER or not _is_integer_literal(text):
            raise _error(path, f"expected an integer, got {token.describe()}", token)
        if text[:2] in ("0x", "0X"):
            number = int(text[2:], 16)
        elif len(text) > 1 and text[0] == "0":
            if not set(text) <= set("01234567"):
                raise _error(path, f"invalid octal integer {text!r}", token)
            number = int(text, 8)
        elif len(text) > _MAX_DECIMAL_DIGITS:
            raise _error(path, f"{len(text)}-digit integer is out of range for any integer field", token)
        else:
            number = int(text)
        return -number if negative else number

    def _float(self, token: Token, path: str) -> float:
        text = token.text
        if token.kind is TokenKind.IDENT:
            lowered = text.lower()
            if lowered in _INFINITY:
                return math.inf
            if lowered == "nan":
                return math.nan
        elif token.kind is TokenKind.NUMBER:
            if text[:2] in ("0x", "0X"):
                raise _error(path, f"a float cannot be written in hex ({text!r})", token)
            if len(text) > 1 and text[0] == "0" and text.isdigit():
                raise _error(path, f"a float cannot be written in octal ({text!r})", token)
            return float(text.rstrip("fF"))
        raise _error(path, f"expected a number, got {token.describe()}", token)


def _is_integer_literal(text: str) -> bool:
    if text[:2] in ("0x", "0X"):
        return True
    return text.isdigit()


def _written(negative: Token | None, token: Token) -> str:
    """A number as the text wrote it, shortened if long."""
    text = ("-" if negative is not None else "") + token.text
    return text if len(text) <= 40 else f"{text[:37]}..."


def _shown(start: Token, token: Token) -> str:
    return f"'-' then {token.describe()}" if start is not token else token.describe()


def _error(path: str, reason: str, token: Token) -> ParseError:
    return ParseError(f"{path}: {reason}", token.line, token.column)


def _put(message: Message, spec: FieldSpec, value: Any) -> None:
    """Set (or append to) field ``spec``. A string may hold surrogate escapes, the bytes
    that are not UTF-8 the text spelled as octal escapes; an assignment refuses those
    (as protobuf's does), so strings are stored as read, everything else assigned."""
    if spec.kind is not Kind.STRING:
        if spec.repeated:
            getattr(message, spec.name).append(value)
        else:
            setattr(message, spec.name, value)
    elif spec.repeated:
        append_valid(getattr(message, spec.name), value)
    else:
        store_valid(message, spec.name, value)
