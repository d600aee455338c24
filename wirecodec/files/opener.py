"""The one way a model comes in: every API and every CLI verb opens models here.

:func:`open_model` takes a path, ``-`` (standard input), bytes, a binary file object,
a zip container (``.onnxz``), a model with external data, or a single file of any
size, and returns an :class:`Opened`: the decoded model with its references left as
they are, and the :class:`~wirecodec.files.base.tensor_data.TensorData` that resolves them
(data files beside the model, or the archive's entries). A new layout is added here
once, and every tool has it.

One set of errors, each naming the right file:

- a missing file, a directory, an unreadable file: the ``OSError`` (its ``filename`` set);
- an empty input, or one that decodes to no ONNX field at all (a text file):
  :class:`~wirecodec.NotAModelError`;
- a truncated or malformed model: :class:`~wirecodec.DecodeError` with offset and path;
- a damaged container: :class:`~wirecodec.ContainerError`;
- a URL that cannot be read as asked: :class:`~wirecodec.RemoteError`, naming the URL
  and the byte range.

>>> from wirecodec.examples.build_mlp import build
>>> from wirecodec.protobuf.codec import encode
>>> opened = open_model(encode(build()))
>>> opened.label, opened.layout, opened.model.graph.node[0].op_type
('<bytes>', 'single', 'Gemm')
>>> open_model(b"")
Traceback (most recent call last):
...
wirecodec.errors.NotAModelError: empty input: not an ONNX model (byte offset 0 at ModelProto)
"""

from __future__ import annotations

import io
import mmap
import os
import pathlib
import stat
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, Final, Literal, TypeVar

from schema_dsl.message import Message
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import NotAModelError, PayloadPassedError
from wirecodec.files.base.mapping import map_read_only
from wirecodec.files.base.references import any_external_data, label_of, uses_external_data
from wirecodec.files.base.source import STDIN, Source, classify, is_zip, open_source_file
from wirecodec.files.base.tensor_data import NoData, TensorData
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.external.data import DirectoryData
from wirecodec.protobuf import sparse as _sparse
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, decode_split
from wirecodec.protobuf.lazy import holds_any_field, pending_bytes
from wirecodec.protobuf.notes import noting
from wirecodec.protobuf.payloads import SourceMap

if TYPE_CHECKING:
    from wirecodec.files.remote.source import RemoteOptions
    from wirecodec.files.stream.events import LazyTensor

__all__ = ["STDIN", "Layout", "Opened", "Source", "decode_source", "open_model", "read_payload_source"]

M = TypeVar("M", bound=Message)

Layout = Literal["single", "external", "zip"]


@dataclass
class Opened:
    """A model as it was opened.

    ``label`` names the source in messages (the path as given, ``<stdin>``, ``<bytes>``);
    ``path`` is the model file (None for bytes and pipes); ``size`` its bytes; ``layout``
    says where tensor bytes live; ``data`` resolves the references; ``original`` is the
    buffer the model was decoded from (the file's map, the bytes read, or a container's
    ``__MODEL_PROTO``), for byte-for-byte comparisons (None for a URL: it would mean
    downloading the weights). ``remote`` is the source a URL is read through (its
    ``requests`` and ``received`` count what was transferred), None otherwise.
    """

    model: ModelProto
    label: str
    path: pathlib.Path | None
    size: int
    layout: Layout
    data: TensorData
    original: Any
    remote: Any = None

    def external_tensors(self) -> Iterator[TensorProto]:
        """The tensors that refer to bytes outside the model's encoding (none for ``single``)."""
        if self.layout == "single":
            return iter(())
        return (tensor for tensor in iter_tensors(self.model) if uses_external_data(tensor))

    def resolve_external(self) -> int:
        """Give every referring tensor its bytes as ``raw_data`` (views; all checked first)."""
        return self.data.resolve_all(list(self.external_tensors()))


