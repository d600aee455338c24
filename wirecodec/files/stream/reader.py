"""``stream``: the top-level pieces of a ModelProto, one at a time, in bounded memory.

A model is read front to back; only the record in hand is in memory. Each record of
ModelProto and of its main graph is cut out of the input and given to the ordinary
decoder (:func:`wirecodec.decode`) as a message of its own, so every piece is checked
exactly as a whole-model decode checks it; initializers are decoded without their
``raw_data`` bytes, which are located (or, from a pipe, read once) instead.

The error contract is :func:`wirecodec.decode`'s: a :class:`~wirecodec.DecodeError` (or
:class:`~wirecodec.LimitError`) with the absolute byte offset and field path decoding the
whole model would report, raised when iteration reaches the bad record (the events
before it have been delivered by then). From a non-seekable stream, an error inside the
graph first reads to the end of the input, since a graph longer than the input is the
error decoding would report.

>>> import wirecodec
>>> from schema_dsl.onnx import ModelProto
>>> from wirecodec.examples.build_mlp import build
>>> data = wirecodec.encode(build())
>>> with wirecodec.stream(data) as events:
...     kinds = [type(event).__name__ for event in events]
>>> kinds[:5]
['ModelField', 'ModelField', 'ModelField', 'GraphStart', 'Node']
>>> wirecodec.files.stream.reader.assemble(wirecodec.stream(data)) == wirecodec.decode(ModelProto, data)
True
"""

from __future__ import annotations

import io
import os
import stat
import sys
import weakref
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import IO, Any, Final, Literal

from schema_dsl import Message
from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec.errors import DecodeError, LimitError
from wirecodec.files.base.source import Source, classify, is_regular_file, open_source_file
from wirecodec.files.stream.events import (
    Event,
    Function,
    GraphField,
    GraphStart,
    Initializer,
    LazyTensor,
    ModelField,
    Node,
    OpsetImport,
    SparseInitializer,
    UnknownField,
    ValueInfo,
)
from wirecodec.files.stream.input import BufferInput, FileInput, Input, RangeInput, StreamInput
from wirecodec.files.stream.records import (
    InputEndedError,
    copy_record,
    decode_piece,
    index_fix,
    padded,
    rebase,
    varint_window,
)
from wirecodec.files.stream.tensor import read_initializer
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode
from wirecodec.protobuf.lazy import CHECKED
from wirecodec.protobuf.wire import read_tag, read_varint

__all__ = ["ModelStream", "assemble", "stream"]


_GRAPH_TAG: Final = (7 << 3) | 2
# The graph fields whose elements get events of their own: tag -> (field, element class).
_ELEMENTS: Final[dict[int, tuple[str, type[Message]]]] = {
    spec.tag: (spec.name, spec.message_type)
    for spec in GraphProto.__schema__.fields
    if spec.name in ("node", "initializer", "sparse_initializer", "input", "output", "value_info")
}


# -- the walk -------------------------------------------------------------------------


