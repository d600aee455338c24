"""Zip archives written record by record, for hostile-archive tests and the zip fuzzer.

Nothing here uses wirecodec's reader or writer: every record is packed from the field
layouts of PKWARE's APPNOTE (local header 4.3.7, central directory header 4.3.12, end
of central directory 4.3.16, ZIP64 end record and locator 4.3.14-15, ZIP64 extra field
4.5.3). A :class:`Member` says what an entry *should* be (name, data, stored); any
field of its local header or central record can be overridden by name, so a test
states exactly the one lie it wants the reader to meet.

>>> archive = Forge([Member(b"w", bytes(4)), Member(b"__MODEL_PROTO", b"")])
>>> import io, zipfile
>>> zipfile.ZipFile(io.BytesIO(archive.build())).namelist()
['w', '__MODEL_PROTO']
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field, replace

__all__ = [
    "CENTRAL_FIELDS",
    "END_FIELDS",
    "LOCAL_FIELDS",
    "Forge",
    "Member",
    "end_record",
    "zip64_extra",
]

LOCAL = struct.Struct("<IHHHHHIIIHH")
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
END = struct.Struct("<IHHHHIIH")
END64 = struct.Struct("<IQHHIIQQQQ")
LOCATOR64 = struct.Struct("<IIQI")

LOCAL_FIELDS = (
    "signature", "version", "flags", "method", "time", "date", "crc", "packed_size", "size",
    "name_size", "extra_size",
)  # fmt: skip
CENTRAL_FIELDS = (
    "signature", "made_by", "version", "flags", "method", "time", "date", "crc", "packed_size", "size",
    "name_size", "extra_size", "comment_size", "disk", "internal", "external", "offset",
)  # fmt: skip
END_FIELDS = (
    "signature", "disk", "directory_disk", "on_disk", "count", "directory_size", "directory_offset",
    "comment_size",
)  # fmt: skip

U32 = 0xFFFFFFFF


def zip64_extra(*values: int) -> bytes:
    """A ZIP64 extended information extra record (id 0x0001) holding ``values`` as 8-byte numbers."""
    body = b"".join(v.to_bytes(8, "little") for v in values)
    return struct.pack("<HH", 1, len(body)) + body


def end_record(entries: int, size: int, offset: int, comment: bytes = b"", **fields: int) -> bytes:
    """An end of central directory record; ``fields`` override any of :data:`END_FIELDS`."""
    values = dict(
        signature=0x06054B50, disk=0, directory_disk=0, on_disk=entries, count=entries,
        directory_size=size, directory_offset=offset, comment_size=len(comment),
    )  # fmt: skip
    values.update(fields)
    return END.pack(*(values[name] for name in END_FIELDS)) + comment


@dataclass
class Member:
    """One entry as written: what it should be, and the lies its records tell."""

    name: bytes
    data: bytes
    local: dict[str, int] = field(default_factory=dict)  # overrides of LOCAL_FIELDS
    central: dict[str, int] = field(default_factory=dict)  # overrides of CENTRAL_FIELDS
    local_name: bytes | None = None  # the name in the local header, when it differs
    local_extra: bytes = b""
    central_extra: bytes = b""
    comment: bytes = b""  # the central record's file comment
    before: bytes = b""  # bytes written just before the local header (a gap)
    zip64: bool = False  # sizes as 0xFFFFFFFF placeholders, real values in ZIP64 extras
    central_offset: int | None = None  # point the central record elsewhere (None: its own header)

    def with_data(self, data: bytes) -> Member:
        return replace(self, data=data)


@dataclass
class Forge:
    """An archive to build: members in file order, central records in ``order``."""

    members: list[Member]
    comment: bytes = b""
    order: list[int] | None = None  # central directory order (indexes of members); default file order
    extra_central: bytes = b""  # raw bytes appended to the central directory
    end: dict[str, int] = field(default_factory=dict)  # overrides of END_FIELDS
    zip64_end: bool = False  # write a ZIP64 end record and locator (with placeholders in the end record)
    end64: dict[str, int] = field(default_factory=dict)  # overrides of the ZIP64 end record's numbers
    trailing: bytes = b""

    def build(self) -> bytes:
        out = bytearray()
        offsets = []
        for member in self.members:
            out += member.before
            offsets.append(len(out))
            out += _local(member)
            out += member.data
        directory_offset = len(out)
        order = self.order if self.order is not None else list(range(len(self.members)))
        for index in order:
            member = self.members[index]
            offset = offsets[index] if member.central_offset is None else member.central_offset
            out += _central(member, offset)
        out += self.extra_central
        directory_size = len(out) - directory_offset
        count = len(order)
        end_fields = dict(self.end)
        if self.zip64_end:
            end64_offset = len(out)
            values = dict(
                signature=0x06064B50, record_size=END64.size - 12, made_by=45, version=45, disk=0,
                directory_disk=0, on_disk=count, count=count, directory_size=directory_size,
                directory_offset=directory_offset,
            )  # fmt: skip
            values.update(self.end64)
            out += END64.pack(*values.values())
            out += LOCATOR64.pack(0x07064B50, 0, end64_offset, 1)
            for name in ("on_disk", "count"):
                end_fields.setdefault(name, 0xFFFF)
            for name in ("directory_size", "directory_offset"):
                end_fields.setdefault(name, U32)
        out += end_record(count, directory_size, directory_offset, self.comment, **end_fields)
        out += self.trailing
        return bytes(out)


def _sizes(member: Member) -> tuple[int, int, bytes]:
    """(packed_size, size, extra) for a record: placeholders and a ZIP64 extra when asked."""
    if member.zip64:
        return U32, U32, zip64_extra(len(member.data), len(member.data))
    return len(member.data), len(member.data), b""


def _local(member: Member) -> bytes:
    name = member.name if member.local_name is None else member.local_name
    packed, size, extra = _sizes(member)
    extra += member.local_extra
    values = dict(
        signature=0x04034B50, version=45 if member.zip64 else 20, flags=0, method=0, time=0, date=0x21,
        crc=zlib.crc32(member.data), packed_size=packed, size=size, name_size=len(name),
        extra_size=len(extra),
    )  # fmt: skip
    values.update(member.local)
    return LOCAL.pack(*(values[n] for n in LOCAL_FIELDS)) + name + extra


def _central(member: Member, offset: int) -> bytes:
    packed, size, extra = _sizes(member)
    if member.zip64:  # the central record's ZIP64 extra also carries the header offset
        extra = zip64_extra(len(member.data), len(member.data), offset)
        offset = U32
    extra += member.central_extra
    values = dict(
        signature=0x02014B50, made_by=0x0314, version=45 if member.zip64 else 20, flags=0, method=0,
        time=0, date=0x21, crc=zlib.crc32(member.data), packed_size=packed, size=size,
        name_size=len(member.name), extra_size=len(extra), comment_size=len(member.comment), disk=0,
        internal=0, external=0o644 << 16, offset=offset,
    )  # fmt: skip
    values.update(member.central)
    return CENTRAL.pack(*(values[n] for n in CENTRAL_FIELDS)) + member.name + extra + member.comment