class _Mapped:
    """A mapped model file, and (when it pays) a sparse copy of it without its big payloads."""

    def __init__(self, fileno: int, size: int, name: str, cls: type[Message]) -> None:
        # The map is read-only and outlives the file object; views keep it alive.
        self.map = map_read_only(fileno, size, name)
        self.shadow: mmap.mmap | None = None
        if size >= 1 << 20:
            # Payloads at least half the file, or None: a sparse copy then saves little.
            payloads = _sparse.payload_ranges(fileno, size, cls, at_least=size // 2)
            if payloads:
                self.shadow = _sparse.shadow_copy(fileno, size, payloads)


def _regular_size(file: IO[bytes]) -> int | None:
    """The size of a regular file positioned at its start (mappable), else None."""
    try:
        info = os.fstat(file.fileno())
        at_start = file.tell() == 0
    except (OSError, io.UnsupportedOperation, AttributeError, ValueError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) and at_start else None


def read_payload_source(file: IO[bytes], lazy: bool, name: str, cls: type[Message] = ModelProto) -> Any:
    """What to decode from an open file: a map of it (lazy, regular, non-empty) or its bytes."""
    size = _regular_size(file)
    if lazy and size:
        mapped = _Mapped(file.fileno(), size, name, cls)
        file.seek(0, os.SEEK_END)  # as if read, like onnx.load(file) leaves it
        return mapped
    return file.read()


def decode_source(cls: type[M], data: Any, max_depth: int, lazy: bool) -> M:
    """Decode; for a mapped file, touch as few of its pages as the structure needs.

    With a sparse copy (see wirecodec.protobuf.sparse) the decoder reads headers from the
    copy and never touches the map. Otherwise it reads the map itself under random-access
    advice, so on a cold page cache the kernel does not read megabytes around every header
    it faults on; afterwards the map reads ahead normally again.
    """
    if not isinstance(data, _Mapped):
        return decode(cls, data, max_depth=max_depth, lazy=lazy)
    if data.shadow is not None:
        # The sparse copy is ours alone and the map is read-only: safe to decode lazily.
        return decode_split(cls, data.shadow, memoryview(data.map), "decode", max_depth=max_depth, lazy=True)
    if not hasattr(mmap, "MADV_RANDOM"):
        return decode(cls, data.map, max_depth=max_depth)
    data.map.madvise(mmap.MADV_RANDOM)
    try:
        return decode(cls, data.map, max_depth=max_depth)
    finally:
        data.map.madvise(mmap.MADV_NORMAL)


def _size_of(data: Any) -> int:
    if isinstance(data, _Mapped):
        return len(data.map)
    return memoryview(data).nbytes


def _original(data: Any) -> Any:
    return data.map if isinstance(data, _Mapped) else data


def _refuse_empty(size: int, what: str) -> None:
    if size == 0:
        raise NotAModelError(f"empty {what}: not an ONNX model", 0, "ModelProto")


def open_model(
    source: Source,
    *,
    lazy: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    stdin: IO[bytes] | None = None,
    streamed: bool = False,
    remote: RemoteOptions | None = None,
    spool_dir: str | os.PathLike[str] | None = None,
) -> Opened:
    """Open the model in ``source``, leaving its external references unresolved (see module doc).

    ``lazy`` as in :func:`wirecodec.load`. ``base_dir`` is where data files are looked for
    (default: the model file's directory; a model from bytes or a pipe has none unless
    given). ``stdin`` is the stream ``-`` reads (default: the process's standard input).
    ``streamed=True`` reads a single model file front to back with :func:`wirecodec.stream`
    instead of mapping it (every inline payload a view of a map of the file, copied file
    to file when saved): what :func:`wirecodec.convert` uses, for files of any size.
    A URL (``http://``, ``https://``; other schemes through fsspec) is read by byte
    ranges as ``remote`` says (default :class:`~wirecodec.RemoteOptions`); ``streamed``
    does not apply to it. A pipe (``-``, a FIFO, a non-seekable file object) is read front
    to back, its payloads over :data:`PIPE_KEEP` bytes passed by, or, with ``spool_dir``,
    spooled to a temporary file there (see :func:`_from_pipe`).
    """
    data: Any
    kind = classify(source)  # the one source switch; a TypeError for anything else
    if kind == "url":
        from wirecodec.files.remote.source import RemoteOptions  # only for a URL

        return _from_url(str(source), remote or RemoteOptions(), lazy, max_depth, base_dir)
    if kind == "stdin":
        pipe = stdin if stdin is not None else sys.stdin.buffer
        return _from_pipe(pipe, "<stdin>", None, lazy, base_dir, max_depth, spool_dir)
    if kind == "path":
        path = pathlib.Path(source)  # type: ignore[arg-type]
        # Opened once, here: every layout below reads this file object (OSError names the path).
        with open_source_file(path) as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):  # a pipe or device given by name (/dev/stdin)
                return _from_pipe(file, str(source), None, lazy, base_dir, max_depth, spool_dir)
            _refuse_empty(info.st_size, "file")
            if is_zip(file):
                return _from_zip(file, str(source), path, info.st_size, lazy, max_depth)
            if streamed:
                return _streamed(file, path, str(source), info.st_size, base_dir)
            data = read_payload_source(file, lazy, str(path))
        return _from_buffer(data, str(source), path, lazy, base_dir, max_depth)
    if kind == "buffer":
        _refuse_empty(memoryview(source).nbytes, "input")  # type: ignore[arg-type]
        return _from_buffer(source, "<bytes>", None, lazy, base_dir, max_depth)
    given: IO[bytes] = source  # type: ignore[assignment]
    name = getattr(given, "name", None)
    named = pathlib.Path(name) if isinstance(name, str) else None
    label = name if isinstance(name, str) else "<file object>"
    if _regular_size(given) is None and not _seekable(given):
        return _from_pipe(given, label, named, lazy, base_dir, max_depth, spool_dir)
    if is_zip(given):
        if _regular_size(given) is None:  # past a prefix: the archive starts here, as a model would
            rest = _rest_of(given, label) if lazy else given.read()
            return _from_zip(rest, label, named, len(rest), lazy, max_depth)
        return _from_zip(given, label, named, 0, lazy, max_depth)
    data = read_payload_source(given, lazy, label)
    _refuse_empty(_size_of(data), "input")
    return _from_buffer(data, label, named, lazy, base_dir, max_depth)