class _Walker:
    """Walks one model: ModelProto records, descending into graph records."""

    def __init__(self, inp: Input, max_depth: int, skip_payloads: bool, keep_small: int = 0) -> None:
        self.inp = inp
        self.max_depth = max_depth
        self.skip_payloads = skip_payloads
        self.keep_small = keep_small
        self.zero_copy = isinstance(inp, BufferInput)
        self.model_counts: dict[str, int] = {}
        self.graph_counts: dict[str, int] = {}  # over every graph record (event indices)

    # reading records

    def _record(self, start: int, end: int | None, depth: int) -> tuple[Any, bool]:
        """The record at ``start``: its bytes (a view when zero-copy) and whether it is whole."""
        if self.zero_copy:
            ok = copy_record(self.inp, end, depth, None)
            return self.inp.read_at(start, self.inp.pos - start), ok
        out = bytearray()
        ok = copy_record(self.inp, end, depth, out)
        return bytes(out), ok

    def _level_error(
        self,
        cls: type[Message],
        depth: int,
        start: int,
        end: int,
        examined: Any,
        prefix: str,
        fix: tuple[str, str] | None,
    ) -> DecodeError:
        """Decode a malformed record with the level's true end after it: that finds the
        error, worded and placed as in a whole-model decode."""
        try:
            # Zero-copy inputs have the real bytes, all of them; others pad what was seen.
            data = self.inp.read_at(start, end - start) if self.zero_copy else padded(examined, end - start)
        except (MemoryError, OSError, ValueError):
            # Too big to lay out even lazily (a strict overcommit policy): say where, at least.
            return DecodeError("malformed record", start, prefix)
        try:
            decode(cls, data, max_depth=depth)
        except DecodeError as exc:
            return rebase(exc, cls, start, prefix, fix)
        # Unreachable if this walk and the decoder agree; say what the walk saw.
        return DecodeError("malformed record", start, prefix)

    def _model_error(self, start: int, examined: Any, tag: int | None) -> DecodeError:
        end = self.inp.size if self.inp.size is not None else self.inp.drain()
        fix = index_fix(ModelProto, tag, self._model_count(tag))
        return self._level_error(ModelProto, self.max_depth, start, end, examined, "ModelProto", fix)

    def _model_count(self, tag: int | None) -> int:
        spec = ModelProto.__schema__.by_number.get(tag >> 3) if tag is not None else None
        return self.model_counts.get(spec.name, 0) if spec is not None else 0

    # the model

    def events(self) -> Iterator[Event]:
        inp = self.inp
        while not (inp.pos >= inp.size if inp.size is not None else inp.at_end()):
            start = inp.pos
            look = varint_window(inp, inp.size)
            try:
                tag, n = read_tag(look, 0, len(look))
            except DecodeError:
                raise self._model_error(start, look, None) from None
            if tag == _GRAPH_TAG:
                yield from self._graph(start, look[:n])
                continue
            record, ok = self._record(start, inp.size, self.max_depth)
            if not ok:
                raise self._model_error(start, record, tag)
            fix = index_fix(ModelProto, tag, self._model_count(tag))
            message = decode_piece(ModelProto, record, self.max_depth, start, "ModelProto", fix)
            yield self._model_event(message, start, len(record), tag, record)

    def _model_event(self, message: ModelProto, start: int, length: int, tag: int, record: Any) -> Event:
        one = _one_field(message, self.model_counts, "ModelProto")
        if one is None:
            path = f"ModelProto.#{tag >> 3}"
            return UnknownField(start, length, path, "ModelProto", tag >> 3, tag & 7, bytes(record), message)
        name, value, index, path = one
        if name == "opset_import":
            return OpsetImport(start, length, path, index, value)
        if name == "functions":
            return Function(start, length, path, index, value)
        return ModelField(start, length, path, name, value, None if index < 0 else index, message)

    # the graph

    def _graph(self, start: int, tag_bytes: bytes) -> Iterator[Event]:
        inp = self.inp
        inp.skip(len(tag_bytes))
        header = bytearray(tag_bytes)
        look = varint_window(inp, inp.size)
        try:
            length, n = read_varint(look, 0, len(look))
        except DecodeError:
            raise self._model_error(start, header + look, _GRAPH_TAG) from None
        header += look[:n]
        inp.skip(n)
        begin = inp.pos
        end = begin + length
        if inp.size is not None and end > inp.size:
            raise self._model_error(start, header, _GRAPH_TAG)
        try:
            if self.max_depth < 1:
                raise LimitError("nesting deeper than max_depth", begin, "ModelProto.graph")
            yield GraphStart(start, end - start, "ModelProto.graph")
            yield from self._graph_records(end)
        except (DecodeError, InputEndedError) as exc:
            # Decoding checks the graph's length before anything inside it: a graph that
            # runs past the end of the input is the error, wherever the walk stopped.
            size = inp.size if inp.size is not None and inp.seekable else inp.drain()
            if end > size:
                raise self._model_error(start, header, _GRAPH_TAG) from None
            # The graph fits in the input, so no record inside it can end early.
            if isinstance(exc, InputEndedError):  # pragma: no cover
                raise DecodeError("input ended inside the graph", inp.pos, "ModelProto.graph") from None
            raise

    def _graph_records(self, end: int) -> Iterator[Event]:
        inp = self.inp
        depth = self.max_depth - 1
        local: dict[str, int] = {}  # elements per field in this graph record (error paths)

        def fail(start: int, examined: Any, tag: int | None) -> DecodeError:
            spec = GraphProto.__schema__.by_number.get(tag >> 3) if tag is not None else None
            fix = index_fix(GraphProto, tag, local.get(spec.name, 0) if spec else 0)
            return self._level_error(GraphProto, depth, start, end, examined, "ModelProto.graph", fix)

        while inp.pos < end:
            start = inp.pos
            look = varint_window(inp, end)
            if not look:
                raise InputEndedError
            try:
                tag, n = read_tag(look, 0, len(look))
            except DecodeError:
                raise fail(start, look, None) from None
            if tag in _ELEMENTS:
                yield self._element(start, tag, look[:n], end, local, fail)
                continue
            record, ok = self._record(start, end, depth)
            if not ok:
                raise fail(start, record, tag)
            spec = GraphProto.__schema__.by_number.get(tag >> 3)
            name = spec.name if spec is not None else ""
            fix = index_fix(GraphProto, tag, local.get(name, 0))
            message = decode_piece(GraphProto, record, depth, start, "ModelProto.graph", fix)
            if fix is not None:
                local[name] = local.get(name, 0) + 1
            yield self._graph_event(message, start, len(record), tag, record)

    def _graph_event(self, message: GraphProto, start: int, length: int, tag: int, record: Any) -> Event:
        """The event for a graph record other than the elements :meth:`_element` reads."""
        one = _one_field(message, self.graph_counts, "ModelProto.graph")
        if one is None:
            path = f"ModelProto.graph.#{tag >> 3}"
            return UnknownField(start, length, path, "GraphProto", tag >> 3, tag & 7, bytes(record), message)
        name, value, index, path = one
        return GraphField(start, length, path, name, value, None if index < 0 else index, message)

    # nodes, values, initializers: decoded as themselves

    def _element(
        self,
        start: int,
        tag: int,
        tag_bytes: bytes,
        end: int,
        local: dict[str, int],
        fail: Callable[[int, Any, int | None], DecodeError],
    ) -> Event:
        """One element of a repeated message field of the graph, decoded alone (what the
        graph's decoder would do with it), its errors named as the whole model names them."""
        inp = self.inp
        inp.skip(len(tag_bytes))
        look = varint_window(inp, end)
        try:
            length, n = read_varint(look, 0, len(look))
        except DecodeError:
            raise fail(start, tag_bytes + look, tag) from None
        if length > end - inp.pos - n:
            raise fail(start, tag_bytes + look[:n], tag)
        inp.skip(n)
        begin = inp.pos
        name, cls = _ELEMENTS[tag]
        local_index = local.get(name, 0)
        prefix = f"ModelProto.graph.{name}[{local_index}]"
        depth = self.max_depth - 2
        if depth < 0:
            raise LimitError("nesting deeper than max_depth", begin, prefix)
        if cls is TensorProto:
            skip, keep = self.skip_payloads, self.keep_small
            tensor = read_initializer(inp, begin, length, depth, prefix, skip_payloads=skip, keep_small=keep)
        else:
            payload = inp.take(length)
            if len(payload) < length:
                raise InputEndedError
            element = decode_piece(cls, payload, depth, begin, prefix)
        local[name] = local_index + 1
        index = self.graph_counts.get(name, 0)
        self.graph_counts[name] = index + 1
        path = f"ModelProto.graph.{name}[{index}]"
        size = inp.pos - start
        if cls is TensorProto:
            return Initializer(start, size, path, index, tensor)
        if name == "node":
            return Node(start, size, path, index, element)
        if name == "sparse_initializer":
            return SparseInitializer(start, size, path, index, element)
        role: Literal["input", "output", "value_info"] = name  # type: ignore[assignment]
        return ValueInfo(start, size, path, role, index, element)


