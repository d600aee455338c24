"""Records of a streamed model: walking one record's structure, and errors placed as
a whole-model decode places them.

The walk accepts exactly the shapes ``skip_field`` accepts (tag, value by wire type,
groups within the depth limit) and stops where it would fail, having collected every
byte it looked at. The decoder then gets those bytes, padded to where the enclosing
message truly ends, and words and places the error itself.
"""

from __future__ import annotations

import mmap
from typing import Any, Final

from schema_dsl import Message
from wirecodec.errors import DecodeError
from wirecodec.files.stream.input import Input
from wirecodec.protobuf.codec import decode
from wirecodec.protobuf.wire import MAX_VARINT_BYTES, read_tag, read_varint

__all__ = [
    "SMALL_PADDING",
    "InputEndedError",
    "copy_record",
    "decode_piece",
    "index_fix",
    "varint_window",
    "padded",
    "rebase",
]

_MAX_TAG: Final = (1 << 32) - 1
# Zero padding up to this size is a bytearray; above it, an untouched anonymous map.
SMALL_PADDING: Final = 1 << 20


class InputEndedError(Exception):
    """The input ended inside a record (internal; turned into a DecodeError)."""


# -- walking one record's structure ----------------------------------------------------


def varint_window(inp: Input, end: int | None) -> bytes:
    """The bytes a varint at the position may use, within ``end``."""
    limit = MAX_VARINT_BYTES if end is None else max(0, min(MAX_VARINT_BYTES, end - inp.pos))
    return inp.peek(limit)


def _move(inp: Input, n: int, out: bytearray | None) -> bool:
    """Consume ``n`` bytes into ``out`` (or past them); False if the input ended first."""
    if out is None:
        return inp.skip(n) == n
    data = inp.take(n)
    out += data
    return len(data) == n


def copy_record(inp: Input, end: int | None, depth: int, out: bytearray | None) -> bool:
    """Consume one record (tag and value) into ``out``; False where it is malformed.

    On False, ``out`` holds every byte looked at, so a decoder given them (and the
    level's true end) finds the same problem. ``depth`` bounds groups as in skip_field.
    """
    look = varint_window(inp, end)
    try:
        tag, n = read_tag(look, 0, len(look))
    except DecodeError:
        if out is not None:
            out += look
        return False
    _move(inp, n, out)
    return _copy_value(inp, tag, end, depth, out)


def _copy_value(inp: Input, tag: int, end: int | None, depth: int, out: bytearray | None) -> bool:
    wire_type = tag & 7
    if wire_type in (0, 2):
        look = varint_window(inp, end)
        try:
            value, n = read_varint(look, 0, len(look))
        except DecodeError:
            if out is not None:
                out += look
            return False
        _move(inp, n, out)
        if wire_type == 0:
            return True
        if end is not None and value > end - inp.pos:
            return False
        return _move(inp, value, out)
    if wire_type in (1, 5):
        need = 8 if wire_type == 1 else 4
        available = need if end is None else max(0, min(need, end - inp.pos))
        return _move(inp, available, out) and available == need
    if wire_type == 3:
        if depth <= 0:
            return False
        while end is None or inp.pos < end:
            look = varint_window(inp, end)
            if not look:
                return False
            try:
                inner, n = read_varint(look, 0, len(look))
            except DecodeError:
                if out is not None:
                    out += look
                return False
            if inner > _MAX_TAG:
                if out is not None:
                    out += look
                return False
            _move(inp, n, out)
            if inner & 7 == 4:
                return inner >> 3 == tag >> 3
            if not _copy_value(inp, inner, end, depth - 1, out):
                return False
        return False
    return False  # an end-group tag out of place, or wire types 6 and 7


def rebase(
    exc: DecodeError, cls: type[Message], base: int, prefix: str, fix: tuple[str, str] | None
) -> DecodeError:
    """``exc`` from decoding a piece alone, as decoding the whole model reports it."""
    rest = exc.path
    if rest.startswith(cls.__qualname__):
        rest = rest[len(cls.__qualname__) :]
    if fix is not None and rest.startswith(fix[0]):
        rest = fix[1] + rest[len(fix[0]) :]
    return type(exc)(exc.reason, exc.offset + base, prefix + rest)


def index_fix(cls: type[Message], tag: int | None, index: int) -> tuple[str, str] | None:
    """A piece decoded alone numbers its element 0; the whole model numbers it ``index``."""
    if tag is None:
        return None
    spec = cls.__schema__.by_number.get(tag >> 3)
    if spec is None or not spec.repeated or tag != spec.tag or spec.kind.wire_type != 2:
        return None
    return f".{spec.name}[0]", f".{spec.name}[{index}]"


def padded(examined: Any, size: int) -> Any:
    """``examined`` followed by zeros up to ``size`` bytes, writable (a lazily zeroed
    anonymous map when big: untouched pages cost nothing)."""
    layout: Any = bytearray(size) if size <= SMALL_PADDING else mmap.mmap(-1, size)
    layout[: len(examined)] = bytes(examined[:size])
    return layout


def decode_piece(
    cls: type[Message],
    data: Any,
    depth: int,
    base: int,
    prefix: str,
    fix: tuple[str, str] | None = None,
) -> Any:
    """``data`` decoded as a ``cls`` found at ``base`` under ``prefix`` in the model."""
    try:
        return decode(cls, data, max_depth=depth)
    except DecodeError as exc:
        failure = rebase(exc, cls, base, prefix, fix)
    raise failure
