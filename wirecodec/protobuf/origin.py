"""Re-emitting a decoded message's own source bytes while nothing in it has changed.

Protobuf re-serialises every byte of a message. A message decoded from a buffer that
cannot change (``bytes``, a read-only file map) and whose records are exactly what the
encoder would write for it — *canonical*: known fields in field-number order, each
singular field once, no unknown fields, minimal varints and lengths, packing as
declared, every sub-message canonical too — can instead hand back its slice of that
buffer, as long as neither it nor anything inside it was changed since.

**Decoding.** :func:`origin_for` makes one :class:`Origin` per input, kept alive by the
decoded root message (``_origin``). The decoder gives every message a *span*
(``_span``): one int packing the origin's serial number and the payload's start and
end offsets (a tuple and two ints would cost several times the memory, and a model has
millions of messages). The repeated fields it fills get their owner's span. A message
whose records are not canonical reports itself changed at once.

**Changes.** Every way to change a message or one of its repeated fields (assignment,
the containers' methods, ``ClearField``, ``Clear``, ``MergeFrom``, a detached child's
first write) first reports the span (:func:`touch`), which records the span's start in
its origin. A message is unchanged when no recorded offset lies inside its span (its
end included): a change anywhere below it lies inside, while the messages beside it
stay reusable. Nothing links a child to its parent, so decoding builds no reference
cycles.

**Repeated message fields of two or more elements** get a span of their own
(:func:`field_span`, the container's ``_records``, which its changes also report): all
the field's records, contiguous in canonical bytes. It starts one byte into the first
record, where no message starts, so the container's own changes (adding, removing,
reordering elements) are told apart from its owner's. While the container is unchanged,
the encoder re-emits the field whole, or, if some elements changed, the slices between
them (:func:`reuse_field`): renaming one node of a 100k-node graph encodes one node.

**Encoding.** The generated encoder asks :func:`reusable` first and, when it gets a
slice, appends it (zero-copy) instead of walking the fields. A message whose root has
been dropped has no origin left and is simply encoded field by field.
``wirecodec.encode(message, reuse_source=False)`` runs an encoder that never asks (a
variant of the same code, wirecodec.protobuf.compile), for tests of the field-by-field
encoder.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import mmap
import weakref
from collections.abc import Callable
from typing import Any, Final

from wirecodec.protobuf.wire import encode_varint, varint_size

__all__ = [
    "SPAN_SHIFT",
    "Origin",
    "field_span",
    "origin_for",
    "reuse_field",
    "reusable",
    "source_of",
    "touch",
]

_OFFSET_BITS: Final = 40  # offsets below 1 TiB; a larger input gets no origin
SPAN_SHIFT: Final = _OFFSET_BITS  # span = base | start << SPAN_SHIFT | end
_OFFSET_MASK: Final = (1 << _OFFSET_BITS) - 1
_SERIAL_SHIFT: Final = 2 * _OFFSET_BITS

_serials: Final = itertools.count(1)
# serial -> the origin, held weakly (a plain dict of refs: looked up on every re-emit)
_live: Final[dict[int, weakref.ref[Origin]]] = {}


class Origin:
    """One decoded input: its bytes and the offsets of the messages changed since.

    ``base`` is what the decoder ORs a span's offsets into: ``base | start << 40 | end``.
    """

    __slots__ = ("__weakref__", "_marks", "_sorted", "base", "view")

    def __init__(self, view: memoryview) -> None:
        self.view = view
        serial = next(_serials)
        self.base = serial << _SERIAL_SHIFT
        self._marks: set[int] = set()
        self._sorted: list[int] | None = []
        _live[serial] = weakref.ref(self, functools.partial(_forget, serial))

    def mark(self, start: int) -> None:
        """Record that the message whose span starts at ``start`` changed."""
        if start not in self._marks:
            self._marks.add(start)
            self._sorted = None

    def marks_within(self, start: int, end: int) -> list[int]:
        """The changed offsets in ``[start, end]``, in order.

        ``end`` itself counts: an empty last child starts where its parent ends. No other
        message starts there (a record after it needs a tag and a length first).
        """
        marks = self._sorted
        if marks is None:
            marks = self._sorted = sorted(self._marks)
        return marks[bisect.bisect_left(marks, start) : bisect.bisect_right(marks, end)]


def _forget(serial: int, _ref: object) -> None:
    _live.pop(serial, None)


def origin_for(buf: Any, view: memoryview) -> Origin | None:
    """An origin for decoding ``view``, or None when its bytes could change later.

    Only ``bytes`` and read-only file maps qualify: a read-only view of a ``bytearray``
    still changes when the bytearray does.
    """
    if not view.readonly or view.nbytes > _OFFSET_MASK:
        return None
    whole = view.obj
    if isinstance(whole, bytes) or (isinstance(whole, mmap.mmap) and isinstance(buf, (bytes, mmap.mmap))):
        return Origin(view)
    return None


def _origin_of(span: int) -> Origin | None:
    """The live origin a span points into (None once its root was dropped)."""
    ref = _live.get(span >> _SERIAL_SHIFT)
    return None if ref is None else ref()


def _offsets(span: int) -> tuple[int, int]:
    return (span >> _OFFSET_BITS) & _OFFSET_MASK, span & _OFFSET_MASK


def _record_start(payload: int, payload_end: int, tag_size: int) -> int:
    """Where the record of a canonical payload begins: its tag and minimal length before it."""
    return payload - tag_size - varint_size(payload_end - payload)


def touch(span: int) -> None:
    """Report that the message with this span (or one of its repeated fields) changes."""
    origin = _origin_of(span)
    if origin is not None:
        origin.mark(_offsets(span)[0])


def reusable(span: int) -> memoryview | None:
    """The message's source bytes if they are still its encoding, else None."""
    found = source_of(span)
    if found is None:
        return None
    origin, start, end = found
    return origin.view[start:end]


