"""``load`` / ``save``: models and single tensors, from and to files.

>>> import pathlib, tempfile
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> save(build(), folder / "mlp.onnx", external_data=True, size_threshold=64)
>>> sorted(p.name for p in folder.iterdir())
['mlp.onnx', 'mlp.onnx.data']
>>> model = load(folder / "mlp.onnx")
>>> type(model.graph.initializer[0].raw_data.obj).__name__
'mmap'
"""

from __future__ import annotations

import contextlib
import glob
import io
import mmap
import os
import pathlib
import re
import stat
from typing import IO, Any

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import _external_write, _sparse
from wirecodec._atomic import AtomicFiles
from wirecodec.codec import DEFAULT_MAX_DEPTH, decode, decode_split, encode_chunks, write_chunks
from wirecodec.errors import ExternalDataError, WireCodecError
from wirecodec.external import (
    ExternalDataStore,
    any_external_data,
    iter_tensors,
    load_external_data,
)

__all__ = ["load", "load_tensor", "save", "save_tensor"]

Source = str | os.PathLike[str] | IO[bytes] | bytes | bytearray | memoryview | mmap.mmap



def _read_source(source: Source, lazy: bool) -> tuple[Any, pathlib.Path | None]:
    """The bytes to decode (a map of the file when lazy) and the file's path, if any."""
    if isinstance(source, (str, os.PathLike)):
        path = pathlib.Path(source)
        with path.open("rb") as file:
            return _read_file(file, lazy), path
    if isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        return source, None
    if hasattr(source, "read"):
        name = getattr(source, "name", None)
        return _read_file(source, lazy), pathlib.Path(name) if isinstance(name, str) else None
    raise TypeError(f"load needs a path, a binary file or bytes, got {type(source).__name__}")


class _Mapped:
    """A mapped file, and (when it pays) a sparse copy of it without its big payloads."""

    def __init__(self, fileno: int) -> None:
        size = os.fstat(fileno).st_size
        # The map is read-only and outlives the file object; views keep it alive.
        self.map = mmap.mmap(fileno, 0, access=mmap.ACCESS_READ)
        self.shadow: mmap.mmap | None = None
        if size >= 1 << 20:
            payloads = _sparse.payload_ranges(fileno, size, ModelProto)
            if payloads and sum(end - start for start, end in payloads) >= size // 2:
                self.shadow = _sparse.shadow_copy(fileno, size, payloads)


def _read_file(file: IO[bytes], lazy: bool) -> Any:
    try:
        fileno = file.fileno()
        regular = stat.S_ISREG(os.fstat(fileno).st_mode)
    except (OSError, io.UnsupportedOperation, AttributeError):
        regular = False
    if lazy and regular and file.tell() == 0 and os.fstat(fileno).st_size > 0:
        mapped = _Mapped(fileno)
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
    """
    data, path = _read_source(source, lazy)
    model = _decode_mapped(data, max_depth, lazy)
    # A model without external data keeps its waiting elements waiting.
    if load_external_data and any_external_data(model):
        if base_dir is None:
            if path is None:
                raise ExternalDataError(
                    "the model refers to external data but was not loaded from a file: pass base_dir=..."
                )
            base_dir = path.parent
        load_external_data_into(model, base_dir, lazy=lazy)
    return model


def _decode_mapped(data: Any, max_depth: int, lazy: bool) -> ModelProto:
    """Decode; for a mapped file, touch as few of its pages as the structure needs.

    With a sparse copy (see wirecodec._sparse) the decoder reads headers from the copy
    and never touches the map. Otherwise it reads the map itself, under random-access
    advice, so on a cold page cache the kernel does not read megabytes around every
    header it faults on; afterwards the map reads ahead normally again.
    """
    if not isinstance(data, _Mapped):
        return decode(ModelProto, data, max_depth=max_depth, lazy=lazy)
    if data.shadow is not None:
        # The sparse copy is ours alone and the map is read-only: safe to decode lazily.
        return decode_split(
            ModelProto, data.shadow, memoryview(data.map), "decode", max_depth=max_depth, lazy=True
        )
    if not hasattr(mmap, "MADV_RANDOM"):
        return decode(ModelProto, data.map, max_depth=max_depth)
    data.map.madvise(mmap.MADV_RANDOM)
    try:
        return decode(ModelProto, data.map, max_depth=max_depth)
    finally:
        data.map.madvise(mmap.MADV_NORMAL)


def load_external_data_into(model: ModelProto, base_dir: str | os.PathLike[str], *, lazy: bool = True) -> int:
    """Resolve a loaded model's external tensors (for ``load(..., load_external_data=False)``)."""
    return load_external_data(model, ExternalDataStore(base_dir, lazy=lazy))


