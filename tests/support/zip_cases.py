"""The hostile-archive table: one named archive per lie, each with its acceptance rule.

Every case is built record by record (:mod:`tests.support.zip_forge`) from the same small
container: tensor entries ``w`` (16 bytes) and ``v`` (8 bytes) and ``__MODEL_PROTO``,
whose tensors ``weight`` and ``bias`` refer to them. A case's rule is one of

- **refused**: ``load_zip`` / ``load`` raise :class:`wirecodec.ContainerError` whose
  message matches ``refused`` (so it names the entry, tensor or record at fault);
- **accepted**: the archive loads, and each tensor holds exactly the bytes of the entry
  its reference names (the lie is one the reader may ignore, or no lie at all).

docs/zip-container.md's hostile-archive table has one row per case here, with the same
name (``tests/unit/files/test_zip_hostile.py`` checks that the two lists agree).
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TensorProto
from tests.support.zip_forge import END, LOCAL, LOCATOR64, Forge, Member, end_record, zip64_extra

__all__ = ["CASES", "W", "V", "Case", "base", "model_bytes", "refs"]

W = bytes(range(16))
V = b"abcdefgh"
Ref = tuple[str, str, int, int | None]  # tensor name, entry, length, offset


def refs(w: bytes = W, v: bytes = V) -> list[Ref]:
    return [("weight", "w", len(w), None), ("bias", "v", len(v), None)]


def model_bytes(references: list[Ref]) -> bytes:
    """A ModelProto whose UINT8 initializers refer to entries: (tensor, entry, length, offset)."""
    tensors = []
    for name, entry, length, offset in references:
        external = [StringStringEntryProto(key="location", value=entry)]
        if offset is not None:
            external.append(StringStringEntryProto(key="offset", value=str(offset)))
        external.append(StringStringEntryProto(key="length", value=str(length)))
        tensors.append(
            TensorProto(
                name=name,
                data_type=TensorProto.UINT8,
                dims=[length],
                data_location=TensorProto.EXTERNAL,
                external_data=external,
            )
        )
    return wirecodec.encode(ModelProto(ir_version=10, graph=GraphProto(name="g", initializer=tensors)))


def base(w: bytes = W, v: bytes = V, references: list[Ref] | None = None) -> list[Member]:
    """The three members of the valid container every case starts from."""
    proto = model_bytes(refs(w, v) if references is None else references)
    return [Member(b"w", w), Member(b"v", v), Member(b"__MODEL_PROTO", proto)]


@dataclass(frozen=True)
class Case:
    """A hostile archive and what the reader must do with it."""

    name: str
    build: Callable[[], bytes]
    refused: str | None  # the ContainerError message (a regex), or None: accepted
    expect: dict[str, bytes] | None = None  # accepted: tensor name -> bytes (default: W and V)
    zip_first: bool = True  # starts as a zip does, so wirecodec.load opens it as one


def _forge(**changes: object) -> Callable[[], bytes]:
    """A builder: the base archive with one member's fields changed.

    ``changes`` maps "w.local", "w.central", "w" (Member attributes as a dict) and
    "forge" (Forge attributes) to what they set.
    """

    def build() -> bytes:
        members = base()
        by_name = {m.name.decode(): m for m in members}
        forge = Forge(members)
        for key, value in changes.items():
            if key == "forge":
                for attribute, setting in value.items():
                    setattr(forge, attribute, setting)
                continue
            member_name, _, part = key.partition(".")
            member = by_name[member_name]
            if part in ("local", "central"):
                getattr(member, part).update(value)
            else:
                for attribute, setting in value.items():
                    setattr(member, attribute, setting)
        return forge.build()

    return build


def _with_data(w: bytes = W, v: bytes = V, **forge: object) -> Callable[[], bytes]:
    def build() -> bytes:
        archive = Forge(base(w, v))
        for attribute, setting in forge.items():
            setattr(archive, attribute, setting)
        return archive.build()

    return build


def _end_reaching_the_end() -> bytes:
    """What ``v`` holds in the case below: an end record whose comment length reaches
    exactly the end of the file (the directory it describes, three records at offset 0, is a lie)."""
    fake = end_record(3, 46, 0)
    plain = Forge(base(v=V + fake)).build()
    at = plain.index(fake)
    return V + fake[:20] + struct.pack("<H", len(plain) - at - END.size)


_REACHING = _end_reaching_the_end()


def _end_copy_in_comment() -> bytes:
    """The archive comment ends with a copy of the real end record (comment length 0)."""
    plain = Forge(base()).build()
    copy = plain[-END.size :]
    return Forge(base(), comment=b"note " + copy).build()


def _locator_in_last_comment() -> bytes:
    """The last central record's file comment ends with a ZIP64 locator, just before the end record."""
    members = base()
    members[-1].comment = LOCATOR64.pack(0x07064B50, 0, 0, 1)
    return Forge(members).build()


