"""The zip records of the model container (PKWARE APPNOTE.TXT), read without trusting them.

:func:`read_archive` parses and checks the end records (ZIP64 included), the central
directory and every local header of an archive held in a buffer (a read-only map or
bytes), and returns where each entry's data lies. Every offset and size is checked
against the buffer and against the other records before it is used; anything wrong is
a :class:`~wirecodec.errors.ContainerError` naming the entry (or the record, before
the entry has a name).

Why not :mod:`zipfile` for reading: it trusts the archive where we must not. It
silently shifts every offset when the directory is not where the end record says
(prepended data), accepts duplicate names and overlapping entries, leaves local
headers unchecked until an entry is opened, reads entries through a file object
(we want views of one map, no copies), and raises a mix of exception types on bad
input. Writing, where the archive is ours, goes through :mod:`zipfile`
(see :mod:`wirecodec.files.zip.container`).
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass, field
from typing import Any, Final

from wirecodec.errors import ContainerError

__all__ = ["MODEL_ENTRY", "Archive", "Entry", "check_entry_name", "read_archive"]

MODEL_ENTRY: Final = "__MODEL_PROTO"

LOCAL_SIGNATURE: Final = 0x04034B50
CENTRAL_SIGNATURE: Final = 0x02014B50
END_SIGNATURE: Final = 0x06054B50
END64_SIGNATURE: Final = 0x06064B50
LOCATOR64_SIGNATURE: Final = 0x07064B50

# Fixed parts, little-endian, in APPNOTE order (section 4.3).
LOCAL_FIXED: Final = struct.Struct("<IHHHHHIIIHH")  # 30 bytes, then name, extra
CENTRAL_FIXED: Final = struct.Struct("<IHHHHHHIIIHHHHHII")  # 46 bytes, then name, extra, comment
END_FIXED: Final = struct.Struct("<IHHHHIIH")  # 22 bytes, then the archive comment
LOCATOR64: Final = struct.Struct("<IIQI")  # 20 bytes, just before the end record
END64_FIXED: Final = struct.Struct("<IQHHIIQQQQ")  # 56 bytes (12 + the 44 its size field counts)

_EXTRA_HEADER: Final = struct.Struct("<HH")
ZIP64_EXTRA_ID: Final = 0x0001
U16_MAX: Final = 0xFFFF
U32_MAX: Final = 0xFFFFFFFF
_MAX_COMMENT: Final = 0xFFFF

# General purpose flag bits (APPNOTE 4.4.4).
_FLAG_ENCRYPTED: Final = 1 << 0
_FLAG_DATA_DESCRIPTOR: Final = 1 << 3
_FLAG_STRONG_ENCRYPTION: Final = 1 << 6
_FLAG_UTF8: Final = 1 << 11
_FLAG_MASKED_HEADERS: Final = 1 << 13  # central directory encryption
_ANY_ENCRYPTION: Final = _FLAG_ENCRYPTED | _FLAG_STRONG_ENCRYPTION | _FLAG_MASKED_HEADERS
STORED: Final = 0


@dataclass(frozen=True)
class Entry:
    """One checked entry: its data is ``buffer[data_offset : data_offset + size]``."""

    name: str
    header_offset: int
    data_offset: int
    size: int
    crc: int
    central_record: bytes  # the entry's central directory record, verbatim
    descriptor: bool = False  # a data descriptor (up to 24 bytes) follows the data

    @property
    def data_end(self) -> int:
        return self.data_offset + self.size


@dataclass
class Archive:
    """The checked layout of an archive: entries in central directory order."""

    entries: list[Entry]
    directory_offset: int  # where the central directory starts: every entry ends before it
    comment: bytes
    by_name: dict[str, Entry] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_name = {entry.name: entry for entry in self.entries}


def check_entry_name(name: str, where: str) -> None:
    """Entry names are keys, never paths: no separators, no ``..``, no NUL, not empty."""
    if not name:
        raise ContainerError(f"{where}: the entry name is empty")
    for bad, what in (("/", "a path separator"), ("\\", "a path separator"), ("..", "'..'"), ("\x00", "NUL")):
        if bad in name:
            raise ContainerError(f"entry {name!r}: its name contains {what}; entry names must be plain names")


def _unpack(layout: struct.Struct, buffer: Any, offset: int, limit: int, what: str) -> tuple[int, ...]:
    """``layout`` at ``offset``, after checking it fits below ``limit``."""
    if offset < 0 or offset + layout.size > limit:
        raise ContainerError(
            f"{what}: {layout.size} bytes at offset {offset} run past {limit} (the archive is truncated "
            "or an offset lies)"
        )
    return layout.unpack_from(buffer, offset)


def _find_end(buffer: Any, size: int) -> tuple[int, tuple[int, ...]]:
    """The end of central directory record: the last one whose comment reaches the end."""
    if size < END_FIXED.size:
        raise ContainerError(f"a zip archive has at least {END_FIXED.size} bytes, this one {size}: truncated")
    start = max(0, size - END_FIXED.size - _MAX_COMMENT)
    tail = bytes(buffer[start:size])  # at most 64 KiB
    signature = END_SIGNATURE.to_bytes(4, "little")
    position = tail.rfind(signature)
    while position >= 0:
        if position + END_FIXED.size <= len(tail):
            record = END_FIXED.unpack_from(tail, position)
            if position + END_FIXED.size + record[7] == len(tail):
                return start + position, record
        position = tail.rfind(signature, 0, position)
    raise ContainerError("no end of central directory record: not a zip archive, or a truncated one")


@dataclass(frozen=True)
class _Directory:
    offset: int
    size: int
    count: int
    end: int  # where the records after the directory start
    comment: bytes


def _read_directory_bounds(buffer: Any, size: int) -> _Directory:
    end_offset, (_, disk, directory_disk, on_disk, count, directory_size, directory_offset, comment_size) = (
        _find_end(buffer, size)
    )
    comment = bytes(buffer[end_offset + END_FIXED.size : end_offset + END_FIXED.size + comment_size])
    directory_end = end_offset
    locator_offset = end_offset - LOCATOR64.size
    if locator_offset >= 0 and LOCATOR64.unpack_from(buffer, locator_offset)[0] == LOCATOR64_SIGNATURE:
        _, end64_disk, end64_offset, disks = LOCATOR64.unpack_from(buffer, locator_offset)
        if end64_disk != 0 or disks > 1:
            raise ContainerError(f"the archive spans {disks} disks; only single-file archives are read")
        record = _unpack(END64_FIXED, buffer, end64_offset, locator_offset, "the ZIP64 end record")
        (signature, record_size, _, _, disk, directory_disk, on_disk, count, directory_size,
         directory_offset) = record  # fmt: skip
        if signature != END64_SIGNATURE:
            raise ContainerError(
                f"the ZIP64 locator points at offset {end64_offset}, where no ZIP64 end record is"
            )
        if record_size < END64_FIXED.size - 12 or end64_offset + 12 + record_size != locator_offset:
            raise ContainerError(
                f"the ZIP64 end record at offset {end64_offset} says it has {record_size} bytes after its "
                f"first 12, but the locator follows at offset {locator_offset}"
            )
        directory_end = end64_offset
    if disk != 0 or directory_disk != 0 or on_disk != count:
        raise ContainerError("the archive spans several disks; only single-file archives are read")
    if directory_offset + directory_size != directory_end:
        raise ContainerError(
            f"the central directory lies: it is said to start at offset {directory_offset} with "
            f"{directory_size} bytes, but the end records start at offset {directory_end}"
        )
    if count * CENTRAL_FIXED.size > directory_size:
        raise ContainerError(
            f"the central directory claims {count} entries, more than its {directory_size} bytes can hold"
        )
    return _Directory(directory_offset, directory_size, count, directory_end, comment)


def _extra_fields(extra: bytes, where: str) -> dict[int, bytes]:
    """The extra field's records by id. Fewer than 4 trailing bytes are padding, as
    zipalign leaves them; a record running past the field is an error."""
    records: dict[int, bytes] = {}
    position = 0
    while position + _EXTRA_HEADER.size <= len(extra):
        tag, length = _EXTRA_HEADER.unpack_from(extra, position)
        start = position + _EXTRA_HEADER.size
        if start + length > len(extra):
            raise ContainerError(f"{where}: extra field record 0x{tag:04x} runs past the extra field")
        records.setdefault(tag, extra[start : start + length])
        position = start + length
    return records


def _zip64_values(extra: bytes, wanted: list[tuple[str, int]], where: str) -> dict[str, int]:
    """Replace each 0xFFFFFFFF placeholder in ``wanted`` (name, size in bytes) by its ZIP64 value."""
    if not wanted:
        return {}
    data = _extra_fields(extra, where).get(ZIP64_EXTRA_ID)
    needed = sum(width for _, width in wanted)
    if data is None or len(data) < needed:
        raise ContainerError(
            f"{where}: {', '.join(name for name, _ in wanted)} need a ZIP64 extra field of {needed} bytes, "
            f"found {0 if data is None else len(data)}"
        )
    values: dict[str, int] = {}
    position = 0
    for name, width in wanted:
        values[name] = int.from_bytes(data[position : position + width], "little")
        position += width
    return values


def _decode_name(raw: bytes, flags: int, where: str) -> str:
    if flags & _FLAG_UTF8:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ContainerError(f"{where}: the entry name is flagged UTF-8 but is not") from None
    return raw.decode("cp437")  # APPNOTE appendix D: the default encoding; every byte decodes


def _read_central_record(buffer: Any, offset: int, directory: _Directory, index: int) -> tuple[Entry, int]:
    """One central directory record at ``offset`` and its local header; returns the entry
    and the offset of the next record."""
    where = f"central directory record {index} (offset {offset})"
    fields = _unpack(CENTRAL_FIXED, buffer, offset, directory.end, where)
    (signature, _, _, flags, method, _, _, crc, packed_size, size, name_size, extra_size, comment_size,
     disk, _, _, header_offset) = fields  # fmt: skip
    if signature != CENTRAL_SIGNATURE:
        raise ContainerError(f"{where}: no central directory signature there")
    end = offset + CENTRAL_FIXED.size + name_size + extra_size + comment_size
    if end > directory.end:
        raise ContainerError(f"{where}: its name, extra field and comment run past the central directory")
    name_start = offset + CENTRAL_FIXED.size
    raw_name = bytes(buffer[name_start : name_start + name_size])
    name = _decode_name(raw_name, flags, where)
    check_entry_name(name, where)
    label = f"entry {name!r}"
    extra = bytes(buffer[name_start + name_size : name_start + name_size + extra_size])
    # Checked whole even when no ZIP64 value is needed: zipfile refuses a malformed extra
    # field, and an archive two readers see differently is one we do not open.
    _extra_fields(extra, label)
    placeholders = (("size", size), ("packed_size", packed_size), ("offset", header_offset))
    wanted = [(n, 8) for n, v in placeholders if v == U32_MAX]
    if disk == U16_MAX:
        wanted.append(("disk", 4))
    big = _zip64_values(extra, wanted, label)
    size, packed_size = big.get("size", size), big.get("packed_size", packed_size)
    header_offset, disk = big.get("offset", header_offset), big.get("disk", disk)
    if flags & _ANY_ENCRYPTION:
        raise ContainerError(f"{label} is encrypted; the container stores entries in the clear")
    if method != STORED:
        raise ContainerError(
            f"{label} is compressed (method {method}); the container stores entries uncompressed"
        )
    if packed_size != size:
        raise ContainerError(f"{label}: stored, yet its stored size {packed_size} is not its size {size}")
    if disk != 0:
        raise ContainerError(f"{label} starts on disk {disk}; only single-file archives are read")
    data_offset = _check_local_header(buffer, header_offset, raw_name, flags, crc, size, directory, label)
    record = bytes(buffer[offset:end])
    descriptor = bool(flags & _FLAG_DATA_DESCRIPTOR)
    return Entry(name, header_offset, data_offset, size, crc, record, descriptor), end


def _check_local_header(
    buffer: Any,
    offset: int,
    raw_name: bytes,
    central_flags: int,
    crc: int,
    size: int,
    directory: _Directory,
    label: str,
) -> int:
    """Check the local header at ``offset`` agrees with the central record; the data's offset."""
    fields = _unpack(LOCAL_FIXED, buffer, offset, directory.offset, f"{label}: its local header")
    (signature, _, flags, method, _, _, local_crc, local_packed, local_size, local_name_size,
     extra_size) = fields  # fmt: skip
    if signature != LOCAL_SIGNATURE:
        raise ContainerError(f"{label}: no local header at offset {offset}, where the directory puts it")
    name_start = offset + LOCAL_FIXED.size
    data_offset = name_start + local_name_size + extra_size
    if data_offset > directory.offset:
        raise ContainerError(f"{label}: its local header runs into the central directory")
    if bytes(buffer[name_start : name_start + local_name_size]) != raw_name:
        raise ContainerError(f"{label}: the local header names a different entry")
    if flags & _ANY_ENCRYPTION or method != STORED:
        raise ContainerError(f"{label}: its local header says encrypted or compressed (method {method})")
    if data_offset + size > directory.offset:
        raise ContainerError(
            f"{label}: its {size} bytes at offset {data_offset} run into the central directory "
            f"(offset {directory.offset})"
        )
    extra = bytes(buffer[name_start + local_name_size : data_offset])
    _extra_fields(extra, f"{label}: its local header")
    if not flags & _FLAG_DATA_DESCRIPTOR and not central_flags & _FLAG_DATA_DESCRIPTOR:
        wanted = [(n, 8) for n, v in (("size", local_size), ("packed_size", local_packed)) if v == U32_MAX]
        big = _zip64_values(extra, wanted, f"{label}: its local header")
        local_size, local_packed = big.get("size", local_size), big.get("packed_size", local_packed)
        if local_crc != crc or local_size != size or local_packed != size:
            raise ContainerError(
                f"{label}: the local header (size {local_size}, crc {local_crc:08x}) disagrees with the "
                f"central directory (size {size}, crc {crc:08x})"
            )
    return data_offset


