"""``replace_model``: a new ``__MODEL_PROTO`` for a zip container, the weights left where they are.

Only the tail of the archive changes: the ``__MODEL_PROTO`` entry, the central directory
and the end records. Tensor entries keep their offsets and bytes, so maps of them stay
valid. The file is rewritten in place, in an order that keeps a complete archive on disk
from the moment the first write is synced:

1. the new tail (model entry, directory, end records) is appended at the end, or
   further on if the final tail (step 2) would reach it (the gap is dead space no
   entry covers), and synced: the file is now the new archive;
2. the final tail is written right after the last weight, over the old tail, and
   synced; the appended copy still ends the file, so the archive stays valid meanwhile;
3. the file is truncated after the final tail and synced.

So the file ends up exactly as long as the weights plus the new tail, and the size
changes by as much as the model (and its directory record) does. The one window: a
power loss before step 1's write reaches the disk can leave a partial tail after the
old archive, which ``load_zip`` refuses (no end record at the end of the file); the old
archive is intact as the file's prefix. A process that dies between the steps leaves a
valid archive.

Why not :mod:`zipfile`'s append mode: it cannot drop an entry, writes its directory
only where the last entry ended, and cannot sync between writing the directory and
truncating; so the few records of the tail are written here.
"""

from __future__ import annotations

import bisect
import mmap
import os
import zlib
from typing import IO, Final

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ContainerError
from wirecodec.files.base.references import as_reference, parse_ref, uses_external_data
from wirecodec.files.base.walk import ByIdentity, iter_tensors, substitute
from wirecodec.files.zip.buffers import archive_file_of
from wirecodec.files.zip.records import (
    CENTRAL_FIXED,
    CENTRAL_SIGNATURE,
    END64_FIXED,
    END64_SIGNATURE,
    END_FIXED,
    END_SIGNATURE,
    LOCAL_FIXED,
    LOCAL_SIGNATURE,
    LOCATOR64,
    LOCATOR64_SIGNATURE,
    MODEL_ENTRY,
    U16_MAX,
    U32_MAX,
    ZIP64_EXTRA_ID,
    Archive,
    Entry,
    read_archive,
)
from wirecodec.protobuf.codec import encode
from wirecodec.protobuf.payloads import address, read_only_map

__all__ = ["replace_model"]

_DOS_DATE_1980: Final = (0 << 9) | (1 << 5) | 1  # 1980-01-01, as zipfile dates entries by default
_VERSION: Final = 20  # 2.0: stored entries
_VERSION_ZIP64: Final = 45  # 4.5: ZIP64 records
_UNIX_MADE_BY: Final = 3 << 8
_DESCRIPTOR_MAX: Final = 24  # signature, CRC and two 8-byte sizes after an entry's data


def replace_model(path: str | os.PathLike[str], model: ModelProto) -> None:
    """Make ``model`` the ``__MODEL_PROTO`` of the container at ``path``; move no weights.

    The model's tensors keep or regain their entries: a tensor referring to an entry
    by name (``data_location = EXTERNAL``, ``location`` = the entry) stays so, and a
    tensor whose ``raw_data`` is a view of this very file made by ``load_zip`` refers
    to that entry again. Any other tensor data is written inline in the model (use
    ``save_zip`` to lay out new weights). Entries no tensor refers to are kept.
    Models loaded lazily from ``path`` stay valid: they hold views of the tensor
    entries only, which do not move.
    """
    with open(path, "r+b") as file:
        info = os.fstat(file.fileno())
        if info.st_size == 0:
            raise ContainerError("the file is empty: a zip archive has at least 22 bytes")
        mapped = read_only_map(file.fileno())  # a copy where maps fail
        try:
            archive = read_archive(mapped)
            proto = encode(_referencing(model, archive, mapped, (info.st_dev, info.st_ino)))
        finally:
            mapped.close()
        kept = [entry for entry in archive.entries if entry.name != MODEL_ENTRY]
        weights_end = max((e.data_end + (_DESCRIPTOR_MAX if e.descriptor else 0) for e in kept), default=0)
        tail = _TailWriter(proto, kept, archive.comment)
        final = tail(weights_end)
        # Far enough that writing the final tail cannot touch the appended one.
        spare = max(info.st_size, weights_end + len(final))
        _write_synced(file, spare, tail(spare))
        _write_synced(file, weights_end, final)
        file.truncate(weights_end + len(final))
        os.fsync(file.fileno())


def _write_synced(file: IO[bytes], offset: int, data: bytes) -> None:
    file.seek(offset)
    file.write(data)
    file.flush()
    os.fsync(file.fileno())