def source_of(span: int) -> tuple[Origin, int, int] | None:
    """Where a message's own bytes still are its encoding: its origin, and the payload's
    start and end in the origin's view; else None (changed since, or its root dropped)."""
    # (Asked once per message encoded: _origin_of, _offsets and the marks' search inline.)
    ref = _live.get(span >> _SERIAL_SHIFT)
    origin = None if ref is None else ref()
    if origin is None:
        return None
    start = (span >> _OFFSET_BITS) & _OFFSET_MASK
    end = span & _OFFSET_MASK
    if origin._marks:
        marks = origin._sorted
        if marks is None:
            marks = origin._sorted = sorted(origin._marks)
        at = bisect.bisect_left(marks, start)
        if at < len(marks) and marks[at] <= end:
            return None
    return origin, start, end


def field_span(elements: list[Any], tag_size: int) -> int:
    """The span of a decoded repeated message field's records (see the module docstring).

    Called by decoders on a canonical owner, whose elements all have spans, in order.
    """
    first: int = elements[0]._span
    last: int = elements[-1]._span
    record = _record_start(*_offsets(first), tag_size)
    return (first >> _SERIAL_SHIFT << _SERIAL_SHIFT) | (record + 1) << _OFFSET_BITS | (last & _OFFSET_MASK)


class _NoSpanError(Exception):
    pass


def _payload_start(element: Any) -> int:
    span: int | None = element._span
    if span is None:  # cleared since: it is dirty, and where it began is not known
        raise _NoSpanError
    return _offsets(span)[0]


def _dirty_elements(
    elements: list[Any], marks: list[int], starts: list[int] | None
) -> tuple[list[int], list[bool]] | None:
    """The positions of the elements the sorted ``marks`` fall in (a mark before the first
    payload is the owner's own), in order, and for each whether its one mark is its own
    payload's start (it changed itself, nothing inside it did); None if an element lost
    its span. ``starts``: every element's payload start, when the container tells them
    without building them."""
    try:
        if starts is None and len(marks) * 16 >= len(elements):
            # Many (every node renamed): the starts read once, searched as plain ints.
            starts = [_payload_start(element) for element in elements]
        if starts is not None:
            if marks and starts and marks[0] < starts[0]:
                marks = marks[1:]  # the owner's own
            if marks == starts:  # every element changed itself (one comparison, in C)
                return list(range(len(starts))), [True] * len(starts)

            def after(mark: int) -> int:
                return bisect.bisect_right(starts, mark)

            def start_of(at: int) -> int:
                return starts[at]

        else:
            # Few marks: a search each, reading the spans of a few elements only.
            def after(mark: int) -> int:
                return bisect.bisect_right(elements, mark, key=_payload_start)

            def start_of(at: int) -> int:
                return _payload_start(elements[at])

        dirty: list[int] = []
        own: list[bool] = []
        for mark in marks:
            at = after(mark) - 1
            if at < 0:
                continue
            if dirty and dirty[-1] == at:
                own[-1] = False  # a second mark: something inside it changed
            else:
                dirty.append(at)
                own.append(mark == start_of(at))
    except _NoSpanError:
        return None
    return dirty, own


