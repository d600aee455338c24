"""Decoding a mapped file without touching the pages of its large payloads.

Decoding reads each field's header; on a weight-heavy model those headers sit right
before megabytes of tensor data, and with a warm page cache the kernel maps a whole
large folio around every header it faults on, so the process's RSS grows by hundreds
of megabytes it never reads. Instead, a structure walk finds the large ``bytes``
payloads by reading headers with ``pread``; everything else is copied into a sparse
anonymous map at the same offsets, the decoder reads that, and ``bytes`` fields are
still sliced from the file's map, so they stay zero-copy views.

The walk follows the fields the decoder descends into (a known message field with wire
type LEN) where they are long enough to hold a large payload — a smaller message is
copied whole, so structure-heavy graphs cost one hop per record — and marks only known
``bytes`` fields with wire type LEN, so the decoder never reads inside a region the walk
left out. On anything unusual (groups, errors, too many records) it gives up and the
caller decodes the map directly.
"""

from __future__ import annotations

import mmap
from collections.abc import Callable, Iterator
from typing import Final, cast

from schema_dsl import FieldSpec, Kind, Message
from wirecodec.errors import DecodeError
from wirecodec.protobuf import positional
from wirecodec.protobuf.wire import Buffer, read_varint

MIN_PAYLOAD: Final = 1 << 16
_WINDOW: Final = 1 << 14  # headers are small: a few pages at a time keep cold reads cheap
# Past this many records the walk costs about what copying the structure would save.
_MAX_FIELDS: Final = 2_000_000


class _UnsureError(Exception):
    pass


PositionalRead = Callable[[int, int], bytes]
"""``read(offset, n)``: up to ``n`` bytes at ``offset`` (fewer only at the end): ``os.pread``
on a file, ranged requests on a remote one (wirecodec.files.remote.structure)."""

# Which bytes fields may be left out: (the message class, the field) -> whether.
Keep = Callable[[type[Message], FieldSpec], bool]


def _any_field(message: type[Message], spec: FieldSpec) -> bool:
    return True


class _Reader:
    """Bytes read through a positional reader, one cached window at a time, indexable like a buffer."""

    def __init__(self, read: PositionalRead) -> None:
        self.read = read
        self.start = 0
        self.data = b""

    def __getitem__(self, pos: int) -> int:
        offset = pos - self.start
        if not 0 <= offset < len(self.data):
            self.start = pos
            self.data = self.read(pos, _WINDOW)
            offset = 0
            if not self.data:
                raise _UnsureError
        return self.data[offset]

    def varint(self, pos: int, end: int) -> tuple[int, int]:
        try:
            offset = pos - self.start
            if offset >= 0 and offset + 10 <= len(self.data) and pos + 10 <= end:
                # The whole varint is in the window: read it from the bytes directly.
                value, after = read_varint(self.data, offset, offset + 10)
                return value, after + self.start
            return read_varint(cast(Buffer, self), pos, end)
        except DecodeError:
            raise _UnsureError from None


def payload_ranges(
    fd: int, size: int, cls: type[Message], *, at_least: int = 0
) -> list[tuple[int, int]] | None:
    """Offsets of the large ``bytes`` payloads of a ``cls`` file, or None if unsure.

    Also None, as soon as it is known, when they cannot add up to ``at_least`` bytes:
    a structure-heavy file is then not walked to its end for nothing. Every byte is
    counted either as ruled out or inside a payload, so ranges returned add up to at
    least ``at_least``.
    """
    # The walk hops from header to header: readahead would fetch the payloads in between.
    positional.advise_random(fd)
    try:
        return walk_payloads(lambda pos, n: positional.pread(fd, n, pos), size, cls, at_least=at_least)
    except OSError:
        return None  # a read failed: decode the map directly, which reports what is wrong
    finally:
        positional.advise_normal(fd)


def walk_payloads(
    read: PositionalRead, size: int, cls: type[Message], *, at_least: int = 0, keep: Keep = _any_field
) -> list[tuple[int, int]] | None:
    """:func:`payload_ranges` over any positional reader; only payloads of fields ``keep``
    accepts are left out (the others count as structure). An exception ``read`` raises
    goes to the caller."""
    reader = _Reader(read)
    # Bytes known to hold no large payload; past size - at_least the answer is no.
    ruled_out, limit = 0, size - at_least
    ranges: list[tuple[int, int]] = []
    todo: list[tuple[type[Message], int, int]] = [(cls, 0, size)]
    fields = 0
    try:
        while todo:
            message, pos, end = todo.pop()
            by_number = message.__schema__.by_number
            while pos < end:
                fields += 1
                if fields > _MAX_FIELDS:
                    raise _UnsureError  # structure-heavy: copying it all is no saving
                start = pos
                held = 0  # bytes of this record left to a payload or to a later walk
                tag, pos = reader.varint(pos, end)
                wire = tag & 7
                if wire == 0:
                    pos = reader.varint(pos, end)[1]
                elif wire == 1:
                    pos += 8
                elif wire == 5:
                    pos += 4
                elif wire == 2:
                    length, pos = reader.varint(pos, end)
                    stop = pos + length
                    if stop > end:
                        raise _UnsureError
                    spec = by_number.get(tag >> 3)
                    if spec is not None and spec.kind is Kind.MESSAGE and length >= MIN_PAYLOAD:
                        # A smaller message cannot hold a large payload: it is copied whole.
                        todo.append((spec.message_type, pos, stop))
                        held = length
                    elif (
                        spec is not None
                        and spec.kind is Kind.BYTES
                        and length >= MIN_PAYLOAD
                        and keep(message, spec)
                    ):
                        ranges.append((pos, stop))
                        held = length
                    pos = stop
                else:
                    raise _UnsureError
                if pos > end:
                    raise _UnsureError
                ruled_out += pos - start - held
                if ruled_out > limit:
                    raise _UnsureError  # too little left to hold what was asked
    except _UnsureError:
        return None
    return sorted(ranges)


def gaps(size: int, payloads: list[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The ranges of ``size`` bytes that the sorted, disjoint ``payloads`` leave: what a
    shadow copy holds (here, and for a remote model in wirecodec.files.remote.structure)."""
    position = 0
    for start, end in [*payloads, (size, size)]:
        if position < start:
            yield position, start
        position = max(position, end)


def shadow_copy(fd: int, size: int, payloads: list[tuple[int, int]]) -> mmap.mmap:
    """An anonymous map of ``size`` bytes holding the file except the payloads (left zero)."""
    shadow = mmap.mmap(-1, size)
    view = memoryview(shadow)
    try:
        for position, start in gaps(size, payloads):
            while position < start:
                got = positional.preadinto(fd, view[position:start], position)
                if got <= 0:
                    raise OSError("the file shrank while it was being read")
                position += got
    finally:
        view.release()
    return shadow
