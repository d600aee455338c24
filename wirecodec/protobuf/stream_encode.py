"""Encoding straight into a file: every length first, then the bytes in one pass.

The generated encoders (wirecodec.protobuf.gen.encode) append a message's chunks to a
list, reserving a slot for each sub-message's length prefix and filling it once the
sub-message's size is known. Holding that list for a whole model costs about as much
as the model's tree again, so this module runs the same encoder twice against two
list-like sinks instead:

1. :func:`plan` counts chunks and keeps only the prefix of each sub-message (its
   index among the chunks and its bytes: a few bytes per sub-message) and the size;
2. :meth:`Plan.write` runs the encoder again and writes every chunk as it comes, the
   remembered prefix in each reserved slot, small chunks batched and big payloads
   through :func:`wirecodec.protobuf.payloads.write_payload` (file-to-file copies,
   mapped pages released as they are written).

So nothing is concatenated, the output never exists in memory, and payload size does
not change how much memory a write takes.

>>> import io
>>> from schema_dsl.onnx import TensorShapeProto
>>> shape = TensorShapeProto(dim=[TensorShapeProto.Dimension(dim_value=3)])
>>> out = io.BytesIO()
>>> plan(shape).write(out)
4
>>> out.getvalue()
b'\\n\\x02\\x08\\x03'
"""

from __future__ import annotations

import struct
from array import array
from typing import IO, Any, Final

from schema_dsl import Message
from wirecodec.errors import EncodeError
from wirecodec.protobuf.compile import encoder
from wirecodec.protobuf.payloads import advance, write_all, write_payload

__all__ = ["Plan", "plan", "write_message"]

BIG: Final = 1 << 16  # chunks at least this big are payloads, written on their own (write_payload)
_BATCH: Final = 1 << 20  # small chunks are gathered up to this many bytes per write
_FAILURES: Final = (TypeError, AttributeError, ValueError, OverflowError, struct.error, RecursionError)


class _Planner(list[Any]):
    """Pass 1: looks like the chunk list, keeps only the length prefixes."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks = 0
        # One entry per sub-message, in the order prefixes arrive (innermost first):
        # the chunk index of its slot, and where its prefix ends in ``prefixes``.
        self.slots = array("Q")
        self.ends = array("Q")
        self.prefixes = bytearray()
        self.order = array("Q")  # after finish(): entries by slot, i.e. in output order

    def __len__(self) -> int:
        return self.chunks

    def append(self, chunk: Any, /) -> None:
        self.chunks += 1

    def __setitem__(self, index: Any, prefix: Any, /) -> None:
        self.slots.append(index)
        self.prefixes += prefix
        self.ends.append(len(self.prefixes))

    def finish(self) -> None:
        try:
            import numpy as np  # here: only a streamed encode with payloads needs it
        except ImportError:  # the same order, sorted by Python (docs/platforms.md)
            order = sorted(range(len(self.slots)), key=self.slots.__getitem__)
            self.order = array("Q", order)
            self.slots = array("Q", [self.slots[i] for i in order])
            return
        slots = np.frombuffer(self.slots, dtype=np.uint64) if self.slots else np.zeros(0, np.uint64)
        self.order = array("Q", np.argsort(slots, kind="stable").astype(np.uint64).tobytes())
        self.slots = (
            array("Q", slots[np.frombuffer(self.order, dtype=np.uint64)].tobytes())
            if self.slots
            else self.slots
        )


class _Emitter(list[Any]):
    """Pass 2: looks like the chunk list, writes each chunk as it is appended."""

    def __init__(self, planned: _Planner, file: IO[bytes]) -> None:
        super().__init__()
        self.file = file
        self.chunks = 0
        self.slots = planned.slots  # sorted: the chunk indices that are prefixes
        self.order = planned.order
        self.ends = planned.ends
        self.prefixes = planned.prefixes
        self.next_slot = 0
        self.pending: list[Any] = []
        self.pending_size = 0

    def __len__(self) -> int:
        return self.chunks

    def append(self, chunk: Any, /) -> None:
        k = self.next_slot
        if k < len(self.slots) and self.slots[k] == self.chunks:
            entry = self.order[k]
            start = self.ends[entry - 1] if entry else 0
            chunk = self.prefixes[start : self.ends[entry]]
            self.next_slot = k + 1
        self.chunks += 1
        size = len(chunk)
        if size >= BIG:
            self.flush()
            write_payload(self.file, chunk)
            return
        self.pending.append(chunk)
        self.pending_size += size
        if self.pending_size >= _BATCH:
            self.flush()

    def __setitem__(self, index: Any, prefix: Any, /) -> None:
        pass  # already written from the plan

    def flush(self) -> None:
        if self.pending:
            data = b"".join(self.pending)
            self.pending, self.pending_size = [], 0
            write_all(self.file, data)
            advance(len(data))


class Plan:
    """A message whose encoding has been measured: :attr:`size` bytes, ready to write."""

    def __init__(self, message: Message, planned: _Planner, size: int) -> None:
        self.message = message
        self.size = size
        self._planned = planned

    def write(self, file: IO[bytes]) -> int:
        """Write the encoding to ``file`` (at its current position); returns :attr:`size`."""
        emitter = _Emitter(self._planned, file)
        try:
            size = encoder(type(self.message))(self.message, emitter)
        except _FAILURES as exc:
            raise _explain(self.message, exc) from exc
        emitter.flush()
        if size != self.size or emitter.next_slot != len(self._planned.slots):
            raise EncodeError(
                f"the message changed while it was being written ({self.size} bytes planned, {size} written)",
                type(self.message).__qualname__,
            )
        return size


def plan(message: Message) -> Plan:
    """Measure ``message``'s encoding (every length) without building it.

    Raises :class:`~wirecodec.EncodeError` naming the field for a value that cannot be
    encoded, before anything is written.
    """
    planned = _Planner()
    try:
        size = encoder(type(message))(message, planned)
    except _FAILURES as exc:
        raise _explain(message, exc) from exc
    planned.finish()
    return Plan(message, planned, size)


def write_message(file: IO[bytes], message: Message) -> int:
    """Encode ``message`` into ``file``; returns the number of bytes written."""
    return plan(message).write(file)


def _explain(message: Message, exc: BaseException) -> EncodeError:
    # The codec's slow path finds the field behind a failure; imported here, as only
    # failures need it (and the codec imports this module).
    from wirecodec.protobuf.codec import encode_chunks

    try:
        encode_chunks(message)
    except EncodeError as explained:
        return explained
    return EncodeError(f"cannot encode: {exc}", type(message).__qualname__)