def _overlapping_sizes() -> bytes:
    """``w``'s records both claim 40 more bytes than it has: its data runs over ``v``'s header."""
    members = base()
    size = len(W) + 40
    for part in (members[0].local, members[0].central):
        part.update(size=size, packed_size=size)
    return Forge(members).build()


def _hidden_entry() -> bytes:
    """Entry ``x``'s local header and data lie inside ``w``'s data; a central record points there."""
    hidden_data = b"0123456789"
    hidden = Member(b"x", hidden_data)
    from tests.support.zip_forge import _local  # the same packing the forge uses

    header = _local(hidden)
    w = b"y" * 8 + header + hidden_data + b"z" * 8
    members = base(w=w)
    offset_of_x = LOCAL.size + 1 + 8  # w's header, its 1-byte name, 8 bytes of data
    members.append(Member(b"x", hidden_data, central_offset=offset_of_x))
    forge = Forge(members, order=[0, 1, 3, 2])
    return _drop_member_data(forge, 3)


def _drop_member_data(forge: Forge, index: int) -> bytes:
    """Build ``forge`` as if member ``index`` had no local header or data of its own."""
    ghost = forge.members[index]
    built = Forge(
        [m for i, m in enumerate(forge.members) if i != index],
        comment=forge.comment,
        order=None,
    )
    # Append the ghost's central record after the others, pointing where it says.
    data = bytearray(built.build())
    end_at = len(data) - END.size - len(forge.comment)
    count, size, offset = struct.unpack_from("<HII", data, end_at + 10)
    from tests.support.zip_forge import _central

    record = _central(ghost, ghost.central_offset or 0)
    data[end_at:end_at] = record
    struct.pack_into(
        "<HHII", data, end_at + len(record) + 8, count + 1, count + 1, size + len(record), offset
    )
    return bytes(data)


def _same_header_twice(name: bytes) -> Callable[[], bytes]:
    """A second central record (named ``name``) pointing at ``w``'s local header."""

    def build() -> bytes:
        forge = Forge([*base(), Member(name, W, central_offset=0)])
        return _drop_member_data(forge, 3)

    return build


def _prepended() -> bytes:
    """Junk before the archive and no offset moved (zipfile would shift every offset)."""
    return b"junk" + Forge(base()).build()


def _zip64_offset_lies() -> bytes:
    """``w``'s central ZIP64 extra gives the header offset of ``v``."""
    members = base()
    members[0].zip64 = True
    good = Forge(members).build()
    v_offset = good.index(b"PK\x03\x04", 4)
    # The central ZIP64 extra of w: sizes, then the offset (0); patch the offset.
    central = good.index(b"PK\x01\x02")
    extra_at = central + 46 + 1
    data = bytearray(good)
    struct.pack_into("<Q", data, extra_at + 4 + 16, v_offset)
    return bytes(data)


def _refer(references: list[Ref]) -> Callable[[], bytes]:
    return lambda: Forge(base(references=references)).build()


_DIRECTORY_LIES = r"central directory lies"
_DISAGREES = r"entry 'w'.*disagrees with the central directory"