def _every_element_itself(elements: list[Any], marks: list[int]) -> tuple[list[Any], list[int]] | None:
    """The elements and their spans when the field's marks (its owner's left out) are
    exactly its elements' starts: every element changed itself, nothing inside one did
    (every node renamed). Then each element is read anyway, and its start is told by its
    span; None otherwise."""
    if len(marks) != len(elements):
        return None
    changed = elements[:]
    spans = [element._span for element in changed]
    if None in spans or [span >> _OFFSET_BITS & _OFFSET_MASK for span in spans] != marks:
        return None
    return changed, spans


@functools.cache
def _headers(tag: bytes) -> tuple[bytes, ...]:
    """A record's tag and one-byte length, for each length below 128."""
    return tuple(tag + bytes((size,)) for size in range(128))


def reuse_field(
    elements: list[Any], span: int, tag: bytes, encode: Callable[..., int], out: list[Any]
) -> int | None:
    """Append a repeated message field: its source bytes, re-encoding only the elements
    that changed; returns the bytes appended, or None when the field itself changed
    (the caller then encodes it element by element).

    An element that changed itself while nothing inside it did is encoded in own-fields
    mode (``encode(element, out, view)``, wirecodec.protobuf.gen.encode): its own fields,
    and its sub-messages as their source records."""
    origin = _origin_of(span)
    if origin is None:
        return None
    marked, end = _offsets(span)
    start = marked - 1
    marks = origin.marks_within(start, end)
    view = origin.view
    if not marks:
        out.append(view[start:end])
        return end - start
    # The container's own change: its mark, the first after the owner's (at ``start``) if any.
    if marks[0] == marked or (len(marks) > 1 and marks[1] == marked):
        return None
    found = _every_element_itself(elements, marks[1:] if marks[0] == start else marks)
    if found is not None:
        changed, spans = found
        own = [True] * len(changed)
    else:
        # A container of records (schema_dsl.views) tells where its elements start without views.
        tell = getattr(elements, "_element_starts", None)
        dirty_own = _dirty_elements(elements, marks, None if tell is None else tell())
        if dirty_own is None:
            return None
        dirty, own = dirty_own
        # (read once: a container of records builds on reads)
        changed = elements[:] if len(dirty) == len(elements) else [elements[at] for at in dirty]
        spans = [element._span for element in changed]
        if None in spans:  # cleared since: where its record began is not known
            return None
    headers = _headers(tag)
    tag_size = len(tag)
    written, done = 0, start
    for element, element_span, alone in zip(changed, spans, own, strict=True):
        payload = (element_span >> _OFFSET_BITS) & _OFFSET_MASK
        payload_end = element_span & _OFFSET_MASK
        size = payload_end - payload
        record = payload - tag_size - (1 if size < 128 else 2 if size < 16384 else varint_size(size))
        if record > done:
            out.append(view[done:record])
            written += record - done
        slot = len(out)
        out.append(b"")
        size = encode(element, out, view) if alone else encode(element, out)
        if size < 128:
            out[slot] = headers[size]
            written += tag_size + 1 + size
        else:
            header = tag + (bytes((size & 127 | 128, size >> 7)) if size < 16384 else encode_varint(size))
            out[slot] = header
            written += len(header) + size
        done = payload_end
    if done < end:
        out.append(view[done:end])
        written += end - done
    return written