def _check_disjoint(entries: list[Entry]) -> None:
    ordered = sorted(entries, key=lambda e: e.header_offset)
    for before, after in itertools.pairwise(ordered):
        if before.data_end > after.header_offset:
            raise ContainerError(
                f"entry {after.name!r} (offset {after.header_offset}) overlaps entry {before.name!r} "
                f"(offset {before.header_offset}, data up to {before.data_end})"
            )


def _check_unique(entries: list[Entry]) -> None:
    seen: dict[str, str] = {}
    for entry in entries:
        key = entry.name.lower()
        other = seen.get(key)
        if other == entry.name:
            raise ContainerError(f"entry {entry.name!r} appears twice in the central directory")
        if other is not None:
            raise ContainerError(
                f"entries {other!r} and {entry.name!r} differ only in case; "
                "names must be unique when down-cased"
            )
        seen[key] = entry.name


def read_archive(buffer: Any) -> Archive:
    """Parse and check the archive in ``buffer`` (anything sliceable to bytes: mmap,
    bytes, memoryview). Raises :class:`ContainerError` naming what is wrong."""
    size = len(buffer)
    directory = _read_directory_bounds(buffer, size)
    entries: list[Entry] = []
    offset = directory.offset
    for index in range(directory.count):
        entry, offset = _read_central_record(buffer, offset, directory, index)
        entries.append(entry)
    if offset != directory.end:
        raise ContainerError(
            f"the central directory holds {directory.end - offset} bytes after its {directory.count} records"
        )
    _check_unique(entries)
    _check_disjoint(entries)
    if MODEL_ENTRY not in {entry.name for entry in entries}:
        raise ContainerError(f"the archive has no {MODEL_ENTRY} entry: it is not a model container")
    return Archive(entries, directory.offset, directory.comment)