# -- the public iterator ---------------------------------------------------------------


class ModelStream:
    """An iterator of :mod:`events <wirecodec.files.stream.events>`; a context manager.

    ``close()`` (or leaving the ``with`` block) stops the walk and releases the input:
    the file it opened is closed and a lazy tensor's :meth:`~LazyTensor.read` raises
    afterwards. ``position`` is how many bytes have been read so far and ``size`` the
    model's size when known (for progress).
    """

    def __init__(self, inp: Input, events: Iterator[Event], on_close: Callable[[], None]) -> None:
        self._inp = inp
        self._events = events
        self._on_close = on_close
        self._closed = False

    @property
    def position(self) -> int:
        return self._inp.pos

    @property
    def size(self) -> int | None:
        return self._inp.size

    def __iter__(self) -> ModelStream:
        return self

    def __next__(self) -> Event:
        return next(self._events)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            close = getattr(self._events, "close", None)
            if close is not None:
                close()
            self._on_close()

    def __enter__(self) -> ModelStream:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def _one_field(message: Any, counts: dict[str, int], prefix: str) -> tuple[str, Any, int, str] | None:
    """The one field a one-record message holds: name, value (an element, for a repeated
    field), its index in that field (-1 when singular, counted in ``counts``) and path;
    None when the record is a field the schema does not know."""
    fields = message.ListFields()
    if not fields:
        return None
    spec, value = fields[0]
    if not spec.repeated:
        return spec.name, value, -1, f"{prefix}.{spec.name}"
    index = counts.get(spec.name, 0)
    counts[spec.name] = index + 1
    return spec.name, value[0], index, f"{prefix}.{spec.name}[{index}]"