def _rest_of(file: IO[bytes], name: str) -> Any:
    """The bytes of ``file`` from its position on: a view of its map when it is a regular
    file (a lazy load of a container past a prefix reads nothing into memory), else what
    it reads."""
    try:
        info = os.fstat(file.fileno())
        start = file.tell()
    except (OSError, io.UnsupportedOperation, AttributeError, ValueError):
        return file.read()
    if not stat.S_ISREG(info.st_mode) or start >= info.st_size:
        return file.read()
    rest = memoryview(map_read_only(file.fileno(), info.st_size, name))[start:]
    file.seek(0, os.SEEK_END)  # as if read
    return rest


def _seekable(file: IO[bytes]) -> bool:
    try:
        return bool(file.seekable())
    except (OSError, ValueError, AttributeError):
        return False


PIPE_KEEP: Final = 64 << 10
"""From a pipe, ``raw_data`` payloads up to this size are kept; larger ones are passed by."""

PIPE_WHOLE: Final = 32 << 20
"""A pipe that ends within this many bytes is kept whole, like bytes (every verb, every
payload, the round trip); a longer one is read front to back (see :func:`_from_pipe`)."""


class _Prefixed(io.RawIOBase):
    """A stream with the bytes already taken from its head put back in front of it."""

    def __init__(self, head: bytes, rest: IO[bytes], tee: IO[bytes] | None = None) -> None:
        self._head = memoryview(head)
        self._rest = rest
        self._tee = tee  # every byte handed out is also written here (a spool), in order
        self.consumed = 0  # bytes handed out, head included

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        out = memoryview(buffer).cast("B")
        if self._head.nbytes:
            n = min(out.nbytes, self._head.nbytes)
            out[:n] = self._head[:n]
            self._head = self._head[n:]
        else:
            data = self._rest.read(out.nbytes)
            n = len(data)
            out[:n] = data
        if self._tee is not None:
            self._tee.write(out[:n])
        self.consumed += n
        return n


