"""Field paths for decode errors: each enclosing message adds its step as the error unwinds.

A DecodeError starts with the offset and reason; the generated decoder (``where``) and
validator (``validator_where``) of every message it passes through add the field they
were reading, innermost first, so the error ends up naming
``ModelProto.graph.node[12].attribute[0]``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schema_dsl import FieldSpec, Message, MessageSchema, WireType
from wirecodec.errors import DecodeError
from wirecodec.protobuf.lazy import TRUSTED, elements_so_far
from wirecodec.protobuf.wire import read_tag, skip_field

__all__ = ["enter_field", "validator_where", "where"]


def enter_field(exc: DecodeError, schema: MessageSchema, tag: int, count: Callable[[FieldSpec], int]) -> None:
    """Add the field of ``tag`` to ``exc``'s path (innermost first).

    An element of a repeated length-delimited field is numbered by ``count(spec)``, the
    elements before it; called only then, since counting may cost a rescan.
    """
    number = tag >> 3
    if number == 0:
        return
    spec = schema.by_number.get(number)
    if spec is None:
        exc._enter(f".#{number}")  # the path syntax of an unknown field (fieldpath)
        return
    step = f".{spec.name}"
    if spec.repeated and spec.tag == tag and spec.kind.wire_type == WireType.LEN:
        step += f"[{count(spec)}]"
    exc._enter(step)


def where(exc: DecodeError, message: Message, tag: int) -> None:
    """Add the field a decoder was reading when ``exc`` was raised to its path."""
    enter_field(exc, message.__schema__, tag, lambda spec: elements_so_far(message, spec.name))


def validator_where(exc: DecodeError, cls: type[Message], buf: Any, begin: int, start: int, tag: int) -> None:
    """Add the step a validator was on to ``exc``'s path, as the decoder would name it.

    The decoder numbers elements of repeated length-delimited fields by how many it
    holds; a validator keeps no lists, so it counts the earlier records of the same
    tag in ``buf[begin:start]`` (already validated, and only on this error path).
    """

    def earlier(spec: FieldSpec) -> int:
        count = 0
        pos = begin
        while pos < start:
            seen, pos = read_tag(buf, pos, start)
            count += seen == tag
            pos = skip_field(buf, seen, pos, start, TRUSTED)
        return count

    enter_field(exc, cls.__schema__, tag, earlier)
