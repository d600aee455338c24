"""Lazy elements: small repeated sub-messages, rarely read fields and long packed numeric
runs kept as byte offsets inside their field's container until it is read.

This module is the one place that knows the protocol; everything else goes through the
functions named here.

**Decoding.** A lazy decoder (wirecodec.protobuf.compile, built with :class:`Thresholds`)
meeting an element of a repeated message field decodes it at once if its payload has at
least ``small`` bytes, or if it is among the field's first ``eager_first`` elements.
Any other element is only *validated* (by a generated validator that rejects exactly
what the decoder would, at the same offset, with the same path) and its record offset
kept: four bytes. Accept/reject is unchanged, but ten million empty ``NodeProto``
records cost 40 MB instead of a Python object each: every Python object the decoder
does build stands for at least ``small`` bytes of input, which bounds how far memory
can grow past the input (docs/hostile-input.md). Lazy decoding runs only on read-only
buffers: the bytes must not change before the elements are decoded.

**Other policies, the same records.** A field declared ``rarely_read``
(schema_dsl.fields.repeated: every ``metadata_props``) leaves *every* element waiting,
whatever its size: validated now, decoded if read. A packed run of fixed-width numbers
(``float_data``, ``double_data``, ...) of at least ``run_small`` bytes is only checked
(its length a multiple of the width) and kept as its offset in a :class:`PendingRun`,
read into the list the eager decoder builds on first read. Both wait in their field's
container, as small elements do, and arrive the same way.

**Fetched on first read.** A model opened over HTTP (wirecodec.files.remote.structure) leaves
each large ``raw_data`` as a :class:`PendingBytes`: its length, and a function that
fetches its bytes. The field is present (``HasField`` is true, :func:`pending_size`
gives its length) but its slot is empty, so the first read reaches the message's
fallback (schema_dsl.presence), which loads it (schema_dsl.pending): once, under the
owner's loading lock, stored before the record goes.

**The field's side.** A repeated field whose elements wait is still the field: present,
its container stored in its slot, its length known. The container is of the field's
*waiting* class (schema_dsl.containers.WaitingContainer) and holds the record
(:class:`Pending` for message elements, :class:`PendingRun` for a numeric run) in its
``_waiting`` slot; any use of it beyond ``len()`` *arrives*: the record's ``load()`` fills
the list, and the container becomes an instance of the field's plain class, so later
reads are plain list reads and every reference to it sees the one list. Only a singular
``bytes`` field fetched on first read (:class:`PendingBytes`) waits outside its slot, in
the owner's :class:`DeferredFields` table (``_lazy``), loaded by the message model
(schema_dsl.pending). :func:`waiting_record` and :func:`waiting_fields` say what still
waits, loading nothing.

**Threads.** A message shared by threads may be read by several at once. A container
arrives under one lock, so one thread loads each record once and the others find the
list; :meth:`Pending.load` never changes what a concurrent :meth:`Pending.iterate` walks.
A fetched bytes field is loaded under its owner's lock and stored before its record leaves
the table (schema_dsl.pending); each look at a table is one list operation.

**Reading without keeping.** :func:`peek` iterates a field's elements, decoding waiting
ones one at a time and dropping them, and can skip waiting elements whose bytes
contain none of some needles (load's look for external data).

Elements are decoded on first read with ``depth=TRUSTED``: they were validated already
(nesting limit included), so nested small elements skip validation (``depth >= CHECKED``).
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from schema_dsl import Kind, Message
from schema_dsl.containers import WaitingContainer, waiting_class
from schema_dsl.message import extras, slot_value, stored_fields
from schema_dsl.presence import changed
from wirecodec.protobuf.runtime import unpack_f32_run, unpack_run
from wirecodec.protobuf.wire import read_varint

__all__ = [
    "CHECKED",
    "DEFAULT",
    "EVERY_ELEMENT",
    "TRUSTED",
    "DeferredFields",
    "Pending",
    "PendingBytes",
    "PendingRun",
    "Thresholds",
    "bytes_length",
    "elements",
    "elements_so_far",
    "holds_any_field",
    "peek",
    "pending",
    "pending_bytes",
    "pending_run",
    "pending_size",
]

# Depths at or above CHECKED mean "already validated"; no user max_depth gets there.
CHECKED: Final = 1 << 61
TRUSTED: Final = 1 << 62
# Stands for the next waiting element in Pending.order.
_SLOT: Final = object()
# A waiting record is at most this long: a payload under ``small`` bytes plus a tag
# (up to 5 bytes) and a length (1 byte, since the payload is small).
_MAX_HEADER: Final = 6


@dataclass(frozen=True)
class Thresholds:
    """Which elements of repeated message fields a lazy decoder leaves waiting."""

    small: int  # payloads below this many bytes wait...
    eager_first: int  # ...unless among the first this many elements of their field
    checked: int = CHECKED
    # A packed run of fixed-width numbers (float_data, double_data, ...) of at least
    # this many bytes waits as its offsets (:class:`PendingRun`).
    run_small: int = 128


# An object and its field cost ~100-400 bytes, so waiting elements are where memory
# would otherwise grow 40-80 times the input. Most fields that hold small messages (a
# node's attributes, a shape's dims) are short, and a pending record costs about as
# much as four small objects, so the first four are decoded at once.
# A run waits from 128 bytes (32 floats): below that its list costs less than the
# record and table that would stand for it; above, a graph tool that never reads a
# weight held in a Constant node (PaddlePaddle's exports) never pays for its floats.
DEFAULT: Final = Thresholds(small=32, eager_first=4, run_small=128)
# For tests and fuzzing: every element and every non-empty run waits, so small inputs
# reach the validators and the pending runs.
EVERY_ELEMENT: Final = Thresholds(small=1 << 62, eager_first=0, run_small=1)


class Pending:
    """One repeated message field's elements: some decoded, the small ones as offsets.

    While every decoded element came before the first waiting one, the order is
    ``head`` then ``starts``. A decoded element after a waiting one switches to
    ``order``: the decoded elements and a slot for each waiting one, whose positions
    ``slots`` lists (so loading touches only the waiting ones).
    """

    __slots__ = ("buf", "decode", "head", "mv", "order", "slots", "source", "starts")

    def __init__(self, buf: Any, mv: memoryview, source: Any, decode: Any, head: list[Message]) -> None:
        self.buf = buf
        self.mv = mv
        self.source = source  # the base of the input's Origin, or None (wirecodec.protobuf.origin)
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
        """Append an element decoded at once; returns ``order`` for the decoder to append to."""
        if self.order is None:
            first = len(self.head)
            self.order = self.head + [_SLOT] * len(self.starts)
            self.slots = array("Q", range(first, len(self.order)))
            self.head = []
        self.order.append(element)
        return self.order

    def add_waiting(self, start: int) -> None:
        """Append a waiting element once ``order`` is in use."""
        assert self.order is not None and self.slots is not None
        self.starts.append(start)
        self.slots.append(len(self.order))
        self.order.append(_SLOT)

    def _payload_at(self, start: int) -> tuple[int, int]:
        return _payload(self.buf, start, len(self.mv))

    def _waiting_bytes_hold(self, needles: tuple[bytes, ...]) -> bool:
        """Whether any waiting element's record may contain one of ``needles``.

        Only the waiting records are searched, never the bytes between them (which may
        be megabytes of a decoded element's tensor payload): when they lie close
        together one search covers them all, else each contiguous run is searched.
        """
        starts = self.starts
        if not starts:
            return False
        first, last_end = starts[0], self._payload_at(starts[-1])[1]
        if last_end - first <= len(starts) * (DEFAULT.small + _MAX_HEADER):
            return _holds_any(self.buf, needles, first, last_end)
        run_start = run_end = -1
        for start in starts:
            end = self._payload_at(start)[1]
            if start != run_end:
                if run_end >= 0 and _holds_any(self.buf, needles, run_start, run_end):
                    return True
                run_start = start
            run_end = end
        return _holds_any(self.buf, needles, run_start, run_end)

    def iterate(self, needles: tuple[bytes, ...] = ()) -> Iterator[Message]:
        """Every element in order, decoding waiting ones one at a time and keeping none.

        With ``needles``, a waiting element whose encoded record contains none of them
        is skipped undecoded (first checked for all waiting elements at once).
        """
        starts = iter(self.starts)
        skip_all = bool(needles) and not self._waiting_bytes_hold(needles)
        items: Iterable[Any]
        if self.order is not None:
            items = self.order  # never changed once decoded: load() fills a copy
        else:
            items = itertools.chain(self.head, itertools.repeat(_SLOT, 0 if skip_all else len(self.starts)))
        for item in items:
            if item is not _SLOT:
                yield item
            elif not skip_all:
                begin, end = self._payload_at(next(starts))
                if not needles or _holds_any(self.buf, needles, begin, end):
                    yield self.decode(self.buf, self.mv, begin, end, TRUSTED, self.source)

    def load(self) -> list[Message]:
        """Every element, in wire order (the waiting ones were validated with their owner).

        Called once per record, by the owner's loading thread (schema_dsl.contract). The
        record itself is left as it was, so an :meth:`iterate` in another thread, begun
        before or after, walks the same elements.
        """
        buf, mv, source, decode = self.buf, self.mv, self.source, self.decode
        end = len(mv)
        waiting = [decode(buf, mv, *_payload(buf, at, end), TRUSTED, source) for at in self.starts]
        if self.order is None:
            # Of the head's own class (it may be the field's container), filled through the
            # plain list methods: the container's own would copy each element.
            head = self.head
            loaded: list[Message] = list.__new__(type(head))
            list.extend(loaded, head)
            list.extend(loaded, waiting)
            return loaded
        order = self.order.copy()
        assert self.slots is not None
        for at, element in zip(self.slots, waiting, strict=True):
            order[at] = element
        return order


class PendingRun:
    """One repeated fixed-width numeric field (``float_data``, ``double_data``, ...) whose
    packed runs wait as offsets into the buffer until it is read.

    The runs were validated when met (their length a multiple of the width); an
    unpacked element met after the first waiting run joins it as a value, so the
    order is kept. Reading gives what the eager decoder gives, NaN payloads included
    (wirecodec.protobuf.runtime.unpack_f32_run). Never changed once the decode is over.
    """

    __slots__ = ("buf", "container", "count", "fmt", "pieces")

    def __init__(self, buf: Any, container: type[list[Any]], fmt: str) -> None:
        self.buf = buf
        self.container = container  # the field's container class: the loaded list is one
        self.fmt = fmt  # the struct letter of one value
        self.pieces: list[Any] = []  # (start, count) of a run, or a list of unpacked values
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def add_run(self, start: int, count: int) -> None:
        """Append a validated packed run of ``count`` values at ``buf[start:]``."""
        self.pieces.append((start, count))
        self.count += count

    def add_value(self, value: Any) -> None:
        """Append one value the decoder read from an unpacked record."""
        pieces = self.pieces
        if pieces and type(pieces[-1]) is list:
            pieces[-1].append(value)
        else:
            pieces.append([value])
        self.count += 1

    def load(self) -> list[Any]:
        """The field's values, as the eager decoder reads them."""
        loaded: list[Any] = []
        for piece in self.pieces:
            if type(piece) is list:
                list.extend(loaded, piece)
            elif self.fmt == "f":
                list.extend(loaded, unpack_f32_run(self.buf, *piece))
            else:
                list.extend(loaded, unpack_run(self.fmt, self.buf, *piece))
        return loaded


class PendingBytes:
    """One singular ``bytes`` field (a remote tensor's ``raw_data``) whose value is fetched
    on first read: ``fetch()`` gives its ``nbytes`` bytes (wirecodec.files.remote.structure).

    The field is *present* while it waits (its presence bit is set), so ``HasField``,
    and :func:`pending_size`, answer without fetching anything.
    """

    __slots__ = ("fetch", "fetch_range", "nbytes")

    # A copy of the owner takes this record as it is: it holds no state of its own (the
    # copy fetches for itself, when read), so copying never fetches (schema_dsl.copying).
    carried = True

    def __init__(
        self, nbytes: int, fetch: Callable[[], Any], fetch_range: Callable[[int, int], Any] | None = None
    ) -> None:
        self.nbytes = nbytes
        self.fetch = fetch
        # bytes [lo:hi) of the value alone, where the source can (a writer then copies a
        # big payload piece by piece, never holding it whole)
        self.fetch_range = fetch_range

    def __len__(self) -> int:
        return self.nbytes

    def load(self) -> Any:
        """The field's value: a read-only view of the bytes fetched (the fetcher checks their length)."""
        return memoryview(self.fetch()).toreadonly()


class DeferredFields(list[Any]):
    """A message's pending singular fields: ``[name, record, name, record, ...]``, each
    record a :class:`PendingBytes` (a bytes field fetched on first read). (Repeated fields
    wait inside their containers: see the module docstring.)

    A list because the collector tracks it from creation (see :func:`pending`); its
    layout is private to this module, and the message model uses only ``in``,
    :meth:`take` and :meth:`first_name`.
    """

    __slots__ = ()

    # Readers in other threads may look while the owner's loading thread takes a record
    # (schema_dsl.message): each look is one list operation, atomic with a take.

    def record(self, name: str) -> Pending | PendingRun | PendingBytes | None:
        """The pending record of field ``name``, left in place (None if the field is not pending)."""
        while True:
            try:
                at = self.index(name)
            except ValueError:
                return None
            pair = self[at : at + 2]
            if len(pair) == 2 and pair[0] == name:
                found: Pending | PendingRun | PendingBytes = pair[1]
                return found
            # another field's record was taken between the two looks: look again

    def take(self, name: str) -> Pending | PendingRun | PendingBytes | None:
        """Remove and return the pending record of field ``name`` (None if there is none).

        Only the owner's loading thread (or a writer, who holds the caller's lock) takes.
        """
        found = self.record(name)
        if found is not None:
            at = self.index(name)
            del self[at : at + 2]
        return found

    def first_name(self) -> str | None:
        """The name of some pending field, or None when none is left."""
        return next(iter(self), None)


def _waiting_field(owner: Message, name: str, record: Any, head: Any) -> None:
    """Make ``owner.<name>`` a container whose elements wait on ``record`` (its class the
    field's waiting one, schema_dsl.containers.WaitingContainer): ``head``, the container
    the decoder filled so far, or a new one; present, stored in its slot."""
    spec = owner.__schema__.by_name[name]
    if head is None:
        head = list.__new__(waiting_class(spec))
        head._span = owner._span  # a change reports its owner's span, as any container's
        object.__setattr__(owner, name, head)
    else:
        object.__setattr__(head, "__class__", waiting_class(spec))
    head._waiting = record


def pending(
    owner: Message, name: str, buf: Any, mv: memoryview, source: Any, decode: Any, head: list[Message] | None
) -> Pending:
    """Turn the elements of ``owner.<name>`` waiting from here on; those decoded so far
    become the record's head (the container is the field's, waiting)."""
    record = Pending(buf, mv, source, decode, [])
    if head is not None:
        record.head = list.__getitem__(head, slice(None))
        list.clear(head)
    _waiting_field(owner, name, record, head)
    return record


def pending_run(owner: Message, name: str, buf: Any, container: type[list[Any]], fmt: str) -> PendingRun:
    """Turn ``owner.<name>`` (a repeated fixed-width field not stored yet) waiting from here on."""
    record = PendingRun(buf, container, fmt)
    _waiting_field(owner, name, record, None)
    return record


def carry_pending(owner: Message, name: str, record: Any) -> None:
    """Give a fresh copy ``owner`` the waiting record of the message it copies (see
    ``PendingBytes.carried``): its field ``name`` then waits too, fetched when read."""
    pending_bytes(owner, name, record.nbytes, record.fetch, record.fetch_range)


def pending_bytes(
    owner: Message,
    name: str,
    nbytes: int,
    fetch: Callable[[], Any],
    fetch_range: Callable[[int, int], Any] | None = None,
) -> None:
    """Make singular bytes field ``owner.<name>`` present but pending: ``fetch()`` gives
    its value on first read (under the owner's loading lock, once); ``fetch_range(lo, hi)``,
    where given, bytes ``[lo:hi)`` of it alone.

    Counts as a change of ``owner`` (its source bytes may not hold the value), and is
    made while the message is not yet shared: an opener calls it before returning.
    """
    spec = owner.__schema__.by_name[name]
    if spec.repeated or spec.kind is not Kind.BYTES or not hasattr(type(owner), "__getattr__"):
        raise TypeError(
            f"{spec.full_name} cannot wait: only a singular bytes field of a class with a fallback"
        )
    changed(owner)
    table = owner._lazy
    if not isinstance(table, DeferredFields):
        table = DeferredFields()
        extras(owner).lazy = table
    if name in table:
        table.take(name)
    table += (name, PendingBytes(nbytes, fetch, fetch_range))
    # An empty slot sends reads to the fallback (schema_dsl.presence), which loads it.
    object.__delattr__(owner, name)
    object.__setattr__(owner, "_has", owner._has | owner.__schema__.bit[name])


def pending_size(message: Message, name: str) -> int | None:
    """The length of bytes field ``name`` if it waits to be fetched, else None (nothing fetched)."""
    table = message._lazy
    record = table.record(name) if isinstance(table, DeferredFields) else None
    return record.nbytes if isinstance(record, PendingBytes) else None


def waiting_bytes(message: Message, name: str) -> PendingBytes | None:
    """Bytes field ``name``'s pending record if it waits to be fetched, else None: a writer
    that copies it fetches with ``record.fetch()`` and keeps nothing on the message."""
    table = message._lazy
    record = table.record(name) if isinstance(table, DeferredFields) else None
    return record if isinstance(record, PendingBytes) else None


def bytes_length(message: Message, name: str) -> int:
    """The length of bytes field ``name``: a waiting field's known length (nothing fetched),
    else its value's size in bytes."""
    waiting = pending_size(message, name)
    return waiting if waiting is not None else memoryview(getattr(message, name)).nbytes


def holds_any_field(message: Message) -> bool:
    """Whether ``message`` has any field set (pending ones included), without loading any."""
    if message._lazy:
        return True
    return any(not spec.repeated or len(value) for spec, value in stored_fields(message))


def elements_so_far(message: Message, name: str) -> int:
    """How many elements field ``name`` holds, pending ones included (for error paths)."""
    table = message._lazy
    record = table.record(name) if isinstance(table, DeferredFields) else None
    if record is not None:
        return len(record)
    return len(slot_value(message, name, ()))


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
    ``needles``, those whose encoded record contains none of them are not decoded
    (nor seen) at all.
    """
    value = slot_value(message, name)
    record = getattr(value, "_waiting", None) if isinstance(value, WaitingContainer) else None
    if not isinstance(record, Pending):
        return elements(message, name)
    return record.iterate(needles)  # (never changed by a load: safe if another thread arrives)


def elements(message: Message, name: str) -> Sequence[Message]:
    """The elements of repeated message field ``name`` (a waiting field arrives when they are
    read); an unset field gives an empty tuple and, unlike reading it, stores no empty container."""
    # (Slots read directly: this is every walk's look at every repeated field.)
    if message._has & message.__schema__.bit[name]:
        stored: Sequence[Message] = getattr(message, name)
        return stored
    return ()


def waiting_record(message: Message, name: str) -> Pending | PendingRun | PendingBytes | None:
    """What field ``name`` of ``message`` still waits on (its elements' offsets, a packed
    run's place, a fetch), or None when nothing of it waits (loaded, or never waiting)."""
    table = message._lazy
    if isinstance(table, DeferredFields):
        found = table.record(name)
        if found is not None:
            return found
    value = slot_value(message, name)
    if not isinstance(value, WaitingContainer):
        return None
    record: Pending | PendingRun | None = getattr(value, "_waiting", None)
    return record


def waiting_fields(message: Message) -> list[str]:
    """The names of ``message``'s fields that still wait (see :func:`waiting_record`), in
    field-number order; nothing is loaded."""
    return [spec.name for spec in message.__schema__.fields if waiting_record(message, spec.name) is not None]