def _referencing(
    model: ModelProto, archive: Archive, mapped: mmap.mmap, file_id: tuple[int, int]
) -> ModelProto:
    """``model`` with every tensor that is (a part of) an entry of this archive referring to it."""
    kept = sorted((e for e in archive.entries if e.name != MODEL_ENTRY), key=lambda e: e.data_offset)
    starts = [entry.data_offset for entry in kept]
    whole = memoryview(mapped)
    bases: dict[int, int] = {}  # id of a buffer -> its address
    replacements: ByIdentity[TensorProto] = ByIdentity()
    try:
        for tensor in iter_tensors(model):
            if uses_external_data(tensor):
                _check_reference(tensor, archive)
                continue
            origin = archive_file_of(tensor.raw_data) if tensor.HasField("raw_data") else None
            if origin is None or (origin.device, origin.inode) != file_id:
                continue
            view = memoryview(tensor.raw_data)
            found = _containing(kept, starts, view, bases)
            if found is None:
                continue
            entry, offset = found
            start = entry.data_offset + offset
            # A copy (load_zip(lazy=False)) does not pin the file: compare its bytes.
            stored = whole[start : start + view.nbytes]
            if origin.mapped or stored == view.cast("B"):
                replacements[tensor] = as_reference(tensor, entry.name, offset, view.nbytes)
    finally:
        whole.release()  # lets the caller close the map
    new_model = substitute(model, replacements)
    assert isinstance(new_model, ModelProto)
    return new_model


def _check_reference(tensor: TensorProto, archive: Archive) -> None:
    ref = parse_ref(tensor)
    entry = archive.by_name.get(ref.location)
    end = ref.offset + (0 if ref.length is None else ref.length)
    if entry is None or entry.name == MODEL_ENTRY or end > entry.size:
        label = f"tensor {tensor.name!r}" if tensor.name else "an unnamed tensor"
        raise ContainerError(f"{label} refers to entry {ref.location!r}, which the archive does not hold")


def _containing(
    kept: list[Entry], starts: list[int], view: memoryview, bases: dict[int, int]
) -> tuple[Entry, int] | None:
    """The entry ``view`` (a view of a buffer holding the archive) lies in, and where in it."""
    if view.nbytes == 0:
        return None
    base = bases.get(id(view.obj))
    if base is None:
        base = bases[id(view.obj)] = address(view.obj)
    position = address(view) - base
    index = bisect.bisect_right(starts, position) - 1
    if index < 0 or position + view.nbytes > kept[index].data_end:
        return None
    return kept[index], position - kept[index].data_offset


# -- the records of the new tail ----------------------------------------------------------------


def _zip64_extra(values: list[int]) -> bytes:
    if not values:
        return b""
    body = b"".join(v.to_bytes(8, "little") for v in values)
    return ZIP64_EXTRA_ID.to_bytes(2, "little") + len(body).to_bytes(2, "little") + body


class _TailWriter:
    """The bytes of the archive's tail when it starts at a given offset."""

    def __init__(self, proto: bytes, kept: list[Entry], comment: bytes) -> None:
        self.proto = proto
        self.crc = zlib.crc32(proto)
        self.directory = b"".join(entry.central_record for entry in kept)  # offsets unchanged
        self.count = len(kept) + 1
        self.comment = comment

    def __call__(self, start: int) -> bytes:
        name = MODEL_ENTRY.encode("ascii")
        size = len(self.proto)
        big_size = size >= U32_MAX
        version = _VERSION_ZIP64 if big_size or start >= U32_MAX else _VERSION
        shown = U32_MAX if big_size else size
        local_extra = _zip64_extra([size, size] if big_size else [])
        local = LOCAL_FIXED.pack(
            LOCAL_SIGNATURE, version, 0, 0, 0, _DOS_DATE_1980, self.crc, shown, shown,
            len(name), len(local_extra),
        )  # fmt: skip
        sizes = [size, size] if big_size else []
        central_extra = _zip64_extra(sizes + ([start] if start >= U32_MAX else []))
        central = CENTRAL_FIXED.pack(
            CENTRAL_SIGNATURE, _UNIX_MADE_BY | version, version, 0, 0, 0, _DOS_DATE_1980, self.crc,
            shown, shown, len(name), len(central_extra), 0, 0, 0, 0o644 << 16, min(start, U32_MAX),
        )  # fmt: skip
        head = local + name + local_extra + self.proto
        directory = self.directory + central + name + central_extra
        directory_offset = start + len(head)
        return head + directory + self._end(directory_offset, len(directory))

    def _end(self, directory_offset: int, directory_size: int) -> bytes:
        count = self.count
        records = b""
        if count >= U16_MAX or directory_offset >= U32_MAX or directory_size >= U32_MAX:
            end64_offset = directory_offset + directory_size
            records += END64_FIXED.pack(
                END64_SIGNATURE, END64_FIXED.size - 12, _UNIX_MADE_BY | _VERSION_ZIP64, _VERSION_ZIP64, 0, 0,
                count, count, directory_size, directory_offset,
            )  # fmt: skip
            records += LOCATOR64.pack(LOCATOR64_SIGNATURE, 0, end64_offset, 1)
        records += END_FIXED.pack(
            END_SIGNATURE, 0, 0, min(count, U16_MAX), min(count, U16_MAX), min(directory_size, U32_MAX),
            min(directory_offset, U32_MAX), len(self.comment),
        )  # fmt: skip
        return records + self.comment
