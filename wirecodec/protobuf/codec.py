"""The public codec: bytes ↔ messages.

>>> from schema_dsl.onnx import TensorShapeProto
>>> from wirecodec import decode, encode
>>> shape = TensorShapeProto(dim=[TensorShapeProto.Dimension(dim_value=3)])
>>> encode(shape)
b'\\n\\x02\\x08\\x03'
>>> decode(TensorShapeProto, b'\\n\\x02\\x08\\x03').dim[0].dim_value
3
"""

from __future__ import annotations

import mmap
import struct
from collections.abc import Iterable
from typing import IO, Any, Final, TypeVar

from schema_dsl import Kind, Message
from schema_dsl.assign import INT_RANGES
from schema_dsl.contract import install_receiver
from schema_dsl.message import extras, install_codec, stored_fields
from wirecodec.errors import DecodeError, EncodeError, LimitError
from wirecodec.protobuf import lazy, stream_encode
from wirecodec.protobuf import representation as representation_module
from wirecodec.protobuf import runtime as rt
from wirecodec.protobuf.compile import Flavor, decoder, encoder
from wirecodec.protobuf.lazy import CHECKED
from wirecodec.protobuf.origin import SPAN_SHIFT, origin_for, source_of, touch
from wirecodec.protobuf.representation import Representation

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "as_buffer",
    "decode",
    "decode_split",
    "encode",
    "encode_chunks",
    "encode_into",
    "write_chunks",
]

DEFAULT_MAX_DEPTH: Final = 100  # protobuf's default recursion limit

M = TypeVar("M", bound=Message)


def as_buffer(data: Any) -> tuple[Any, memoryview, Flavor]:
    """Normalise any bytes-like input to (indexable buffer, byte memoryview, flavour)."""
    if isinstance(data, (bytes, bytearray, mmap.mmap)):
        return data, memoryview(data), "decode"
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(
            f"decode needs a bytes-like object (bytes, bytearray, memoryview, mmap), "
            f"got {type(data).__name__}"
        ) from None
    if not view.c_contiguous:
        raise TypeError("decode needs a C-contiguous buffer")
    if view.ndim != 1 or view.itemsize != 1:
        view = view.cast("B")
    whole = view.obj
    if isinstance(whole, bytes) and view.nbytes == len(whole):
        return whole, view, "decode"
    return view, view, "str"


def decode(
    cls: type[M],
    data: Any,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    lazy: bool = True,
    records: bool = True,
    representation: Representation | None = None,
) -> M:
    """Decode ``data`` (any bytes-like object) as a ``cls`` message.

    Fields declared as views (``view=True``) are memoryviews into ``data``, which stays
    alive as long as any of them; other ``bytes`` fields are ``bytes``. Raises
    :class:`~wirecodec.DecodeError` (with byte offset and field path) for anything protobuf would reject, and
    :class:`~wirecodec.LimitError` when nesting exceeds ``max_depth`` sub-messages.

    With ``lazy=True`` (the default) and a read-only buffer (``bytes``, a read-only
    ``mmap``), the whole input is still checked now, but small elements of repeated
    sub-message fields (under 32 bytes, past the first four of a field) become Python
    objects only when their field is first read. A writable buffer (``bytearray``) is
    always decoded eagerly, since its bytes could change before they were read.

    With ``records=True`` (the default) and a lazy decode, a graph with a field of more than
    1,024 elements keeps them as records the collector does not visit, read through one
    live view each (docs/performance.md, *Records and views*); ``records=False`` builds every
    element as a message. What a program reads and writes is the same either way.

    ``representation`` (wirecodec.protobuf.representation) asks for what the size
    thresholds would not choose on this input, for tests and fuzzing.
    """
    # No locals: a traceback through this frame must not keep the buffer exported.
    return decode_split(
        cls, *as_buffer(data), max_depth=max_depth, lazy=lazy, records=records, representation=representation
    )


def decode_split(
    cls: type[M],
    buf: Any,
    view: memoryview,
    flavor: Flavor,
    *,
    max_depth: int,
    lazy: bool = False,
    records: bool = True,
    representation: Representation | None = None,
) -> M:
    """Decode reading headers and strings from ``buf`` and slicing ``bytes`` fields from ``view``.

    The two hold the same bytes at the same offsets (``buf`` may lack the contents of
    ``bytes`` fields, which are never read from it). ``lazy`` applies only when ``view``
    is read-only; the caller promises ``buf`` does not change either. Internal: see
    wirecodec.protobuf.sparse.
    """
    if not 0 <= max_depth < CHECKED:
        raise ValueError(f"max_depth must be >= 0 and < 2**61, got {max_depth}")
    how = representation_module.DEFAULT if representation is None else representation
    fn = decoder(cls, flavor, lazy=lazy and view.readonly, keep_records=records, representation=how)
    origin = origin_for(buf, view)
    failure: DecodeError
    try:
        root = fn(buf, view, 0, len(view), max_depth, None if origin is None else origin.base)
        if origin is not None:
            extras(root).origin = origin  # the spans' bytes live as long as the root
        return root  # type: ignore[return-value]
    except DecodeError as exc:
        exc._set_root(cls.__qualname__)
        failure = exc
    except RecursionError:
        # Only reachable with max_depth above what the interpreter's stack allows.
        failure = LimitError(
            f"nesting exceeds the interpreter's recursion limit (max_depth={max_depth})", 0, cls.__qualname__
        )
    # The decoder's frames hold views of the caller's buffer; a traceback through them
    # would keep the buffer exported (an mmap could not be closed), so drop both.
    del buf, view, origin
    raise failure.with_traceback(None)


