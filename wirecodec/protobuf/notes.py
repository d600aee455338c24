"""Which noted fields a decode met: a question answered while decoding, not by a walk after.

A field declared ``noted=True`` (schema_dsl.fields) makes the generated decoders and
validators report each of its records, as (message class, field name), to the set of
the innermost :func:`noting` block of the calling thread or task. The validators report
too, so elements left waiting (wirecodec.protobuf.lazy) are counted. Loading uses it to
know, without visiting a model, that no ``TensorProto`` in it set ``data_location``, so
that nothing in it can refer to external data.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Final

__all__ = ["note", "noting"]

Seen = set[tuple[type, str]]

_SEEN: Final[contextvars.ContextVar[Seen | None]] = contextvars.ContextVar("wirecodec_notes", default=None)


def note(cls: type, name: str) -> None:
    """Report a record of the noted field ``name`` of ``cls`` (called by generated code)."""
    seen = _SEEN.get()
    if seen is not None:
        seen.add((cls, name))


@contextlib.contextmanager
def noting() -> Iterator[Seen]:
    """Collect the noted fields met by every decode within this block (a set, filled as they run)."""
    seen: Seen = set()
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)
