"""The character-level reader of the ONNX textual syntax: spaces, names, literals.

The syntax has no separate token stream: what a word means depends on where the
grammar is (``float`` is a type before a name and an attribute type after ``:``), so
the parser asks this scanner for one thing at a time. Every request first skips white
space and ``#`` comments, which is why an error's position is the start of the
offending token. Letters, digits and white space are ASCII only, as in the reference.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn, TypeVar

from wirecodec._textual.numbers import (
    INT64_MAX,
    INT64_MIN,
    UINT64_MAX,
    float32_from_text,
    float64_from_text,
)
from wirecodec.errors import ParseError

__all__ = ["Literal", "LiteralKind", "Scanner", "is_identifier"]

_Item = TypeVar("_Item")

_SPACE = frozenset(" \t\n\v\f\r")
_ALPHA = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGIT = frozenset("0123456789")
_WORD_START = _ALPHA | {"_"}
_WORD = _ALPHA | _DIGIT | {"_"}
_FLOAT_WORDS = frozenset({"inf", "infinity", "nan"})
# The reference looks at no more than this many letters when deciding whether a word
# spells infinity or NaN.
_FLOAT_WORD_SCAN = 9


def is_identifier(text: str) -> bool:
    """True for a name the syntax can write bare: a letter or ``_``, then letters, digits, ``_``."""
    return bool(text) and text[0] in _WORD_START and all(c in _WORD for c in text)


class LiteralKind(enum.Enum):
    """What a literal turned out to be; NONE when no literal starts at the cursor."""

    NONE = 0
    INT = 1
    FLOAT = 2
    STRING = 3


@dataclass(frozen=True)
class Literal:
    """A literal as written (``text``; a string's contents unescaped) and where it began."""

    kind: LiteralKind
    text: str
    start: int


class Scanner:
    """A cursor over the text; each method skips white space and comments first."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        # The reference reads a C string and would stop at a NUL; refuse it instead.
        nul = text.find("\0")
        if nul >= 0:
            self.fail("the text contains a NUL character", nul)

    # -- positions and errors ---------------------------------------------------------

    def line_column(self, pos: int) -> tuple[int, int]:
        """1-based line and column of character offset ``pos``."""
        line = self.text.count("\n", 0, pos) + 1
        column = pos - (self.text.rfind("\n", 0, pos) + 1) + 1
        return line, column

    def fail(self, reason: str, pos: int | None = None) -> NoReturn:
        """Raise ParseError at ``pos`` (default: the cursor)."""
        line, column = self.line_column(self.pos if pos is None else pos)
        raise ParseError(reason, line, column)

    # -- characters -------------------------------------------------------------------

    def skip_space(self) -> None:
        """Move past white space and ``#`` comments (which run to the end of the line)."""
        text, pos, end = self.text, self.pos, len(self.text)
        while pos < end:
            ch = text[pos]
            if ch in _SPACE:
                pos += 1
            elif ch == "#":
                newline = text.find("\n", pos)
                pos = end if newline < 0 else newline
            else:
                break
        self.pos = pos

    def mark(self) -> int:
        """The position of the next token (after white space and comments)."""
        self.skip_space()
        return self.pos

    def peek(self) -> str:
        """The next significant character, or '' at the end."""
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_end(self) -> bool:
        """True when only white space and comments remain."""
        return self.peek() == ""

    def accept(self, ch: str, skip: bool = True) -> bool:
        """Consume ``ch`` if it comes next; ``skip=False`` forbids white space before it."""
        if skip:
            self.skip_space()
        if self.text.startswith(ch, self.pos):
            self.pos += 1
            return True
        return False

    def expect(self, ch: str, skip: bool = True) -> None:
        """Consume ``ch`` or fail saying it was expected."""
        if not self.accept(ch, skip):
            found = self.text[self.pos] if self.pos < len(self.text) else "end of text"
            self.fail(f"expected '{ch}', found {found!r}" if found != "end of text" else f"expected '{ch}'")

    def separated(self, read: Callable[[], _Item]) -> list[_Item]:
        """``read()`` once, then again after each comma."""
        items = [read()]
        while self.accept(","):
            items.append(read())
        return items

    # -- words ------------------------------------------------------------------------

    def optional_identifier(self) -> str:
        """The identifier at the cursor, or '' (consuming nothing) when there is none."""
        self.skip_space()
        text, start = self.text, self.pos
        pos = start
        if pos < len(text) and text[pos] in _WORD_START:
            pos += 1
            while pos < len(text) and text[pos] in _WORD:
                pos += 1
        self.pos = pos
        return text[start:pos]

    def identifier(self, what: str = "an identifier") -> str:
        """An identifier, or fail saying ``what`` was expected."""
        name = self.optional_identifier()
        if not name:
            self.fail(f"expected {what}")
        return name

    def peek_identifier(self) -> str:
        """The identifier at the cursor without consuming it."""
        saved = self.pos
        name = self.optional_identifier()
        self.pos = saved
        return name

    def quotable_identifier(self, what: str = "a name") -> str:
        """A bare identifier or a quoted string."""
        if self.peek() == '"':
            return self.string()
        return self.identifier(what)

    def next_is_float_word(self) -> bool:
        """True when the next word spells inf, infinity or nan (any case) and no digit follows."""
        self.skip_space()
        text, pos = self.text, self.pos
        end = pos
        while end < len(text) and text[end] in _ALPHA and end - pos < _FLOAT_WORD_SCAN:
            end += 1
        if end < len(text) and text[end] in _DIGIT:
            return False
        return text[pos:end].lower() in _FLOAT_WORDS

    # -- literals ---------------------------------------------------------------------

    def literal(self) -> Literal:
        """A string, integer or float literal; kind NONE (nothing consumed) if none starts here."""
        self.skip_space()
        text, start = self.text, self.pos
        if text.startswith('"', start):
            return Literal(LiteralKind.STRING, self._string_body(), start)
        pos = start
        if text.startswith("-", pos):
            pos += 1
            if pos < len(text) and text[pos] in _SPACE:
                self.fail("a number must follow '-' directly", pos)
        if pos < len(text) and text[pos] in _ALPHA:
            self.pos = pos
            if not self.next_is_float_word():
                if pos == start:
                    return Literal(LiteralKind.NONE, "", start)  # a word, not a literal
                self.fail("expected a number after '-' (inf, infinity and nan are the words allowed)")
            while self.pos < len(text) and text[self.pos] in _ALPHA:
                self.pos += 1
            return Literal(LiteralKind.FLOAT, text[start : self.pos], start)
        if pos >= len(text) or text[pos] not in _DIGIT:
            self.pos = pos
            return Literal(LiteralKind.NONE, "", start)
        return self._number(start, pos)

    def _number(self, start: int, pos: int) -> Literal:
        text = self.text
        is_float = False
        while pos < len(text) and (text[pos] in _DIGIT or text[pos] == "."):
            if text[pos] == ".":
                if is_float:
                    break  # a second point ends the literal
                is_float = True
            pos += 1
        if pos < len(text) and text[pos] in "eE":
            is_float = True
            pos += 1
            if pos < len(text) and text[pos] in "+-":
                pos += 1
            while pos < len(text) and text[pos] in _DIGIT:
                pos += 1
        self.pos = pos
        return Literal(LiteralKind.FLOAT if is_float else LiteralKind.INT, text[start:pos], start)

    def _string_body(self) -> str:
        """A double-quoted string at the cursor; a backslash makes the next character literal."""
        text = self.text
        pos = self.pos + 1
        parts: list[str] = []
        chunk = pos
        while True:
            quote = text.find('"', pos)
            slash = text.find("\\", pos, quote if quote >= 0 else len(text))
            if quote < 0:
                self.pos = len(text)
                self.fail("unterminated string literal")
            if slash < 0:
                parts.append(text[chunk:quote])
                self.pos = quote + 1
                return "".join(parts)
            if slash + 1 >= len(text):
                self.pos = len(text)
                self.fail("unterminated string literal")
            parts.append(text[chunk:slash])
            parts.append(text[slash + 1])
            pos = chunk = slash + 2

    def string(self, what: str = "a string in double quotes") -> str:
        """A string literal, or fail."""
        lit = self.literal()
        if lit.kind is not LiteralKind.STRING:
            self.fail(f"expected {what}", lit.start)
        return lit.text

    def int64(self, what: str = "an integer") -> int:
        """An integer literal in the int64 range."""
        lit = self.literal()
        if lit.kind is not LiteralKind.INT:
            self.fail(f"expected {what}", lit.start)
        return self.int_value(lit, INT64_MIN, INT64_MAX)

    def uint64(self) -> int:
        """An integer for a uint64 field; like C's strtoull, ``-n`` wraps to ``2**64 - n``."""
        lit = self.literal()
        if lit.kind is not LiteralKind.INT:
            self.fail("expected an integer", lit.start)
        value = self.int_value(lit, -UINT64_MAX, UINT64_MAX)
        return value % (UINT64_MAX + 1)

    def int_value(self, lit: Literal, low: int, high: int) -> int:
        """The value of an INT literal, failing when it lies outside ``low..high``."""
        value = int(lit.text)
        if not low <= value <= high:
            self.fail(f"integer {lit.text} is out of range", lit.start)
        return value

    def float_value(self, lit: Literal, double: bool = False) -> float:
        """The value of an INT or FLOAT literal as float32 (or float64)."""
        value = float64_from_text(lit.text) if double else float32_from_text(lit.text)
        if value is None:
            kind = "double" if double else "float"
            self.fail(f"{lit.text!r} is not a {kind} value (malformed or out of range)", lit.start)
        return value

    def number(self, double: bool = False) -> float:
        """An integer or float literal read as float32 (or float64)."""
        lit = self.literal()
        if lit.kind not in (LiteralKind.INT, LiteralKind.FLOAT):
            self.fail("expected a number", lit.start)
        return self.float_value(lit, double)