def encode_chunks(message: Message, *, reuse_source: bool = True) -> tuple[list[Any], int]:
    """Encode into a list of bytes-like chunks and their total size, copying nothing big."""
    out: list[Any] = []
    try:
        size = encoder(type(message), reuse_source=reuse_source)(message, out)
    except (TypeError, AttributeError, ValueError, OverflowError, struct.error, RecursionError) as exc:
        raise _explain(message, exc) from exc
    return out, size


def encode(message: Message, *, reuse_source: bool = True) -> bytes:
    """Serialize ``message`` exactly as protobuf would (known fields by number, unknown after).

    A decoded message re-emits its source bytes where they are still its encoding;
    ``reuse_source=False`` walks every field instead (the same bytes: for tests of the
    encoder)."""
    chunks, _ = encode_chunks(message, reuse_source=reuse_source)
    return b"".join(chunks)


def encode_into(message: Message, file: IO[bytes]) -> int:
    """Write ``message`` to a binary file object; returns the number of bytes written.

    The whole encoding is planned (every length known) before the first byte is
    written, then written as it is produced, never held whole in memory; tensor
    payloads go straight from their buffers (see wirecodec.protobuf.stream_encode).
    """
    return stream_encode.write_message(file, message)


def write_chunks(file: IO[bytes], chunks: Iterable[Any]) -> None:
    """Write encoded chunks, big ones straight from their buffers, small ones batched."""
    # Coalesce small chunks so a model with many fields is not a million write calls.
    pending: list[Any] = []
    pending_size = 0
    for chunk in chunks:
        if len(chunk) >= 1 << 16:
            if pending:
                file.write(b"".join(pending))
                pending, pending_size = [], 0
            file.write(chunk)
        else:
            pending.append(chunk)
            pending_size += len(chunk)
            if pending_size >= 1 << 20:
                file.write(b"".join(pending))
                pending, pending_size = [], 0
    if pending:
        file.write(b"".join(pending))


# -- finding the field behind an encoding failure (slow path, only after an error) ------


def _explain(message: Message, exc: BaseException) -> EncodeError:
    found = _find_bad_value(message, type(message).__qualname__, set())
    if found is not None:
        return found
    if isinstance(exc, RecursionError):
        return EncodeError("message nests too deeply to encode", type(message).__qualname__)
    return EncodeError(f"cannot encode: {exc}", type(message).__qualname__)


def _describe_type(value: object) -> str:
    """A value's type, with its module when that is not ours, and what to do with a protobuf message."""
    cls = type(value)
    if isinstance(value, Message) or cls.__module__ == "builtins":
        return cls.__qualname__
    name = f"{cls.__module__}.{cls.__qualname__}"
    if hasattr(value, "SerializeToString"):
        # A message of the protobuf runtime (e.g. onnx.ModelProto): bytes are the bridge.
        return (
            f"{name} (a protobuf message, not a wirecodec one: convert it with "
            f"wirecodec.decode(<the schema_dsl.onnx class>, message.SerializeToString()))"
        )
    return name


def _value_problem(kind: Kind, value: Any, expected: type | None) -> str | None:
    if kind is Kind.MESSAGE:
        if not isinstance(value, Message) or value.__schema__.cls is not expected:
            assert expected is not None
            return f"expected {expected.__module__}.{expected.__qualname__}, got {_describe_type(value)}"
        return None
    if kind is Kind.STRING:
        if not isinstance(value, str):
            return f"expected str, got {type(value).__name__}"
        try:
            value.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError as exc:
            return f"string is not encodable as UTF-8: {exc.reason} at index {exc.start}"
        return None
    if kind is Kind.BYTES:
        try:
            rt.bytes_view(value)
        except (TypeError, ValueError) as exc:
            return str(exc)
        return None
    if kind in (Kind.FLOAT, Kind.DOUBLE):
        if not isinstance(value, (int, float)):
            return f"expected float, got {type(value).__name__}"
        return None
    if kind is Kind.BOOL:
        return None
    if not isinstance(value, int):
        return f"expected int, got {type(value).__name__}"
    low, high = INT_RANGES[kind]
    if not low <= value <= high:
        return f"{value} is outside the range of {kind.value}"
    return None


