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

import importlib
import os
import zlib
from typing import IO, TYPE_CHECKING, Any, Final

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ContainerError, DecodeError, EncodeError
from wirecodec.files.base.references import label_of, parse_ref, uses_external_data
from wirecodec.files.base.source import Source, is_zip
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.zip.buffers import open_buffer
from wirecodec.files.zip.records import MODEL_ENTRY, Archive, Entry, read_archive
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, encode
from wirecodec.protobuf.lazy import PendingBytes
from wirecodec.protobuf.payloads import release

if TYPE_CHECKING:
    import zipfile

    from wirecodec.files.remote.source import RemoteOptions
    from wirecodec.files.zip.replace import replace_model

# Every load() asks is_zip(), and reading a container needs only zip_records: the writing
# side (zipfile and the compression modules it pulls in, the layout planner, the rewriter)
# is imported by the calls that write, so that opening a model does not pay for it.

__all__ = ["MODEL_ENTRY", "entry_range", "is_zip", "load_zip", "open_zip", "replace_model", "save_zip"]


if not TYPE_CHECKING:  # hidden from type checkers, which would take any name for Any

    def __getattr__(name: str) -> Any:
        """``replace_model`` lives in :mod:`wirecodec.files.zip.replace`, imported when first asked for."""
        if name == "replace_model":
            return importlib.import_module("wirecodec.files.zip.replace").replace_model
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# A local header starts "PK\3\4", an empty archive "PK\5\6". No ModelProto encoding can
# start with either: 0x50 is field 10 as a varint, then 0x03 or 0x05 would be a tag
# with field number 0, which protobuf forbids. So the first four bytes decide.
_CHUNK: Final = 64 << 20  # payloads go to zipfile in slices of this size
# An aligned entry's padding is one well-formed extra record, id 0xD935 (the id Android's
# apksigner uses for alignment padding): 2-byte id, 2-byte size, 2-byte alignment, zeros.
_PADDING_ID: Final = 0xD935
_PADDING_MIN: Final = 6
_LOCAL_HEADER: Final = 30
_ZIP64_LOCAL_EXTRA: Final = 20  # what zipfile adds to a ZIP64 entry's local header


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
    import zipfile

    from wirecodec.files.base.atomic import AtomicFiles
    from wirecodec.files.zip.layout import plan_entries

    plan = plan_entries(model)
    proto = encode(plan.model)
    with AtomicFiles() as group:
        with group.open(path) as out, zipfile.ZipFile(out, "w", allowZip64=True) as archive:
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


def _write_entry(
    archive: zipfile.ZipFile, out: IO[bytes], name: str, payload: memoryview | PendingBytes, align: int
) -> None:
    """One stored entry through zipfile, its data aligned by padding its local header. A
    payload still waiting to be fetched is fetched now and dropped once written."""
    import zipfile

    data: memoryview = payload.load() if isinstance(payload, PendingBytes) else payload

    info = zipfile.ZipInfo(name)  # dated 1980-01-01: the same model gives the same bytes
    info.compress_type = zipfile.ZIP_STORED
    info.create_system = 3  # Unix, so that external_attr holds permissions on every platform
    info.external_attr = 0o644 << 16
    info.file_size = size = data.nbytes
    # zipfile's own rule for a ZIP64 local header, forced so that we know the header's size.
    zip64 = size * 1.05 > zipfile.ZIP64_LIMIT
    start = out.tell()
    header = _LOCAL_HEADER + len(name.encode("utf-8")) + (_ZIP64_LOCAL_EXTRA if zip64 else 0)
    info.extra = _padding(start + header, align)
    with archive.open(info, "w", force_zip64=zip64) as entry:
        for begin in range(0, size, _CHUNK):
            window = data[begin : begin + _CHUNK]
            entry.write(window)
            release(window)  # a mapped payload's pages, once written, leave this process
    data_offset = start + header + len(info.extra)
    if out.tell() != data_offset + size or data_offset % align:
        raise EncodeError(f"entry {name!r}: zipfile did not lay out the local header as planned")
    # The padding belongs in the local header only; the central directory stays compact.
    info.extra = b""