def _plain_file(source: Any) -> bool:
    """A file object whose bytes are its descriptor's (not gzip's, say), on a regular file."""
    raw = getattr(source, "raw", source)
    if not isinstance(raw, io.FileIO) or not isinstance(
        source, (io.FileIO, io.BufferedReader, io.BufferedRandom)
    ):
        return False
    try:
        return stat.S_ISREG(os.fstat(source.fileno()).st_mode) and source.seekable()
    except (OSError, ValueError):
        return False


def _open(source: Source) -> tuple[Input, Callable[[], None]]:
    """The input for ``source`` and what closing it means."""
    kind = classify(source)
    given: Any = source  # narrowed by kind, below
    if kind == "buffer":
        buffer = BufferInput(given)
        return buffer, buffer.close
    if kind == "path":
        opened = open_source_file(given)
        if is_regular_file(opened):
            owned = FileInput(opened.fileno(), 0, owned=False, owner=opened)
            # Tensors may outlive the stream object; the file closes with the last of them.
            weakref.finalize(owned, opened.close)
            return owned, opened.close
        pipe = StreamInput(opened)

        def close_pipe() -> None:
            pipe.close()
            opened.close()

        return pipe, close_pipe
    if kind == "file":
        if _plain_file(given):
            shared = FileInput(given.fileno(), given.tell(), owned=False, owner=given)

            def put_back() -> None:
                if not given.closed:
                    given.seek(shared.end_offset())  # like load(file): left after the model
                shared.close()

            return shared, put_back
        other = StreamInput(given)
        return other, other.close
    if kind == "stdin":
        piped = StreamInput(sys.stdin.buffer)
        return piped, piped.close  # standard input stays open: it is the process's
    # A URL: headers read by range, payloads located and fetched by range when read.
    from wirecodec.files.remote.clients import open_source  # only when a URL is streamed
    from wirecodec.files.remote.source import RemoteOptions

    remote = RangeInput(open_source(str(source), RemoteOptions()))
    return remote, remote.close