def _find_bad_value(message: Any, path: str, active: set[int]) -> EncodeError | None:
    if not isinstance(message, Message):
        return EncodeError(f"expected a wirecodec message, got {_describe_type(message)}", path)
    if id(message) in active:
        return EncodeError("message contains itself (a cycle)", path)
    active.add(id(message))
    message._load_lazy()
    try:
        for spec, value in stored_fields(message):
            where = f"{path}.{spec.name}"
            expected = spec.message_type if spec.kind is Kind.MESSAGE else None
            items: list[tuple[str, Any]]
            if spec.repeated:
                if not isinstance(value, (list, tuple)):
                    return EncodeError(f"a repeated field needs a list, got {type(value).__name__}", where)
                items = [(f"{where}[{i}]", v) for i, v in enumerate(value)]
            else:
                items = [(where, value)]
            for item_path, item in items:
                problem = _value_problem(spec.kind, item, expected)
                if problem is not None:
                    return EncodeError(problem, item_path)
                if spec.kind is Kind.MESSAGE:
                    inner = _find_bad_value(item, item_path, active)
                    if inner is not None:
                        return inner
        unknown = message._unknown
        for i, record in enumerate(unknown):
            try:
                rt.bytes_view(record)
            except TypeError:
                return EncodeError("unknown-field records must be bytes-like", f"{path}._unknown[{i}]")
    finally:
        active.discard(id(message))
    return None


class _InstalledCodec:
    """What schema_dsl's protobuf-style methods (SerializeToString, ...) call."""

    def encode(self, message: Message) -> bytes:
        return encode(message)

    def byte_size(self, message: Message) -> int:
        return encode_chunks(message)[1]

    def decode(self, cls: type[Message], data: Any) -> Message:
        return decode(cls, data)

    def carry_pending(self, copy: Message, name: str, record: Any) -> None:
        lazy.carry_pending(copy, name, record)

    def equal_sources(self, a: Message, b: Message) -> bool | None:
        return equal_sources(a, b)

    def copy_of(self, message: Message) -> Message | None:
        return copy_from_source(message)

    def source_bytes(self, span: int) -> bytes | None:
        found = source_of(span)
        if found is None:
            return None
        origin, start, end = found
        return bytes(origin.view[start:end])


# Sources compared in pieces of this many bytes: a difference stops the comparison early,
# and no piece costs much memory (a memoryview compares byte by byte, several times slower).
_PIECE: Final = 1 << 20


def equal_sources(a: Message, b: Message) -> bool | None:
    """Whether two messages' own source bytes are equal, when both still are their encoding
    (decoded from canonical bytes and unchanged since: then they are equal exactly when
    those bytes are); None when either has none."""
    span_a, span_b = a._span, b._span
    found_a = None if span_a is None else source_of(span_a)
    found_b = None if found_a is None or span_b is None else source_of(span_b)
    if found_a is None or found_b is None:
        return None
    origin_a, start_a, end_a = found_a
    origin_b, start_b, end_b = found_b
    size = end_a - start_a
    if size != end_b - start_b:
        return False
    view_a, view_b = origin_a.view, origin_b.view
    if start_a == start_b and (
        origin_a is origin_b
        or (view_a.obj is view_b.obj and view_a.nbytes == view_b.nbytes == len(memoryview(view_a.obj)))
    ):
        return True  # the same bytes of one input (one message twice, or two decodes of it)
    if size <= _PIECE:
        return bytes(view_a[start_a:end_a]) == bytes(view_b[start_b:end_b])
    for at in range(0, size, _PIECE):
        piece = min(_PIECE, size - at)
        if bytes(view_a[start_a + at : start_a + at + piece]) != bytes(
            view_b[start_b + at : start_b + at + piece]
        ):
            return False
    return True


# Below this many payload bytes, the class's generated copier (schema_dsl.copying) copies
# a decoded message faster than decoding its bytes again: a node of 70 to 2,500 bytes
# copies in 0.75-0.85x the time (a one-off A/B of CopyFrom, /tmp/cp4.py). A long message
# decoded again leaves its small elements waiting, where a copier would build and copy a
# view of each.
_COPY_FROM_SOURCE_AT: Final = 4096
_OFFSETS: Final = (1 << SPAN_SHIFT) - 1


def copy_from_source(message: Message) -> Message | None:
    """An independent copy of a decoded message of at least ``_COPY_FROM_SOURCE_AT``
    payload bytes still equal to its source bytes, decoded again from them (no span: a
    copy's changes concern nobody); None for any other message."""
    span = message._span
    # (its size told by the span itself: small messages never look their origin up)
    if span is None or (span & _OFFSETS) - (span >> SPAN_SHIFT & _OFFSETS) < _COPY_FROM_SOURCE_AT:
        return None
    found = source_of(span)
    if found is None:
        return None
    origin, start, end = found
    view = origin.view
    whole = view.obj
    buf: Any = view  # (decoded from a part of a buffer: offsets are the view's)
    flavor: Flavor = "str"
    if isinstance(whole, (bytes, mmap.mmap)) and view.nbytes == len(whole):
        buf, flavor = whole, "decode"
    cls = message.__schema__.cls
    fn = decoder(cls, flavor, lazy=True, keep_records=False)
    # Bytes decoded before, nesting checked: the limit cannot be reached again.
    copy: Message = fn(buf, view, start, end, DEFAULT_MAX_DEPTH, None)
    return copy


install_codec(_InstalledCodec())
install_receiver(touch)
