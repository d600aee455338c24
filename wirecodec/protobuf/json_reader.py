"""Strict JSON (RFC 8259) read into values that remember where they were written.

:mod:`json` reports syntax errors with a position, but once it has built a dict the
position of each value is gone, and ``from_json`` wants to say *where* a field's value
is wrong. :func:`read_json` returns :class:`JsonValue` nodes carrying line and column
(1-based). It refuses what RFC 8259 refuses (comments, trailing commas, ``NaN``,
single quotes, raw control characters in strings) and also duplicate keys, which
protobuf's JSON parser refuses.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Final, Literal

from wirecodec.errors import ParseError

__all__ = ["JsonKind", "JsonValue", "read_json"]

JsonKind = Literal["object", "array", "string", "number", "true", "false", "null"]


@dataclass(slots=True)
class JsonValue:
    """One JSON value and where it starts.

    ``text`` is the string's value or the number's source text; ``members`` an object's
    ``(key, key position, value)`` triples in source order; ``items`` an array's values.
    """

    kind: JsonKind
    line: int
    column: int
    text: str = ""
    members: list[tuple[str, tuple[int, int], JsonValue]] = field(default_factory=list)
    items: list[JsonValue] = field(default_factory=list)

    def describe(self) -> str:
        """How an error message names this value."""
        if self.kind == "string":
            shown = self.text if len(self.text) <= 40 else self.text[:37] + "..."
            return f"string {shown!r}"
        if self.kind == "number":
            return f"number {self.text}"
        return self.kind


_WHITESPACE: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_PLAIN_CHARS: Final = re.compile(r'[^"\\\x00-\x1f]*')
_ESCAPES: Final = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX4: Final = re.compile(r"[0-9a-fA-F]{4}")
_WORD: Final = re.compile(r"[A-Za-z0-9_+.-]+")
_LITERALS: Final[tuple[JsonKind, ...]] = ("true", "false", "null")


def read_json(text: str, *, max_depth: int = 100) -> JsonValue:
    """Parse one JSON document; raises ParseError (line, column) on anything RFC 8259 refuses."""
    reader = _Reader(text, max_depth)
    value = reader.value(0)
    reader.skip_whitespace()
    if reader.pos != len(text):
        raise reader.error("unexpected text after the JSON value", reader.pos)
    return value


class _Reader:
    def __init__(self, text: str, max_depth: int) -> None:
        self.text = text
        self.pos = 0
        self.max_depth = max_depth
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def position(self, index: int) -> tuple[int, int]:
        """1-based line and column of ``index``."""
        line = bisect.bisect_left(self.newlines, index)
        line_start = self.newlines[line - 1] + 1 if line else 0
        return line + 1, index - line_start + 1

    def error(self, reason: str, index: int) -> ParseError:
        return ParseError(reason, *self.position(index))

    def skip_whitespace(self) -> None:
        match = _WHITESPACE.match(self.text, self.pos)
        assert match is not None  # matches the empty string
        self.pos = match.end()

    def value(self, depth: int) -> JsonValue:
        self.skip_whitespace()
        start = self.pos
        text = self.text
        if start >= len(text):
            raise self.error("expected a JSON value, got end of input", start)
        char = text[start]
        line, column = self.position(start)
        if char == "{" or char == "[":
            if depth >= self.max_depth:
                raise self.error(f"JSON nested deeper than {self.max_depth} levels", start)
            return self.container(char, line, column, depth + 1)
        if char == '"':
            return JsonValue("string", line, column, self.string())
        number = _NUMBER.match(text, start)
        if number is not None:
            self.pos = number.end()
            if self.pos < len(text) and (text[self.pos].isalnum() or text[self.pos] in "._"):
                raise self.error(f"invalid number {text[start : self.pos + 1]!r}", start)
            return JsonValue("number", line, column, number.group())
        for literal in _LITERALS:
            if text.startswith(literal, start):
                self.pos = start + len(literal)
                return JsonValue(literal, line, column)
        word = _WORD.match(text, start)
        shown = word.group() if word else char
        raise self.error(f"expected a JSON value, got {shown!r}", start)

    def container(self, opening: str, line: int, column: int, depth: int) -> JsonValue:
        is_object = opening == "{"
        closing = "}" if is_object else "]"
        node = JsonValue("object" if is_object else "array", line, column)
        self.pos += 1
        self.skip_whitespace()
        if self.text.startswith(closing, self.pos):
            self.pos += 1
            return node
        seen: dict[str, tuple[int, int]] = {}
        while True:
            if is_object:
                self.skip_whitespace()
                key_at = self.pos
                if not self.text.startswith('"', key_at):
                    raise self.error(f"expected a string key, got {self._shown(key_at)}", key_at)
                key = self.string()
                where = self.position(key_at)
                if key in seen:
                    first = seen[key]
                    raise self.error(
                        f"duplicate key {key!r} (first at line {first[0]}, column {first[1]})", key_at
                    )
                seen[key] = where
                self.skip_whitespace()
                if not self.text.startswith(":", self.pos):
                    raise self.error(f"expected ':' after a key, got {self._shown(self.pos)}", self.pos)
                self.pos += 1
                node.members.append((key, where, self.value(depth)))
            else:
                node.items.append(self.value(depth))
            self.skip_whitespace()
            if self.text.startswith(",", self.pos):
                self.pos += 1
                continue
            if self.text.startswith(closing, self.pos):
                self.pos += 1
                return node
            raise self.error(f"expected ',' or {closing!r}, got {self._shown(self.pos)}", self.pos)

    def _shown(self, index: int) -> str:
        return repr(self.text[index]) if index < len(self.text) else "end of input"

    def string(self) -> str:
        """A string literal starting at the opening quote at ``pos``; may hold lone surrogates."""
        text = self.text
        start = self.pos
        pos = start + 1
        parts: list[str] = []
        while True:
            plain = _PLAIN_CHARS.match(text, pos)
            assert plain is not None
            parts.append(plain.group())
            pos = plain.end()
            if pos >= len(text):
                raise self.error("string is not closed", start)
            char = text[pos]
            if char == '"':
                self.pos = pos + 1
                return "".join(parts)
            if char != "\\":
                raise self.error(f"control character {char!r} must be escaped in a string", pos)
            escape = text[pos + 1 : pos + 2]
            if escape in _ESCAPES:
                parts.append(_ESCAPES[escape])
                pos += 2
            elif escape == "u" and _HEX4.match(text, pos + 2):
                code = int(text[pos + 2 : pos + 6], 16)
                pos += 6
                if 0xD800 <= code < 0xDC00 and text.startswith("\\u", pos) and _HEX4.match(text, pos + 2):
                    low = int(text[pos + 2 : pos + 6], 16)
                    if 0xDC00 <= low < 0xE000:
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        pos += 6
                parts.append(chr(code))
            else:
                raise self.error(f"invalid escape {text[pos : pos + 2]!r} in a string", pos)
