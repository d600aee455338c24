"""The zip model container: a standard zip archive of tensor entries and ``__MODEL_PROTO``.

The layout (docs/zip-container.md): every entry is *stored* (not compressed); each
tensor entry's data starts on a 64-byte boundary of the file (padding in the local
header's extra field, as zipalign does), so a map of the file serves every tensor in
place; ``__MODEL_PROTO`` (the ModelProto, its tensors referring to their entries) is
the last entry, so rewriting the model leaves the weights where they are; ZIP64
records appear when the archive needs them (past 4 GiB, past 65,535 entries).

>>> import pathlib, tempfile, zipfile
>>> from wirecodec.examples.build_mlp import build
>>> path = pathlib.Path(tempfile.mkdtemp()) / "mlp.onnxz"
>>> save_zip(build(), path)
>>> is_zip(path), zipfile.ZipFile(path).namelist()[-1]
(True, '__MODEL_PROTO')
>>> model = load_zip(path)
>>> type(model.graph.initializer[0].raw_data.obj).__name__
'mmap'
"""

from __future__ import annotations

import mmap
import os
import pathlib
import stat
import weakref
import zipfile
import zlib
from typing import IO, Any, Final

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ContainerError, DecodeError, EncodeError
from wirecodec.files.atomic import AtomicFiles
from wirecodec.files.external import iter_tensors, parse_ref, uses_external_data
from wirecodec.files.zip_layout import plan_entries
from wirecodec.files.zip_records import MODEL_ENTRY, Archive, Entry, read_archive
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, encode

__all__ = ["MODEL_ENTRY", "archive_file_of", "is_zip", "load_zip", "save_zip"]

Source = str | os.PathLike[str] | IO[bytes] | bytes | bytearray | memoryview | mmap.mmap

# A local header starts "PK\3\4", an empty archive "PK\5\6". No ModelProto encoding can
# start with either: 0x50 is field 10 as a varint, then 0x03 or 0x05 would be a tag
# with field number 0, which protobuf forbids. So the first four bytes decide.
_SIGNATURES: Final = (b"PK\x03\x04", b"PK\x05\x06")
_CHUNK: Final = 64 << 20  # payloads go to zipfile in slices of this size
# An aligned entry's padding is one well-formed extra record, id 0xD935 (the id Android's
# apksigner uses for alignment padding): 2-byte id, 2-byte size, 2-byte alignment, zeros.
_PADDING_ID: Final = 0xD935
_PADDING_MIN: Final = 6
_LOCAL_HEADER: Final = 30
_ZIP64_LOCAL_EXTRA: Final = 20  # what zipfile adds to a ZIP64 entry's local header

# The maps load_zip made, and the file (device, inode) each one maps: lets replace_model
# recognise tensors that are views of the very archive it rewrites.
_ARCHIVE_MAPS: weakref.WeakKeyDictionary[mmap.mmap, tuple[int, int]] = weakref.WeakKeyDictionary()