def stream(
    source: Source, *, max_depth: int = DEFAULT_MAX_DEPTH, skip_payloads: bool = False, keep_small: int = 0
) -> ModelStream:
    """Iterate the top-level pieces of a ModelProto in file order, in bounded memory.

    ``source`` is a path, ``-`` (standard input), a URL (read by byte ranges: payloads
    are fetched only when read), a binary file object (a regular file, or anything with
    ``read``: a pipe, a socket's file, ``gzip.open(...)``, ``sys.stdin.buffer``), an
    mmap or any bytes-like object. The events (wirecodec.files.stream.events):
    :class:`ModelField` (ir_version, producer..., metadata_props, ...),
    :class:`OpsetImport`, :class:`GraphStart`, :class:`Node` (decoded whole, subgraphs
    included), :class:`ValueInfo` (graph inputs, outputs, value_info),
    :class:`Initializer` (a :class:`LazyTensor`: header decoded, ``raw_data`` located),
    :class:`SparseInitializer`, :class:`GraphField`, :class:`Function` and
    :class:`UnknownField`. Memory holds the record in hand, not the model: a node, or
    an initializer's headers. From a non-seekable stream a ``raw_data`` payload is read
    as it goes by and kept on its tensor, unless ``skip_payloads=True`` (then only
    payloads of at most ``keep_small`` bytes are kept: a pipe's shape constants, say).

    It accepts exactly what :func:`wirecodec.decode` accepts and reports the same
    errors (see the module docstring). Close it (or use ``with``) to stop early.
    """
    if not 0 <= max_depth < CHECKED:
        raise ValueError(f"max_depth must be >= 0 and < 2**61, got {max_depth}")
    inp, release = _open(source)
    if keep_small < 0:
        raise ValueError(f"keep_small must be >= 0, got {keep_small}")
    walker = _Walker(inp, max_depth, skip_payloads, keep_small)

    def events() -> Iterator[Event]:
        yield from walker.events()
        if isinstance(inp, FileInput) and not isinstance(source, (str, os.PathLike)):
            file: IO[bytes] = source  # type: ignore[assignment]  # _open made FileInput of a file
            if not file.closed:
                file.seek(inp.end_offset())  # a caller's file: left after the model, like load(file)

    return ModelStream(inp, events(), release)


def assemble(
    events: Iterable[Event], tensor: Callable[[LazyTensor], TensorProto] = LazyTensor.to_tensor
) -> ModelProto:
    """Build the ModelProto the events describe (what :func:`wirecodec.decode` returns).

    ``tensor`` turns each lazy initializer into a TensorProto (by default reading its
    payload); pass your own to put views or references there instead.
    """
    model = ModelProto()
    for event in events:
        if isinstance(event, (ModelField, UnknownField)) and isinstance(event.record, ModelProto):
            model.MergeFrom(event.record)
        elif isinstance(event, (GraphField, UnknownField)):
            model.graph.MergeFrom(event.record)
        elif isinstance(event, OpsetImport):
            model.opset_import.append(event.opset)
        elif isinstance(event, Function):
            model.functions.append(event.function)
        elif isinstance(event, GraphStart):
            if not model.HasField("graph"):
                model.graph = GraphProto()
        elif isinstance(event, Node):
            model.graph.node.append(event.node)
        elif isinstance(event, ValueInfo):
            getattr(model.graph, event.role).append(event.value_info)
        elif isinstance(event, Initializer):
            model.graph.initializer.append(tensor(event.tensor))
        elif isinstance(event, SparseInitializer):
            model.graph.sparse_initializer.append(event.sparse_tensor)
    return model
