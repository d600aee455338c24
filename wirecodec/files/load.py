"""``load``: models and single tensors from paths, file objects or bytes.

>>> import pathlib, tempfile
>>> from wirecodec import save
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> save(build(), folder / "mlp.onnx", external_data=True, size_threshold=64)
>>> model = load(folder / "mlp.onnx")
>>> type(model.graph.initializer[0].raw_data.obj).__name__
'mmap'
"""

from __future__ import annotations

import io
import mmap
import os
import pathlib
import stat
from typing import IO, Any, TypeVar

from schema_dsl.message import Message
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.external import (
    ExternalDataStore,
    any_external_data,
    load_external_data,
)
from wirecodec.files.mapping import map_read_only
from wirecodec.files.zip_container import is_zip, load_zip
from wirecodec.protobuf import sparse as _sparse
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, decode_split
from wirecodec.protobuf.notes import noting

__all__ = ["load", "load_external_data_into", "load_tensor"]

M = TypeVar("M", bound=Message)
Source = str | os.PathLike[str] | IO[bytes] | bytes | bytearray | memoryview | mmap.mmap


def _read_source(source: Source, lazy: bool, cls: type[Message]) -> tuple[Any, pathlib.Path | None]:
    """The bytes to decode as ``cls`` (a map of the file when lazy) and the file's path, if any."""
    if isinstance(source, (str, os.PathLike)):
        path = pathlib.Path(source)
        with path.open("rb") as file:
            return _read_file(file, lazy, cls), path
    if isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        return source, None
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return _read_file(source, lazy, cls), pathlib.Path(name) if isinstance(name, str) else None
    raise TypeError(f"load needs a path, a binary file or bytes, got {type(source).__name__}")


class _Mapped:
    """A mapped ``cls`` file, and (when it pays) a sparse copy of it without its big payloads."""

    def __init__(self, fileno: int, cls: type[Message], name: str = "<model file>") -> None:
        size = os.fstat(fileno).st_size
        # The map is read-only and outlives the file object; views keep it alive.
        self.map = map_read_only(fileno, size, name)
        self.shadow: mmap.mmap | None = None
        if size >= 1 << 20:
            # Payloads at least half the file, or None: a sparse copy then saves little.
            payloads = _sparse.payload_ranges(fileno, size, cls, at_least=size // 2)
            if payloads:
                self.shadow = _sparse.shadow_copy(fileno, size, payloads)


def _read_file(file: IO[bytes], lazy: bool, cls: type[Message]) -> Any:
    try:
        fileno = file.fileno()
        regular = stat.S_ISREG(os.fstat(fileno).st_mode)
    except (OSError, io.UnsupportedOperation, AttributeError):
        regular = False
    if lazy and regular and file.tell() == 0 and os.fstat(fileno).st_size > 0:
        name = getattr(file, "name", None)
        mapped = _Mapped(fileno, cls, name if isinstance(name, str) else f"<file descriptor {fileno}>")
        file.seek(0, os.SEEK_END)  # as if read, like onnx.load(file) leaves it
        return mapped
    return file.read()


def load(
    source: Source,
    *,
    lazy: bool = True,
    load_external_data: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> ModelProto:
    """Load a model from a path, a binary file object or bytes.

    With ``lazy=True`` (the default) a file is memory-mapped read-only and decoded in
    place: every ``raw_data`` is a view of the map, read from disk only when touched,
    external data files are mapped the same way, and small elements of repeated message
    fields are validated now but built on first read (see :func:`wirecodec.decode`).
    ``lazy=False`` reads and decodes everything now instead, so no file stays mapped.

    External data is resolved relative to ``base_dir`` (default: the model file's
    directory); ``load_external_data=False`` leaves the references as they are.
    A zip model container (docs/zip-container.md), recognised by its first bytes, is
    opened by :func:`wirecodec.load_zip`.
    """
    if is_zip(source):
        return load_zip(source, lazy=lazy, load_external_data=load_external_data, max_depth=max_depth)
    data, path = _read_source(source, lazy, ModelProto)
    with noting() as seen:
        model = _decode_mapped(ModelProto, data, max_depth, lazy)
    # Only a tensor that set data_location can refer to external data: when the decoders
    # met none, nothing is visited (a walk would read every node's empty fields). A model
    # without external data keeps its waiting elements waiting.
    maybe_external = (TensorProto, "data_location") in seen
    if load_external_data and maybe_external and any_external_data(model):
        if base_dir is None:
            if path is None:
                raise ExternalDataError(
                    "the model refers to external data but was not loaded from a file: pass base_dir=..."
                )
            base_dir = path.parent
        load_external_data_into(model, base_dir, lazy=lazy)
    return model


def _decode_mapped(cls: type[M], data: Any, max_depth: int, lazy: bool) -> M:
    """Decode; for a mapped file, touch as few of its pages as the structure needs.

    With a sparse copy (see wirecodec.protobuf.sparse) the decoder reads headers from the copy
    and never touches the map. Otherwise it reads the map itself, under random-access
    advice, so on a cold page cache the kernel does not read megabytes around every
    header it faults on; afterwards the map reads ahead normally again.
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


def load_external_data_into(model: ModelProto, base_dir: str | os.PathLike[str], *, lazy: bool = True) -> int:
    """Resolve a loaded model's external tensors (for ``load(..., load_external_data=False)``)."""
    return load_external_data(model, ExternalDataStore(base_dir, lazy=lazy))


def load_tensor(source: Source, *, lazy: bool = True) -> TensorProto:
    """Load a single serialized TensorProto (the ``.pb`` files of onnx test data)."""
    data, _ = _read_source(source, lazy, TensorProto)
    return _decode_mapped(TensorProto, data, DEFAULT_MAX_DEPTH, lazy)