CASES: tuple[Case, ...] = (
    # -- local header and central record disagree ---------------------------------------------
    Case("local size differs", _forge(**{"w.local": {"size": 15}}), _DISAGREES),
    Case("local stored size differs", _forge(**{"w.local": {"packed_size": 17}}), _DISAGREES),
    Case("local CRC differs", _forge(**{"w.local": {"crc": 0xDEADBEEF}}), _DISAGREES),
    Case(
        "local method deflate, central stored",
        _forge(**{"w.local": {"method": 8}}),
        r"entry 'w': its local header says encrypted or compressed \(method 8\)",
    ),
    Case(
        "central method deflate, local stored",
        _forge(**{"w.central": {"method": 8}}),
        r"entry 'w' is compressed",
    ),
    Case(
        "local method unknown (99)",
        _forge(**{"v.local": {"method": 99}}),
        r"entry 'v': its local header says",
    ),
    Case(
        "local encrypted flag",
        _forge(**{"w.local": {"flags": 1}}),
        r"entry 'w': its local header says encrypted",
    ),
    Case("central encrypted flag", _forge(**{"w.central": {"flags": 1}}), r"entry 'w' is encrypted"),
    Case(
        "local strong-encryption flag", _forge(**{"w.local": {"flags": 0x40}}), r"entry 'w': its local header"
    ),
    Case(
        "central masked-headers flag", _forge(**{"v.central": {"flags": 0x2000}}), r"entry 'v' is encrypted"
    ),
    Case("local header names another entry", _forge(w={"local_name": b"x"}), r"entry 'w'.*names a different"),
    Case("local name longer", _forge(w={"local_name": b"ww"}), r"entry 'w'.*names a different entry"),
    Case(
        "local data-descriptor flag, local sizes zero",
        _forge(**{"w.local": {"flags": 8, "crc": 0, "size": 0, "packed_size": 0}}),
        None,
    ),
    Case("central UTF-8 flag on an ASCII name", _forge(**{"w.central": {"flags": 0x800}}), None),
    Case(
        "central name flagged UTF-8, not UTF-8",
        _forge(**{"w.central": {"flags": 0x800}}, w={"name": b"\xff"}),
        r"flagged UTF-8 but is not",
    ),
    Case(
        "malformed central extra field",
        _forge(w={"central_extra": b"\x99\x99\xff\x00"}),
        r"entry 'w': extra field record 0x9999 runs past the extra field",
    ),
    Case(
        "malformed local extra field",
        _forge(w={"local_extra": b"\x99\x99\xff\x00"}),
        r"entry 'w': its local header: extra field record 0x9999 runs past",
    ),
    Case("extra field ending in 3 bytes of padding", _forge(w={"local_extra": b"\x00" * 7}), None),
    Case(
        "central stored size differs from size",
        _forge(**{"v.central": {"packed_size": 9}}),
        r"entry 'v': stored, yet",
    ),
    Case("entry on another disk", _forge(**{"v.central": {"disk": 1}}), r"entry 'v' starts on disk 1"),
    # -- lookalike signatures -----------------------------------------------------------------
    Case(
        "local header signature inside data",
        _with_data(w=b"PK\x03\x04" + W[4:]),
        None,
        {"weight": b"PK\x03\x04" + W[4:]},
    ),
    Case(
        "central signature inside data",
        _with_data(v=b"PK\x01\x02" + V[4:]),
        None,
        {"bias": b"PK\x01\x02" + V[4:]},
    ),
    Case(
        "end record signature inside data (incomplete)",
        _with_data(v=b"PK\x05\x06" + bytes(18)),
        None,
        {"bias": b"PK\x05\x06" + bytes(18)},
    ),
    Case(
        "end record inside data, reaching the end",
        _with_data(v=_REACHING),
        None,
        {"bias": _REACHING},
    ),
    Case(
        "ZIP64 end record and locator inside data",
        _with_data(v=V + struct.pack("<IQ", 0x06064B50, 44) + LOCATOR64.pack(0x07064B50, 0, 0, 1)),
        None,
        {"bias": V + struct.pack("<IQ", 0x06064B50, 44) + LOCATOR64.pack(0x07064B50, 0, 0, 1)},
    ),
    Case("signatures in the archive comment", _with_data(comment=b"PK\x03\x04 PK\x01\x02 PK\x06\x07"), None),
    Case("incomplete end record in the comment", _with_data(comment=b"PK\x05\x06" + bytes(10)), None),
    Case("end record copy ending the comment", _end_copy_in_comment, _DIRECTORY_LIES),
    Case("signatures in an entry comment", _forge(w={"comment": b"PK\x01\x02PK\x05\x06"}), None),
    Case("ZIP64 locator ending the last entry comment", _locator_in_last_comment, r"ZIP64"),
    # -- overlapping, out of order, misplaced ---------------------------------------------------
    Case("central directory in reverse order", _forge(forge={"order": [2, 1, 0]}), None),
    Case("model entry first in the file", lambda: Forge([base()[2], *base()[:2]]).build(), None),
    Case("gap between entries", _forge(v={"before": b"\x00" * 13}), None),
    Case("bytes prepended, offsets not moved", _prepended, _DIRECTORY_LIES, zip_first=False),
    Case("entry data runs over the next header", _overlapping_sizes, r"entry 'v' .*overlaps entry 'w'"),
    Case("entry hidden inside another's data", _hidden_entry, r"entry 'x' .*overlaps entry 'w'"),
    Case("two names, one local header", _same_header_twice(b"u"), r"entry 'u'.*names a different entry"),
    Case("one entry listed twice", _same_header_twice(b"w"), r"entry 'w' appears twice"),
    Case(
        "header offset inside the directory",
        _forge(**{"v.central": {"offset": 10_000}}),
        r"entry 'v'.*local header",
    ),
    Case(
        "header offset at another entry's header",
        _forge(v={"central_offset": 0}),
        r"entry 'v'.*names a different entry",
    ),
    Case(
        "bytes after the last central record",
        _forge(forge={"extra_central": b"\x00" * 46}),
        r"holds 46 bytes after",
    ),
    Case(
        "directory count one short",
        _forge(forge={"end": {"count": 2, "on_disk": 2}}),
        r"holds .* bytes after",
    ),
    Case("directory count one over", _forge(forge={"end": {"count": 4, "on_disk": 4}}), r"central directory"),
    Case("bytes after the end record", _forge(forge={"trailing": b"\x00"}), r"no end of central directory"),
    # -- ZIP64 ----------------------------------------------------------------------------------
    Case("ZIP64 sizes, told the truth", _forge(w={"zip64": True}), None),
    Case("ZIP64 end records, told the truth", _forge(forge={"zip64_end": True}), None),
    Case(
        "ZIP64 central extra truncated",
        _forge(
            **{"w.central": {"size": 0xFFFFFFFF, "packed_size": 0xFFFFFFFF}},
            w={"central_extra": zip64_extra(16)},
        ),
        r"entry 'w'.*need a ZIP64 extra field of 16 bytes, found 8",
    ),
    Case(
        "ZIP64 central extra lies about the size",
        _forge(
            **{"w.central": {"size": 0xFFFFFFFF, "packed_size": 0xFFFFFFFF}},
            w={"central_extra": zip64_extra(1 << 40, 1 << 40)},
        ),
        r"entry 'w'.*run into the central directory",
    ),
    Case(
        "ZIP64 local extra disagrees",
        _forge(
            **{"w.local": {"size": 0xFFFFFFFF, "packed_size": 0xFFFFFFFF}},
            w={"local_extra": zip64_extra(17, 17)},
        ),
        _DISAGREES,
    ),
    Case("ZIP64 extra offset points at another entry", _zip64_offset_lies, r"entry 'w'"),
    Case(
        "ZIP64 extra record runs past the field",
        _forge(
            **{"w.central": {"size": 0xFFFFFFFF, "packed_size": 0xFFFFFFFF}},
            w={"central_extra": b"\x01\x00\x20\x00" + bytes(16)},
        ),
        r"entry 'w': extra field record 0x0001 runs past the extra field",
    ),
    Case(
        "ZIP64 extra without placeholders is ignored",
        _forge(w={"central_extra": zip64_extra(1 << 40, 1 << 40, 1 << 40)}),
        None,
    ),
    Case(
        "ZIP64 end record count lies",
        _forge(forge={"zip64_end": True, "end64": {"count": 5, "on_disk": 5}}),
        r"claims 5 entries",
    ),
    Case(
        "ZIP64 end record directory offset lies",
        _forge(forge={"zip64_end": True, "end64": {"directory_offset": 1}}),
        _DIRECTORY_LIES,
    ),
    Case(
        "ZIP64 end record size field lies",
        _forge(forge={"zip64_end": True, "end64": {"record_size": 100}}),
        r"ZIP64 end record .* says it has 100 bytes",
    ),
    # -- references to __MODEL_PROTO ------------------------------------------------------------
    Case(
        "tensor refers to __MODEL_PROTO",
        _refer([("weight", "__MODEL_PROTO", 4, None), ("bias", "v", 8, None)]),
        r"tensor 'weight' refers to entry '__MODEL_PROTO', which the archive does not hold",
    ),
    Case(
        "tensor refers into __MODEL_PROTO at an offset",
        _refer([("weight", "w", 16, None), ("bias", "__MODEL_PROTO", 2, 2)]),
        r"tensor 'bias' refers to entry '__MODEL_PROTO'",
    ),
    Case(
        "tensor refers to __model_proto (down-cased)",
        _refer([("weight", "__model_proto", 4, None), ("bias", "v", 8, None)]),
        r"tensor 'weight' refers to entry '__model_proto', which the archive does not hold",
    ),
    Case(
        "entry __model_proto beside __MODEL_PROTO",
        _forge(w={"name": b"__model_proto"}),
        r"entries .* differ only in case",
    ),
)