# -- reading ------------------------------------------------------------------------------------


def load_zip(
    source: Source,
    *,
    lazy: bool = True,
    load_external_data: bool = True,
    max_depth: int = DEFAULT_MAX_DEPTH,
    remote: RemoteOptions | None = None,
) -> ModelProto:
    """Open a zip container: check it, decode ``__MODEL_PROTO``, give tensors their entries.

    ``source`` is what :func:`wirecodec.load` takes: a path, a binary file, bytes, ``-``
    (standard input) or a URL (``remote``: its options); a pipe or a URL is copied to a
    temporary file first, a piece at a time (the archive's directory is at its end).

    The archive is mapped once (``lazy=False``: read into memory once) and checked
    whole before anything is decoded: offsets, sizes, names, methods, overlaps (see
    :func:`wirecodec.files.zip.records.read_archive`). Each tensor that refers to an
    entry then gets a read-only view of the entry as ``raw_data``, as :func:`wirecodec.load`
    does for external data, and loses its ``data_location`` and ``external_data``
    (``load_external_data=False`` keeps the references).
    ``__MODEL_PROTO`` itself is copied out and checked against its CRC: it is small,
    and the model then never depends on bytes :func:`replace_model` rewrites.
    Every problem is a :class:`~wirecodec.ContainerError` naming the entry or tensor.
    """
    model, buffer, archive = open_zip(source, lazy=lazy, max_depth=max_depth, remote=remote)
    if load_external_data:
        # Imported here: zip.data builds on this module (entry_range).
        from wirecodec.files.zip.data import ZipData

        external = [tensor for tensor in iter_tensors(model) if uses_external_data(tensor)]
        ZipData(buffer, archive).resolve_all(external)
    return model


def open_zip(
    source: Source,
    *,
    lazy: bool = True,
    max_depth: int = DEFAULT_MAX_DEPTH,
    remote: RemoteOptions | None = None,
) -> tuple[ModelProto, memoryview, Archive]:
    """The container's model with its references to entries left in place, the archive's
    buffer and its checked directory (what :func:`load_zip` and the opener build on)."""
    buffer = open_buffer(source, lazy, remote)
    archive = read_archive(buffer)
    entry = archive.by_name[MODEL_ENTRY]
    proto = bytes(buffer[entry.data_offset : entry.data_end])
    if zlib.crc32(proto) != entry.crc:
        raise ContainerError(f"entry {MODEL_ENTRY!r}: its bytes do not match their CRC-32 (corrupt archive)")
    try:
        model = decode(ModelProto, proto, lazy=lazy, max_depth=max_depth)
    except DecodeError as exc:
        raise ContainerError(f"entry {MODEL_ENTRY!r}: not a valid ModelProto: {exc}") from exc
    return model, buffer, archive


def held_entry(archive: Archive, location: str, tensor: TensorProto) -> Entry:
    """The entry a tensor's reference names; never ``__MODEL_PROTO`` (the model is not data)."""
    entry: Entry | None = archive.by_name.get(location)
    if entry is None or entry.name == MODEL_ENTRY:
        held = "which the archive does not hold"
        raise ContainerError(f"{label_of(tensor)} refers to entry {location!r}, {held}")
    return entry


def entry_range(tensor: TensorProto, archive: Archive) -> tuple[int, int]:
    """Where in the archive the bytes of a tensor that refers to an entry lie: (start, end)."""
    label = label_of(tensor)
    ref = parse_ref(tensor)
    entry = held_entry(archive, ref.location, tensor)
    end = entry.size if ref.length is None else ref.offset + ref.length
    if ref.offset > entry.size or end > entry.size:
        raise ContainerError(
            f"{label}: bytes {ref.offset} to {end} of entry {entry.name!r} lie past its end "
            f"({entry.size} bytes)"
        )
    return entry.data_offset + ref.offset, entry.data_offset + end