def _read_up_to(file: IO[bytes], limit: int) -> bytes:
    """Up to ``limit`` bytes, fewer only at the end of the input (a pipe gives what it has)."""
    pieces, size = [], 0
    while size < limit:
        piece = file.read(limit - size)
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces)


def _from_pipe(
    file: IO[bytes],
    label: str,
    path: pathlib.Path | None,
    lazy: bool,
    base_dir: str | os.PathLike[str] | None,
    max_depth: int,
    spool_dir: str | os.PathLike[str] | None = None,
) -> Opened:
    """A model from a pipe. One that ends within :data:`PIPE_WHOLE` bytes is kept whole; a
    longer one is read front to back: its structure decoded, payloads of up to
    :data:`PIPE_KEEP` bytes kept, larger ones passed by (present, their length known,
    reading one raises :class:`~wirecodec.PayloadPassedError`). Memory holds the
    structure, never the weights. With ``spool_dir`` the input is also copied, as it is
    read, to a temporary file there (deleted once closed) and the passed payloads are views
    of its map instead: what convert does, writing beside its output. A zip container
    cannot be read front to back: it is read whole."""
    head = _read_up_to(file, PIPE_WHOLE + 1)
    _refuse_empty(len(head), "input")
    if len(head) <= PIPE_WHOLE:  # it ended: small enough to keep whole
        return _from_buffer(head, label, path, lazy, base_dir, max_depth)
    spool = None
    if spool_dir is not None:
        import tempfile  # (only a spooled pipe needs it: with shutil, random, bz2 and lzma, ~3 ms)

        spool = tempfile.TemporaryFile(dir=spool_dir, prefix=".wirecodec-spool-")  # noqa: SIM115  (closed below)
    whole = _Prefixed(head, file, spool)
    if is_zip(head):
        data = io.BufferedReader(whole).read()
        return _from_zip(data, label, path, len(data), lazy, max_depth)
    passed: list[tuple[int, int, int]] = []  # (initializer index, payload offset, length)
    seen = 0

    def keep_or_pass(lazy_tensor: LazyTensor) -> TensorProto:
        nonlocal seen
        tensor = lazy_tensor.header
        if lazy_tensor.raw_offset is not None:
            if lazy_tensor.raw_length <= PIPE_KEEP:
                tensor.raw_data = lazy_tensor.read()
            else:
                passed.append((seen, lazy_tensor.raw_offset, lazy_tensor.raw_length))
        seen += 1
        return tensor

    # Only a pipe or streamed=True reads a model as a stream: the reader loads then (~10 ms).
    from wirecodec.files.stream.reader import assemble, stream

    reader = io.BufferedReader(whole, 1 << 20)
    try:
        with stream(reader, max_depth=max_depth, skip_payloads=True, keep_small=PIPE_KEEP) as events:
            model = assemble(events, keep_or_pass)
        initializers = model.graph.initializer
        if spool is not None:
            spool.flush()
            spool_name = spool.name if isinstance(spool.name, str) else f"<spool of {label}>"
            spooled = memoryview(SourceMap.adopt(os.dup(spool.fileno()), spool_name))
            for index, offset, length in passed:
                initializers[index].raw_data = spooled[offset : offset + length]
        else:
            # Made pending in place: appending copies a tensor, and a copy reads every field.
            for index, _, length in passed:
                refuse = _refusal(label, initializers[index], length)
                pending_bytes(initializers[index], "raw_data", length, refuse)
    finally:
        if spool is not None:
            spool.close()  # the map keeps its own descriptor; the file goes with the last of them
    _refuse_fieldless(model, whole.consumed)
    external = any_external_data(model)
    folder = base_dir if base_dir is not None else (path.parent if path is not None else None)
    resolver: TensorData = DirectoryData(folder, lazy=lazy) if folder is not None else NoData(label)
    return Opened(model, label, path, whole.consumed, "external" if external else "single", resolver, None)