def is_zip(source: Source) -> bool:
    """Whether ``source`` (a path, a binary file or bytes) holds a zip archive, by its first bytes.

    A file object is read at its current position and put back; one that cannot seek
    is not examined (False).
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            head = file.read(4)
    elif isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        head = bytes(memoryview(source)[:4])
    elif hasattr(source, "read") and hasattr(source, "seek") and source.seekable():
        position = source.tell()
        head = source.read(4)
        source.seek(position)
    else:
        return False
    return head in _SIGNATURES


# -- writing ------------------------------------------------------------------------------------


def save_zip(model: ModelProto, path: str | os.PathLike[str], *, align: int = 64) -> None:
    """Write ``model`` to ``path`` as a zip container, atomically.

    Every tensor with numeric data becomes a stored entry whose data starts at a
    multiple of ``align`` (a power of two, 1 to 32768); ``__MODEL_PROTO`` comes last.
    Payloads are streamed from their buffers or maps: the model is never held in memory
    as a whole. The caller's model is not modified; a tensor still referring to an
    external file is an :class:`~wirecodec.ExternalDataError`.
    """
    if not 1 <= align <= 1 << 15 or align & (align - 1):
        raise ValueError(f"align must be a power of two from 1 to 32768, got {align}")
    plan = plan_entries(model)
    proto = encode(plan.model)
    with AtomicFiles() as group:
        with group.open(path) as out, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
            for name, payload in plan.payloads:
                _write_entry(archive, out, name, payload, align)
            _write_entry(archive, out, MODEL_ENTRY, memoryview(proto), 1)
        group.commit()


def _padding(data_offset: int, align: int) -> bytes:
    """The extra field that moves data starting at ``data_offset`` to a multiple of ``align``."""
    pad = -data_offset % align
    if pad == 0:
        return b""
    while pad < _PADDING_MIN:
        pad += align
    return (
        _PADDING_ID.to_bytes(2, "little")
        + (pad - 4).to_bytes(2, "little")
        + align.to_bytes(2, "little")
        + bytes(pad - _PADDING_MIN)
    )


def _write_entry(archive: zipfile.ZipFile, out: IO[bytes], name: str, payload: memoryview, align: int) -> None:
    """One stored entry through zipfile, its data aligned by padding its local header."""
    info = zipfile.ZipInfo(name)  # dated 1980-01-01: the same model gives the same bytes
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3  # Unix, so that external_attr holds permissions on every platform
    info.external_attr = 0o644 << 16
    info.file_size = size = payload.nbytes
    # zipfile's own rule for a ZIP64 local header, forced so that we know the header's size.
    zip64 = size * 1.05 > zipfile.ZIP64_LIMIT
    start = out.tell()
    header = _LOCAL_HEADER + len(name.encode("utf-8")) + (_ZIP64_LOCAL_EXTRA if zip64 else 0)
    info.extra = _padding(start + header, align)
    with archive.open(info, "w", force_zip64=zip64) as entry:
        for begin in range(0, size, _CHUNK):
            entry.write(payload[begin : begin + _CHUNK])
    data_offset = start + header + len(info.extra)
    if out.tell() != data_offset + size or data_offset % align:
        raise EncodeError(f"entry {name!r}: zipfile did not lay out the local header as planned")
    # The padding belongs in the local header only; the central directory stays compact.
    info.extra = b""


# -- reading ------------------------------------------------------------------------------------


def _map(file: IO[bytes], lazy: bool) -> memoryview:
    """A read-only view of the whole file: a map of it, or (not lazy) a copy in memory."""
    info = os.fstat(file.fileno())
    if info.st_size == 0:
        raise ContainerError("the file is empty: a zip archive has at least 22 bytes")
    if lazy:
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    else:
        # Anonymous memory rather than bytes so replace_model can still recognise the views.
        mapped = mmap.mmap(-1, info.st_size)
        file.seek(0)
        if file.readinto(mapped) != info.st_size:  # type: ignore[attr-defined]
            raise ContainerError("the file changed size while it was read")
    _ARCHIVE_MAPS[mapped] = (info.st_dev, info.st_ino)
    return memoryview(mapped).toreadonly()


def _is_regular(file: Any) -> bool:
    try:
        return stat.S_ISREG(os.fstat(file.fileno()).st_mode)
    except (OSError, AttributeError, ValueError):
        return False


def _open(source: Source, lazy: bool) -> memoryview:
    if isinstance(source, (str, os.PathLike)):
        with pathlib.Path(source).open("rb") as file:
            return _map(file, lazy)
    if isinstance(source, (bytes, bytearray, memoryview, mmap.mmap)):
        view = memoryview(source)
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view.toreadonly()
    if hasattr(source, "read"):
        if _is_regular(source):
            return _map(source, lazy)
        return memoryview(source.read()).toreadonly()
    raise TypeError(f"load_zip needs a path, a binary file or bytes, got {type(source).__name__}")


def archive_file_of(data: Any) -> tuple[int, int] | None:
    """(device, inode) of the archive a view returned by :func:`load_zip` maps, else None."""
    owner = data.obj if isinstance(data, memoryview) else None
    return _ARCHIVE_MAPS.get(owner) if isinstance(owner, mmap.mmap) else None


def load_zip(
    source: Source,
    *,
    lazy: bool = True,
    load_external_data: bool = True,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> ModelProto:
    """Open a zip container: check it, decode ``__MODEL_PROTO``, give tensors their entries.

    The archive is mapped once (``lazy=False``: read into memory once) and checked
    whole before anything is decoded: offsets, sizes, names, methods, overlaps (see
    :func:`wirecodec.files.zip_records.read_archive`). Each tensor that refers to an
    entry then gets a read-only view of the entry as ``raw_data``, as :func:`wirecodec.load`
    does for external data (``load_external_data=False`` keeps the references).
    ``__MODEL_PROTO`` itself is copied out and checked against its CRC: it is small,
    and the model then never depends on bytes :func:`replace_model` rewrites.
    Every problem is a :class:`~wirecodec.ContainerError` naming the entry or tensor.
    """
    buffer = _open(source, lazy)
    archive = read_archive(buffer)
    entry = archive.by_name[MODEL_ENTRY]
    proto = bytes(buffer[entry.data_offset : entry.data_end])
    if zlib.crc32(proto) != entry.crc:
        raise ContainerError(f"entry {MODEL_ENTRY!r}: its bytes do not match their CRC-32 (corrupt archive)")
    try:
        model = decode(ModelProto, proto, lazy=lazy, max_depth=max_depth)
    except DecodeError as exc:
        raise ContainerError(f"entry {MODEL_ENTRY!r}: not a valid ModelProto: {exc}") from exc
    if load_external_data:
        _resolve_entries(model, buffer, archive)
    return model


def _entry_view(tensor: TensorProto, buffer: memoryview, archive: Archive) -> memoryview:
    label = f"tensor {tensor.name!r}" if tensor.name else "an unnamed tensor"
    ref = parse_ref(tensor)
    entry: Entry | None = archive.by_name.get(ref.location)
    if entry is None or entry.name == MODEL_ENTRY:
        raise ContainerError(f"{label} refers to entry {ref.location!r}, which the archive does not hold")
    end = entry.size if ref.length is None else ref.offset + ref.length
    if ref.offset > entry.size or end > entry.size:
        raise ContainerError(
            f"{label}: bytes {ref.offset} to {end} of entry {entry.name!r} lie past its end ({entry.size} bytes)"
        )
    return buffer[entry.data_offset + ref.offset : entry.data_offset + end]


def _resolve_entries(model: ModelProto, buffer: memoryview, archive: Archive) -> None:
    # Every reference is checked before any tensor changes.
    views = [
        (tensor, _entry_view(tensor, buffer, archive)) for tensor in iter_tensors(model) if uses_external_data(tensor)
    ]
    for tensor, view in views:
        tensor.raw_data = view
        tensor.data_location = int(TensorProto.DataLocation.DEFAULT)
        tensor.ClearField("external_data")
