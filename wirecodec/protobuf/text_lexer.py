"""Tokens of the protobuf text format, with their line and column.

The lexical rules are those of the Text Format Language Specification
(protobuf.dev/reference/protobuf/textformat-spec): whitespace is `` \\t\\n\\v\\f\\r``,
``#`` starts a comment that runs to the end of the line, identifiers are
``[A-Za-z_][A-Za-z0-9_]*``, a number may not run straight into a letter (``10bar`` is
an error, ``1.5f`` a float), and a string literal is single- or double-quoted, stays on
one line and understands C escapes (:func:`unescape`). Everything else is a
one-character punctuation token; the parser decides what it may be.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Final

from wirecodec.errors import ParseError

__all__ = ["Lexer", "Token", "TokenKind", "unescape"]


class TokenKind(enum.Enum):
    IDENT = "identifier"
    NUMBER = "number"
    STRING = "string"
    PUNCT = "punctuation"
    END = "end of input"


@dataclass(frozen=True, slots=True)
class Token:
    """One token: its kind, its source text, where it starts (1-based), and for strings the bytes."""

    kind: TokenKind
    text: str
    line: int
    column: int
    data: bytes = b""

    def describe(self) -> str:
        """How an error message names this token."""
        if self.kind is TokenKind.END:
            return "end of input"
        shown = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return f"{self.kind.value} {shown!r}" if self.kind is not TokenKind.PUNCT else repr(shown)


_SKIP: Final = re.compile(r"(?:[ \t\n\v\f\r]+|#[^\n]*)+")
_IDENT: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A number is lexed greedily over everything a number could touch, then validated, so
# that "10bar" and "1.2.3" are one bad token rather than two good ones.
_NUMBER: Final = re.compile(r"(?:[0-9]|\.[0-9])(?:[0-9A-Za-z_.]|(?<=[eE])[+-])*")
_STRING_BODY: Final = {
    '"': re.compile(r'[^"\\\n]*(?:\\[^\n][^"\\\n]*)*'),
    "'": re.compile(r"[^'\\\n]*(?:\\[^\n][^'\\\n]*)*"),
}
_VALID_NUMBER: Final = re.compile(
    r"""(?:
        0[xX][0-9a-fA-F]+                                  # hexadecimal integer
      | [0-9]+                                             # decimal or octal integer
      | (?:(?:0|[1-9][0-9]*)\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fF]?   # float with a point
      | (?:0|[1-9][0-9]*)(?:[eE][+-]?[0-9]+[fF]?|[fF])     # float by exponent or suffix
    )$""",
    re.VERBOSE,
)


class Lexer:
    """Turns text into tokens on demand; ``peek`` looks ahead one, ``next`` consumes it."""

    def __init__(self, text: str) -> None:
        self.path = ""  # the field path the parser is reading, named in lexical errors
        self._text = text
        self._pos = 0
        self._line = 1
        self._line_start = 0  # index where the current line begins
        self._ahead: Token | None = None

    def peek(self) -> Token:
        if self._ahead is None:
            self._ahead = self._scan()
        return self._ahead

    def next(self) -> Token:
        token = self.peek()
        self._ahead = None
        return token

    def _error(self, reason: str, line: int, column: int) -> ParseError:
        return ParseError(f"{self.path}: {reason}" if self.path else reason, line, column)

    # -- scanning -----------------------------------------------------------------------

    def _advance_to(self, end: int) -> None:
        """Move to ``end``, counting the newlines passed."""
        text = self._text
        newlines = text.count("\n", self._pos, end)
        if newlines:
            self._line += newlines
            self._line_start = text.rindex("\n", self._pos, end) + 1
        self._pos = end

    def _scan(self) -> Token:
        text = self._text
        skipped = _SKIP.match(text, self._pos)
        if skipped is not None:
            self._advance_to(skipped.end())
        start = self._pos
        line, column = self._line, start - self._line_start + 1
        if start >= len(text):
            return Token(TokenKind.END, "", line, column)
        char = text[start]
        match = _IDENT.match(text, start)
        if match is not None:
            self._pos = match.end()
            return Token(TokenKind.IDENT, match.group(), line, column)
        match = _NUMBER.match(text, start)
        if match is not None:
            word = match.group()
            if _VALID_NUMBER.match(word) is None:
                raise self._error(f"invalid number {word!r}", line, column)
            self._pos = match.end()
            return Token(TokenKind.NUMBER, word, line, column)
        if char in _STRING_BODY:
            body = _STRING_BODY[char].match(text, start + 1)
            assert body is not None  # the pattern matches the empty string
            end = body.end()
            if end >= len(text) or text[end] != char:
                raise self._error("string literal is not closed on its line", line, column)
            try:
                data = unescape(body.group(), line, column + 1)
            except ParseError as exc:
                raise self._error(exc.reason, exc.line, exc.column) from None
            self._pos = end + 1
            return Token(TokenKind.STRING, text[start : end + 1], line, column, data)
        self._pos = start + 1
        return Token(TokenKind.PUNCT, char, line, column)


# -- string literals ----------------------------------------------------------------------

_SIMPLE_ESCAPES: Final = {
    "a": b"\a",
    "b": b"\b",
    "f": b"\f",
    "n": b"\n",
    "r": b"\r",
    "t": b"\t",
    "v": b"\v",
    "?": b"?",
    "\\": b"\\",
    "'": b"'",
    '"': b'"',
}
_ESCAPE: Final = re.compile(
    r"\\(?:(?P<simple>[abfnrtv?\\'\"])|(?P<octal>[0-7]{1,3})|x(?P<hex>[0-9a-fA-F]{1,2})"
    r"|u(?P<u4>[0-9a-fA-F]{4})|U(?P<u8>[0-9a-fA-F]{8})|(?P<bad>.?))",
    re.DOTALL,
)
# A body whose every escape means the same to Python's unicode_escape codec as to the
# specification: octal up to \377, two-digit hex, and the C letter escapes but \?.
_CODEC_SAFE_BODY: Final = re.compile(
    r"(?:[^\\]+|\\(?:[0-3][0-7]{2}|[0-7]{1,2}(?![0-7])|x[0-9a-fA-F]{2}|[abfnrtv\\'\"]))*"
)
_LOW_ESCAPE: Final = re.compile(r"\\u([dD][c-fC-F][0-9a-fA-F]{2})")
_HIGH_SURROGATES: Final = range(0xD800, 0xDC00)
_LOW_SURROGATES: Final = range(0xDC00, 0xE000)


def unescape(body: str, line: int, column: int) -> bytes:
    """The bytes a string literal's body (between the quotes, starting at ``column``) stands for.

    Escapes: ``\\a \\b \\f \\n \\r \\t \\v \\? \\\\ \\' \\"``, octal ``\\o``..``\\ooo`` (at most
    ``\\377``), hex ``\\xh``/``\\xhh``, and Unicode ``\\uhhhh``/``\\Uhhhhhhhh`` written as UTF-8 (a
    ``\\u`` high surrogate followed by a ``\\u`` low surrogate makes one code point).
    Other characters stand for their UTF-8 encoding (the caller has made sure the text
    holds no lone surrogates).
    """
    if "\\" not in body:
        return body.encode("utf-8")
    if _CODEC_SAFE_BODY.fullmatch(body) is not None:
        # The codec runs in C; raw UTF-8 bytes pass through it as latin-1 characters.
        return body.encode("utf-8").decode("unicode_escape").encode("latin-1")
    out = bytearray()
    pos = 0
    while True:
        found = body.find("\\", pos)
        if found < 0:
            out += body[pos:].encode("utf-8")
            return bytes(out)
        out += body[pos:found].encode("utf-8")
        match = _ESCAPE.match(body, found)
        assert match is not None  # the last alternative matches anything
        where = column + found
        pos = match.end()
        if match.group("simple") is not None:
            out += _SIMPLE_ESCAPES[match.group("simple")]
        elif match.group("octal") is not None:
            value = int(match.group("octal"), 8)
            if value > 0o377:
                raise ParseError(f"octal escape {match.group()!r} is above \\377", line, where)
            out.append(value)
        elif match.group("hex") is not None:
            out.append(int(match.group("hex"), 16))
        elif match.group("bad") is not None:
            shown = match.group() if match.group("bad") else "\\ at the end"
            raise ParseError(f"invalid escape {shown!r} in string literal", line, where)
        else:
            code = int(match.group("u4") or match.group("u8"), 16)
            if code in _HIGH_SURROGATES:
                low = _LOW_ESCAPE.match(body, pos)
                if low is None:
                    raise ParseError(f"unpaired surrogate {match.group()!r}", line, where)
                code = 0x10000 + ((code - 0xD800) << 10) + (int(low.group(1), 16) - 0xDC00)
                pos = low.end()
            elif code in _LOW_SURROGATES:
                raise ParseError(f"unpaired surrogate {match.group()!r}", line, where)
            if code > 0x10FFFF:
                raise ParseError(f"escape {match.group()!r} is beyond U+10FFFF", line, where)
            out += chr(code).encode("utf-8")
