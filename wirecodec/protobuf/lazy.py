"""Small repeated sub-messages kept as byte offsets until their field is first read.

In the lazy namespaces (see wirecodec.protobuf.compile) a decoder meeting an element of a
repeated message field decodes it at once only if its payload is at least
:data:`SMALL` bytes. A smaller element is only *validated* (by a generated ``_v_``
function that rejects exactly what the decoder would, at the same offset, with the
same path) and its record offset kept, four bytes. So accept/reject is unchanged, but
ten million empty ``NodeProto`` records cost 40 MB instead of a Python object each:
every Python object the decoder does build stands for at least ``SMALL`` bytes of
input, which bounds how far memory can grow past the input (docs/hostile-input.md).
Big elements, decoded at once, are not validated twice.

A field holding offsets is *pending*: the owner's ``_lazy`` list holds its name
followed by a :class:`Pending`, and schema_dsl's descriptor calls :meth:`Pending.load`
on first read. Lazy decoding is only used on read-only buffers: the bytes must not
change before the elements are decoded.

Elements are decoded on first read with ``depth=TRUSTED``: they were validated already
(nesting limit included), so nested small elements skip validation (``depth >= CHECKED``).
"""

from __future__ import annotations

import contextlib
import itertools
from array import array
from collections.abc import Iterable, Iterator
from typing import Any, Final

from schema_dsl import Message
from wirecodec.errors import DecodeError
from wirecodec.protobuf.gcpause import gc_paused
from wirecodec.protobuf.runtime import enter_field
from wirecodec.protobuf.wire import read_tag, read_varint, skip_field

__all__ = [
    "CHECKED",
    "EAGER_FIRST",
    "SLOT",
    "SMALL",
    "TRUSTED",
    "Pending",
    "check_packed_varints",
    "peek",
    "pending",
    "validator_where",
]

# Payloads below this many bytes wait. An object and its field costs ~100-400 bytes,
# so waiting elements are where memory would otherwise grow 40-80 times the input.
SMALL: Final = 32
# The first few elements of a field are decoded at once whatever their size: most
# fields that hold small messages (a node's attributes, a shape's dims) are short, and
# a pending record costs about as much as four small objects.
EAGER_FIRST: Final = 4
# Depths at or above CHECKED mean "already validated"; no user max_depth gets there.
CHECKED: Final = 1 << 61
TRUSTED: Final = 1 << 62
# Stands for the next waiting element in Pending.order.
SLOT: Final = object()


class Pending:
    """One repeated message field's elements: some decoded, the small ones as offsets.

    While every decoded element came before the first waiting one, the order is
    ``head`` then ``starts``. A decoded element after a waiting one switches to
    ``order``: the decoded elements and a :data:`SLOT` for each waiting one, whose
    positions ``slots`` lists (so loading touches only the waiting ones).
    """

    __slots__ = ("buf", "decode", "head", "mv", "order", "slots", "starts")

    def __init__(self, buf: Any, mv: memoryview, decode: Any, head: list[Message]) -> None:
        self.buf = buf
        self.mv = mv
        self.decode = decode
        self.head = head
        self.order: list[Any] | None = None
        # Four bytes per element where offsets fit; eight past 4 GiB.
        self.starts = array("I" if len(mv) <= 0xFFFFFFFF else "Q")
        self.slots: array[int] | None = None  # made with ``order``: most records never need it

    def __len__(self) -> int:
        if self.order is not None:
            return len(self.order)
        return len(self.head) + len(self.starts)

    def add_decoded(self, element: Message) -> list[Any]:
        """Append an element decoded at once; returns ``order`` for the decoder to append SLOTs to."""
        if self.order is None:
            first = len(self.head)
            self.order = self.head + [SLOT] * len(self.starts)
            self.slots = array("Q", range(first, len(self.order)))
            self.head = []
        self.order.append(element)
        return self.order

    def add_waiting(self, start: int) -> None:
        """Append a waiting element once ``order`` is in use."""
        assert self.order is not None and self.slots is not None
        self.starts.append(start)
        self.slots.append(len(self.order))
        self.order.append(SLOT)

    def _payload_at(self, start: int) -> tuple[int, int]:
        return _payload(self.buf, start, len(self.mv))

    def iterate(self, needles: tuple[bytes, ...] = ()) -> Iterator[Message]:
        """Every element in order, decoding waiting ones one at a time and keeping none.

        With ``needles``, a waiting element whose encoded payload contains none of them
        is skipped undecoded (first checked for all waiting elements at once).
        """
        starts = iter(self.starts)
        skip_all = False
        if needles and self.starts:
            skip_all = not _holds_any(self.buf, needles, self.starts[0], self._payload_at(self.starts[-1])[1])
        items: Iterable[Any]
        if self.order is not None:
            items = self.order
        else:
            items = itertools.chain(self.head, itertools.repeat(SLOT, 0 if skip_all else len(self.starts)))
        for item in items:
            if item is not SLOT:
                yield item
            elif not skip_all:
                begin, end = self._payload_at(next(starts))
                if not needles or _holds_any(self.buf, needles, begin, end):
                    yield self.decode(self.buf, self.mv, begin, end, TRUSTED)

    def load(self) -> list[Message]:
        """Every element, in wire order (the waiting ones were validated with their owner)."""
        buf, mv, decode = self.buf, self.mv, self.decode
        end = len(mv)
        waiting: list[Message] = []
        append = waiting.append
        # Pausing the collector pays off for many elements, not for a handful.
        with gc_paused() if len(self.starts) > 256 else contextlib.nullcontext():
            for start in self.starts:
                append(decode(buf, mv, *_payload(buf, start, end), TRUSTED))
        # The record is dropped after loading, so its lists can become the field.
        if self.order is None:
            self.head += waiting
            return self.head
        order = self.order
        assert self.slots is not None
        for at, element in zip(self.slots, waiting, strict=True):
            order[at] = element
        return order