def _refusal(label: str, tensor: TensorProto, length: int) -> Any:
    name = label_of(tensor)

    def refuse() -> Any:
        raise PayloadPassedError(
            f"{name}: its raw_data ({length:,} bytes) came through {label} and was not kept "
            "(a pipe is read once, in bounded memory); read the model from a file for its weights"
        )

    return refuse


def _from_zip(
    source: Any, label: str, path: pathlib.Path | None, size: int, lazy: bool, depth: int
) -> Opened:
    # The zip layer (zlib, its readers) is imported by the first zip container opened only.
    from wirecodec.files.zip.container import open_zip
    from wirecodec.files.zip.data import ZipData

    model, buffer, archive = open_zip(source, lazy=lazy, max_depth=depth)
    proto = archive.by_name["__MODEL_PROTO"]
    original = buffer[proto.data_offset : proto.data_end]
    return Opened(model, label, path, size or buffer.nbytes, "zip", ZipData(buffer, archive), original)


def _streamed(
    file: IO[bytes], path: pathlib.Path, label: str, size: int, base_dir: str | os.PathLike[str] | None
) -> Opened:
    """A single model file read as a stream: its structure decoded, its payloads views of a map."""
    whole: list[memoryview] = []

    def mapped(lazy_tensor: LazyTensor) -> TensorProto:
        tensor = lazy_tensor.header
        if lazy_tensor.raw_offset is not None:
            if not whole:
                whole.append(memoryview(SourceMap.adopt(os.dup(file.fileno()), str(path))))
            start = lazy_tensor.raw_offset
            tensor.raw_data = whole[0][start : start + (lazy_tensor.raw_length or 0)]
        return tensor

    from wirecodec.files.stream.reader import assemble, stream  # (see _from_pipe)

    with stream(file) as events:
        model = assemble(events, mapped)
    _refuse_fieldless(model, size)
    external = any_external_data(model)
    folder = base_dir if base_dir is not None else path.parent
    layout: Layout = "external" if external else "single"
    return Opened(model, label, path, size, layout, DirectoryData(folder, for_copying=True), None)


def _from_url(
    url: str, options: RemoteOptions, lazy: bool, max_depth: int, base_dir: str | os.PathLike[str] | None
) -> Opened:
    """A model by URL: its structure fetched now, each large tensor's bytes when read; its
    data files beside it (or in the local ``base_dir`` when one is given)."""
    from wirecodec.files.remote.structure import RemoteData, fetch_structure

    with noting() as seen:
        model, source = fetch_structure(url, options, lazy=lazy, max_depth=max_depth)
    _refuse_fieldless(model, source.size)
    external = (TensorProto, "data_location") in seen and any_external_data(model)
    layout: Layout = "external" if external else "single"
    data = RemoteData(url, options) if base_dir is None else DirectoryData(base_dir, lazy=lazy)
    return Opened(model, url, None, source.size, layout, data, None, source)


def _refuse_fieldless(model: ModelProto, size: int) -> None:
    # Looks at what is stored or pending without loading anything (ListFields would build
    # every waiting field, metadata_props included).
    if not holds_any_field(model):
        reason = f"no ONNX model field in these {size:,} bytes: not an ONNX model"
        raise NotAModelError(reason, 0, "ModelProto")


def _from_buffer(
    data: Any,
    label: str,
    path: pathlib.Path | None,
    lazy: bool,
    base_dir: str | os.PathLike[str] | None,
    max_depth: int,
) -> Opened:
    if not isinstance(data, _Mapped) and is_zip(data):
        return _from_zip(data, label, path, memoryview(data).nbytes, lazy, max_depth)
    with noting() as seen:
        model = decode_source(ModelProto, data, max_depth, lazy)
    _refuse_fieldless(model, _size_of(data))
    # Only a tensor that set data_location can refer to external data: when the decoders
    # met none, nothing is walked (a walk would read every node's empty fields).
    external = (TensorProto, "data_location") in seen and any_external_data(model)
    folder = base_dir if base_dir is not None else (path.parent if path is not None else None)
    resolver: TensorData = DirectoryData(folder, lazy=lazy) if folder is not None else NoData(label)
    return Opened(
        model, label, path, _size_of(data), "external" if external else "single", resolver, _original(data)
    )