def save(
    model: ModelProto,
    path: str | os.PathLike[str],
    *,
    external_data: bool = False,
    location: str | None = None,
    size_threshold: int = 1024,
    all_tensors_to_one_file: bool = True,
    align: int = 4096,
    max_shard_size: int | None = None,
    convert_attribute: bool = False,
) -> None:
    """Write ``model`` to ``path`` atomically; optionally move tensor data to external files.

    With ``external_data=True``, every initializer (and with ``convert_attribute=True``
    every attribute tensor) holding at least ``size_threshold`` bytes moves to
    ``location`` (default ``<model file name>.data``; if a file of that name exists, a
    fresh ``<model file name>.N.data``, and the previous version's default-named data is
    removed once the new model is in place), each at an offset aligned to
    ``align`` bytes (64 for tensors smaller than that) so it can be mapped;
    ``max_shard_size`` splits the data into ``<location>.0``, ``.1``, … without
    splitting a tensor; ``all_tensors_to_one_file=False`` writes one file per tensor,
    named after it. The caller's model is not modified.

    Every file is written to a temporary in the target directory and renamed into
    place only when all of them are complete, so an error (or a crash before the
    renames) leaves the previous files intact.
    """
    target = pathlib.Path(path)
    to_write = model
    files: list[_external_write.DataFile] = []
    replaced: set[str] = set()
    if location is not None and not location:
        raise ExternalDataError("location must not be empty (None picks the default name)")
    # The files the model now at ``target`` uses: needed to pick what a default-location
    # save cleans up, and which names per-tensor files may reuse. Reading it costs a load.
    needs_on_disk = external_data and (location is None or not all_tensors_to_one_file)
    on_disk = _referenced_files(target) if needs_on_disk else set()
    if external_data and location is None:
        # Never rewrite, in place, the data the model on disk now points at: a crash between
        # the renames would pair the old model with new data. New data gets a fresh name.
        replaced = {name for name in on_disk if _is_default_name(target, name)}
        location = _fresh_location(target)
    if external_data:
        planned = _external_write.plan(
            model,
            target,
            location=location,
            size_threshold=size_threshold,
            all_tensors_to_one_file=all_tensors_to_one_file,
            align=align,
            max_shard_size=max_shard_size,
            convert_attribute=convert_attribute,
            taken=() if all_tensors_to_one_file else _unrelated_files(target, on_disk),
        )
        to_write, files = planned.model, planned.files
    # Every destination is checked before anything is written.
    destinations = [_external_write.data_path(target.parent, f.location) for f in files]
    if any(os.path.normpath(d) == os.path.normpath(target) for d in destinations):
        raise ExternalDataError(f"refusing external data location {location!r}: it is the model file itself")
    chunks, _ = encode_chunks(to_write)
    with AtomicFiles() as group:
        for data_file, destination in zip(files, destinations, strict=True):
            with group.open(destination) as out:
                _write_parts(out, data_file.parts)
        with group.open(target) as out:
            write_chunks(out, chunks)
        # Data files first, the model last: a model never names data that is not there.
        group.commit()
    # The previous version's default-named data, unless the model just written still
    # refers to it (tensors that stayed external keep their references).
    if replaced:
        for name in replaced - _locations(to_write):
            with contextlib.suppress(OSError):
                (target.parent / name).unlink()


def _locations(model: ModelProto) -> set[str]:
    return {
        entry.value
        for tensor in iter_tensors(model)
        for entry in tensor.external_data
        if entry.key == "location"
    }


def _referenced_files(target: pathlib.Path) -> set[str]:
    """The data files that the model now at ``target`` (if any) refers to."""
    try:
        current = load(target, load_external_data=False, lazy=False)
    except (OSError, WireCodecError):
        return set()
    return _locations(current)


def _is_default_name(target: pathlib.Path, name: str) -> bool:
    """Named by our default scheme: ``<model>.data``, ``<model>.N.data``, and their shards."""
    return re.fullmatch(re.escape(target.name) + r"(\.\d+)?\.data(\.\d+)?", name) is not None


def _unrelated_files(target: pathlib.Path, ours: set[str]) -> set[str]:
    """Names in the model's directory that per-tensor files must not take (lower-cased)."""
    try:
        present = {entry.name.lower() for entry in target.parent.iterdir()}
    except OSError:
        return set()
    return present - {name.lower() for name in ours}


def _fresh_location(target: pathlib.Path) -> str:
    """``<model>.data``, or ``<model>.N.data`` when that name (or its shards) is taken."""
    n = 0
    while True:
        name = f"{target.name}.data" if n == 0 else f"{target.name}.{n}.data"
        if not any(target.parent.glob(glob.escape(name) + "*")):
            return name
        n += 1


def _write_parts(out: IO[bytes], parts: list[tuple[int, Any]]) -> None:
    position = 0
    for offset, payload in parts:
        if offset > position:
            out.write(bytes(offset - position))
        out.write(payload)
        position = offset + len(payload)


def load_tensor(source: Source, *, lazy: bool = True) -> TensorProto:
    """Load a single serialized TensorProto (the ``.pb`` files of onnx test data)."""
    data, _ = _read_source(source, lazy)
    return decode(TensorProto, data.map if isinstance(data, _Mapped) else data)


def save_tensor(tensor: TensorProto, path: str | os.PathLike[str]) -> None:
    """Write a single TensorProto to ``path`` atomically."""
    chunks, _ = encode_chunks(tensor)
    with AtomicFiles() as group:
        with group.open(path) as out:
            write_chunks(out, chunks)
        group.commit()