def pending(
    owner: Message, name: str, buf: Any, mv: memoryview, decode: Any, head: list[Message] | None
) -> Pending:
    """Turn ``owner.<name>`` lazy from here on; the elements decoded so far become the head."""
    # Attribute calls, not owner.__dict__: that would build a dict for every owner.
    if head is not None:
        object.__delattr__(owner, name)
    table = owner._lazy
    if table is None:
        # The table (a list: [name, record, ...]) is created before the record. The
        # collector scans young objects in the order they became tracked, and a
        # container tracked after what it holds makes it set aside, then rescan,
        # everything below (every decoded element). An empty dict is not tracked until
        # it holds a record, so it would come after; an empty list is tracked at once.
        table = []
        object.__setattr__(owner, "_lazy", table)
    record = Pending(buf, mv, decode, head if head is not None else [])
    table += (name, record)
    return record


def _payload(buf: Any, start: int, end: int) -> tuple[int, int]:
    """Where the payload of the validated record at ``start`` lies (after tag and length)."""
    pos = start + 1 if buf[start] < 0x80 else read_varint(buf, start, end)[1]
    n = buf[pos]
    if n < 0x80:
        pos += 1
    else:
        n, pos = read_varint(buf, pos, end)
    return pos, pos + n


def _holds_any(buf: Any, needles: tuple[bytes, ...], begin: int, end: int) -> bool:
    if not hasattr(buf, "find"):  # a memoryview: search a copy of the span
        buf, begin, end = bytes(buf[begin:end]), 0, end - begin
    return any(buf.find(needle, begin, end) >= 0 for needle in needles)


def peek(message: Message, name: str, needles: tuple[bytes, ...] = ()) -> Iterable[Message]:
    """The elements of repeated message field ``name``, without loading it if it waits.

    For a look at every element that should not keep them all (load's check for
    external data): waiting elements are decoded one at a time and dropped, and with
    ``needles``, those whose encoded payload contains none of them are not decoded
    (nor seen) at all.
    """
    table = message._lazy
    if table is None or name not in table:
        elements: list[Message] = getattr(message, name)
        return elements
    record: Pending = table[table.index(name) + 1]
    return record.iterate(needles)


def check_packed_varints(buf: Any, pos: int, end: int) -> None:
    """Validate a packed varint run without building its values."""
    while pos < end:
        if buf[pos] < 0x80:
            pos += 1
        else:
            pos = read_varint(buf, pos, end)[1]


def validator_where(exc: DecodeError, cls: type[Message], buf: Any, begin: int, start: int, tag: int) -> None:
    """Add the step a validator was on to ``exc``'s path, as the decoder would name it.

    The decoder numbers elements of repeated length-delimited fields by how many it
    holds; a validator keeps no lists, so it counts the earlier records of the same
    tag in ``buf[begin:start]`` (already validated, and only on this error path).
    """

    def earlier(spec: Any) -> int:
        count = 0
        pos = begin
        while pos < start:
            seen, pos = read_tag(buf, pos, start)
            count += seen == tag
            pos = skip_field(buf, seen, pos, start, TRUSTED)
        return count

    enter_field(exc, cls.__schema__, tag, earlier)
