"""A structure-aware mutator for zip containers, and the rule every mutant is judged by.

It knows the records (APPNOTE 4.3): it parses a valid archive into where each field
of each local header, central record, end record, ZIP64 end record and locator lies,
and mutates *fields*, not bytes: every number set to values at its edges, local and
central records told to disagree (or to agree on a lie), lookalike signatures written
into entry data and comments, records reordered, duplicated, dropped or pointed at each
other, sizes and offsets moved into ZIP64 extras that lie, and tensor references
retargeted (``__MODEL_PROTO`` included).

Two drivers share it:

- :func:`sweep` enumerates every mutation of every base archive, family by family
  (deterministic, a few seconds: ``tests/unit/files/test_zip_hostile.py``);
- :func:`from_bytes` lets a fuzzer's input choose a base and one to three mutations
  (``fuzz/fuzz_zip.py``, coverage-guided under atheris).

The rule (:func:`judge`): loading may raise only :class:`wirecodec.WireCodecError`;
whatever loads, :mod:`zipfile` also opens, listing the same entry names, and each
tensor holds exactly the bytes zipfile reads from the entry its reference names (at
its offset, for its length).
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import struct
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from tests.support.zip_cases import V, W, base
from tests.support.zip_forge import CENTRAL_FIELDS, END_FIELDS, LOCAL_FIELDS, Forge, Member, zip64_extra

__all__ = ["FAMILIES", "from_bytes", "judge", "sweep", "sweep_counts", "zipfile_bytes"]

_LOCAL_FMT = "<IHHHHHIIIHH"
_CENTRAL_FMT = "<IHHHHHHIIIHHHHHII"
_END_FMT = "<IHHHHIIH"
_END64_FMT = "<IQHHIIQQQQ"
_LOCATOR_FMT = "<IIQI"
_END64_FIELDS = (
    "signature", "record_size", "made_by", "version", "disk", "directory_disk", "on_disk", "count",
    "directory_size", "directory_offset",
)  # fmt: skip
_LOCATOR_FIELDS = ("signature", "end64_disk", "end64_offset", "disks")
SIGNATURES = {
    "local": b"PK\x03\x04",
    "central": b"PK\x01\x02",
    "end": b"PK\x05\x06",
    "end64": b"PK\x06\x06",
    "locator": b"PK\x06\x07",
}


def _fields(fmt: str, names: tuple[str, ...]) -> list[tuple[str, int, str]]:
    """(name, offset, struct code) of each field of a record layout."""
    out, offset = [], 0
    for name, code in zip(names, fmt[1:], strict=True):
        out.append((name, offset, "<" + code))
        offset += struct.calcsize(code)
    return out


LOCAL = _fields(_LOCAL_FMT, LOCAL_FIELDS)
CENTRAL = _fields(_CENTRAL_FMT, CENTRAL_FIELDS)
END = _fields(_END_FMT, END_FIELDS)
END64 = _fields(_END64_FMT, _END64_FIELDS)
LOCATOR = _fields(_LOCATOR_FMT, _LOCATOR_FIELDS)


@dataclass
class Layout:
    """Where the records of a valid archive lie."""

    end: int
    end64: int | None = None
    locator: int | None = None
    centrals: list[int] = field(default_factory=list)
    locals: list[int] = field(default_factory=list)
    data: list[tuple[int, int]] = field(default_factory=list)  # (offset, size) of each entry's data
    names: list[bytes] = field(default_factory=list)


def parse(data: bytes) -> Layout:
    """The layout of an archive we made (no comment, no lookalikes): trusted, so simple."""
    end = data.rindex(SIGNATURES["end"])
    layout = Layout(end)
    count, _, directory = struct.unpack_from("<HII", data, end + 10)
    if data[end - 20 : end - 16] == SIGNATURES["locator"]:
        layout.locator = end - 20
        layout.end64 = struct.unpack_from("<Q", data, end - 12)[0]
        count, _, directory = struct.unpack_from("<QQQ", data, layout.end64 + 32)
    position = directory
    for _ in range(count):
        fields = struct.unpack_from(_CENTRAL_FMT, data, position)
        size, name_size, extra_size, comment_size, offset = (
            fields[9],
            fields[10],
            fields[11],
            fields[12],
            fields[16],
        )
        name = data[position + 46 : position + 46 + name_size]
        extra = data[position + 46 + name_size : position + 46 + name_size + extra_size]
        big = _zip64(extra)
        wanted = [
            n for n, v in (("size", size), ("packed", fields[8]), ("offset", offset)) if v == 0xFFFFFFFF
        ]
        values = dict(zip(wanted, big, strict=False))
        size, offset = values.get("size", size), values.get("offset", offset)
        layout.centrals.append(position)
        layout.locals.append(offset)
        local_name, local_extra = struct.unpack_from("<HH", data, offset + 26)
        layout.data.append((offset + 30 + local_name + local_extra, size))
        layout.names.append(name)
        position += 46 + name_size + extra_size + comment_size
    return layout


def _zip64(extra: bytes) -> list[int]:
    position = 0
    while position + 4 <= len(extra):
        tag, length = struct.unpack_from("<HH", extra, position)
        if tag == 1:
            body = extra[position + 4 : position + 4 + length]
            return [int.from_bytes(body[i : i + 8], "little") for i in range(0, len(body) - 7, 8)]
        position += 4 + length
    return []


# -- the base archives ------------------------------------------------------------------------------


@functools.cache
def bases() -> dict[str, bytes]:
    """Valid containers of every shape the reader meets: forged, ZIP64, zipfile's, save_zip's."""
    import numpy as np

    from schema_dsl.onnx import GraphProto, ModelProto
    from wirecodec.files.zip.container import save_zip
    from wirecodec.tensors import from_array

    out = {"forged": Forge(base()).build()}
    members = base()
    members[0].zip64 = True
    out["forged-zip64"] = Forge(members, zip64_end=True).build()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for member in base():
            archive.writestr(member.name.decode(), member.data)
    out["zipfile"] = buffer.getvalue()
    graph = GraphProto(
        name="g", initializer=[from_array(np.arange(6, dtype=np.int16), "t"), from_array(np.ones(3), "u")]
    )
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = f"{folder}/m.onnxz"
        save_zip(ModelProto(ir_version=10, graph=graph), path)
        with open(path, "rb") as file:
            out["save_zip"] = file.read()
    return out


# -- mutations ------------------------------------------------------------------------------------

Mutation = tuple[str, Callable[[bytes], bytes]]


def _set(offset: int, code: str, value: int) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        out = bytearray(data)
        if offset + struct.calcsize(code) <= len(out):
            struct.pack_into(code, out, offset, value & ((1 << 8 * struct.calcsize(code)) - 1))
        return bytes(out)

    return apply


def _values(current: int, width: int, length: int) -> list[int]:
    top = (1 << 8 * width) - 1
    picks = {
        0,
        1,
        current - 1,
        current + 1,
        current ^ 8,
        top,
        top - 1,
        length,
        length - 1,
        1 << (8 * width - 1),
    }
    if width >= 2:
        picks |= {8, 0x800, 0x2000, 0x40}  # method deflate, UTF-8, masked headers, strong encryption
    return sorted(v & top for v in picks if v != current)


def _record_fields(data: bytes, layout: Layout) -> Iterator[tuple[str, int, list[tuple[str, int, str]]]]:
    for i, offset in enumerate(layout.locals):
        yield f"local[{layout.names[i]!r}]", offset, LOCAL
    for i, offset in enumerate(layout.centrals):
        yield f"central[{layout.names[i]!r}]", offset, CENTRAL
    yield "end", layout.end, END
    if layout.end64 is not None and layout.locator is not None:
        yield "end64", layout.end64, END64
        yield "locator", layout.locator, LOCATOR


def _field_mutations(data: bytes, families: tuple[str, ...]) -> Iterator[Mutation]:
    layout = parse(data)
    for record, offset, fields in _record_fields(data, layout):
        family = "local-fields" if record.startswith("local") else "central-fields"
        family = family if record.startswith(("local", "central")) else "end-fields"
        if family not in families:
            continue
        for name, at, code in fields:
            current = struct.unpack_from(code, data, offset + at)[0]
            for value in _values(current, struct.calcsize(code), len(data)):
                yield f"{record}.{name}={value:#x}", _set(offset + at, code, value)


def _paired_mutations(data: bytes) -> Iterator[Mutation]:
    """Local header and central record told the same lie: they agree, and the lie is all there is."""
    layout = parse(data)
    local = {name: (at, code) for name, at, code in LOCAL}
    central = {name: (at, code) for name, at, code in CENTRAL}
    for i, name in enumerate(layout.names):
        for what in ("flags", "method", "crc", "size", "packed_size"):
            (l_at, code), (c_at, _) = local[what], central[what]
            current = struct.unpack_from(code, data, layout.centrals[i] + c_at)[0]
            for value in _values(current, struct.calcsize(code), len(data)):
                first, second = (
                    _set(layout.locals[i] + l_at, code, value),
                    _set(layout.centrals[i] + c_at, code, value),
                )
                yield f"both[{name!r}].{what}={value:#x}", lambda d, f=first, s=second: s(f(d))  # type: ignore[misc]
        for j in range(len(layout.names)):
            if j != i:  # a central record pointing at another entry's local header
                yield (
                    f"central[{name!r}].offset=local[{j}]",
                    _set(layout.centrals[i] + 42, "<I", layout.locals[j]),
                )


MUST_LOAD = " [must load]"  # a label's mark: the rule for this mutation is "accepted", not "either"


def _lookalike_records(data: bytes) -> list[tuple[str, bytes]]:
    layout = parse(data)
    end = data[layout.end : layout.end + 22]
    return [
        ("local", data[layout.locals[0] : layout.locals[0] + 30]),
        ("central", data[layout.centrals[0] : layout.centrals[0] + 46]),
        ("end", end),
        ("end-reaching-0", end[:20] + b"\x00\x00"),
        (
            "end64+locator",
            struct.pack(_END64_FMT, 0x06064B50, 44, 45, 45, 0, 0, 1, 1, 46, 0)
            + struct.pack(_LOCATOR_FMT, 0x07064B50, 0, 0, 1),
        ),
        *((f"{kind}-signature", sig) for kind, sig in SIGNATURES.items()),
    ]


def _lookalike_mutations(data: bytes) -> Iterator[Mutation]:
    """Signatures and whole records written over entry data and into the archive comment."""
    layout = parse(data)
    for kind, record in _lookalike_records(data):
        for i, (start, size) in enumerate(layout.data):
            for where in sorted({0, max(0, size - len(record)), size // 2}):
                if where + len(record) <= size:  # inside the entry only
                    # Data is just data: a tensor entry with a lookalike in it still loads
                    # (the model entry's CRC, checked on load, would not match).
                    must = MUST_LOAD if layout.names[i] != b"__MODEL_PROTO" else ""
                    yield f"data[{layout.names[i]!r}]@{where}={kind}{must}", _overwrite(start + where, record)
        for pad in (b"", b"x"):
            # A complete end record ending the comment is the last end record, so it is read.
            must = MUST_LOAD if kind not in ("end", "end-reaching-0") else ""
            yield f"comment={pad!r}+{kind}{must}", _comment(pad + record)
        # A lookalike in the last central record's comment: it ends just before the end
        # record, where a ZIP64 locator would be.
        must = MUST_LOAD if kind != "end64+locator" else ""
        yield f"last-central-comment={kind}{must}", _last_central_comment(record)


def _overwrite(at: int, record: bytes) -> Callable[[bytes], bytes]:
    return lambda data: data[:at] + record + data[at + len(record) :]


def _comment(comment: bytes) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        end = data.rindex(SIGNATURES["end"])
        out = bytearray(data[: end + 22])
        struct.pack_into("<H", out, end + 20, len(comment))
        return bytes(out) + comment

    return apply


def _last_central_comment(comment: bytes) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        layout = parse(data)
        last = layout.centrals[-1]
        name_size, extra_size, comment_size = struct.unpack_from("<HHH", data, last + 28)
        tail = last + 46 + name_size + extra_size + comment_size
        out = bytearray(data[:tail] + comment + data[tail:])
        struct.pack_into("<H", out, last + 32, comment_size + len(comment))
        grow = len(comment)
        end = layout.end + grow
        if layout.end64 is None:
            struct.pack_into("<I", out, end + 12, struct.unpack_from("<I", out, end + 12)[0] + grow)
        else:
            struct.pack_into(
                "<Q",
                out,
                layout.end64 + grow + 40,
                struct.unpack_from("<Q", out, layout.end64 + grow + 40)[0] + grow,
            )
            struct.pack_into("<Q", out, layout.locator + grow + 8, layout.end64 + grow)  # type: ignore[operator]
        return bytes(out)

    return apply


def _directory_mutations(data: bytes) -> Iterator[Mutation]:
    """Central records reordered, dropped or repeated, with the end records kept consistent."""
    layout = parse(data)
    records = []
    for i, start in enumerate(layout.centrals):
        stop = layout.centrals[i + 1] if i + 1 < len(layout.centrals) else (layout.end64 or layout.end)
        records.append(data[start:stop])
    n = len(records)
    choices: list[tuple[str, list[int]]] = [
        (f"order={list(p)}", list(p)) for p in itertools.permutations(range(n))
    ]
    choices += [(f"drop={i}", [j for j in range(n) if j != i]) for i in range(n)]
    choices += [(f"repeat={i}", [*range(n), i]) for i in range(n)]
    for label, order in choices:
        yield label, _directory(order, records, layout)


def _directory(order: list[int], records: list[bytes], layout: Layout) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        start = layout.centrals[0]
        directory = b"".join(records[i] for i in order)
        tail = bytearray(data[layout.end64 or layout.end :])
        count = len(order)
        if layout.end64 is not None:  # the ZIP64 end record counts; the locator moves with it
            struct.pack_into("<QQQ", tail, 24, count, count, len(directory))
            shift = len(directory) - sum(len(r) for r in records)
            struct.pack_into("<Q", tail, 56 + 8, layout.end64 + shift)
        else:
            struct.pack_into("<HHI", tail, 8, count, count, len(directory))
        return data[:start] + directory + bytes(tail)

    return apply


def _zip64_mutations(data: bytes) -> Iterator[Mutation]:
    """Sizes and offsets moved into ZIP64 extras (forged archives): told truly, and lied about."""
    del data
    for i, j in itertools.product(range(3), range(7)):
        wanted = [n for k, n in enumerate(("size", "packed_size", "offset")) if j + 1 & 1 << k]
        for lie in ("truth", "+1", "-1", "zero", "huge", "short", "long", "local+1"):
            yield f"zip64[{i}]{wanted}={lie}", _zip64_archive(i, tuple(wanted), lie)


def _zip64_archive(index: int, wanted: tuple[str, ...], lie: str) -> Callable[[bytes], bytes]:
    def apply(data: bytes) -> bytes:
        del data
        members = base()
        plain = Forge(base()).build()
        member = members[index]
        offset = parse(plain).locals[index]
        truth = {"size": len(member.data), "packed_size": len(member.data), "offset": offset}
        change = {"+1": 1, "-1": -1, "zero": None, "huge": 1 << 40}.get(lie, 0)
        values = [0 if change is None else max(0, truth[n] + change) for n in wanted]
        extra = zip64_extra(*values)
        if lie == "short":
            extra = extra[:-8] if len(values) > 1 else struct.pack("<HH", 1, 4) + bytes(4)
            extra = extra[:2] + struct.pack("<H", len(extra) - 4) + extra[4:]
        elif lie == "long":
            extra = zip64_extra(*values, 7)
        member.central.update({n: 0xFFFFFFFF for n in wanted})
        member.central_extra = extra
        if lie == "local+1":
            member.local.update(size=0xFFFFFFFF, packed_size=0xFFFFFFFF)
            member.local_extra = zip64_extra(len(member.data) + 1, len(member.data) + 1)
        return Forge(members).build()

    return apply


_LOCATIONS = ("__MODEL_PROTO", "__model_proto", "w", "W", "v", "", "missing", "w/../v")


def _reference_mutations(data: bytes) -> Iterator[Mutation]:
    """The model's tensors pointed anywhere: every entry (the model's own too), at every edge."""
    del data
    for location in _LOCATIONS:
        for offset in (None, 0, 1, 15, 16, 17, 1 << 63):
            for length in (0, 1, 8, 16, 17, 1 << 32):
                references = [("weight", location, length, offset), ("bias", "v", len(V), None)]
                yield f"ref(weight)={location!r}@{offset}+{length}", _references(references)


def _references(references: list[tuple[str, str, int, int | None]]) -> Callable[[bytes], bytes]:
    return lambda data: Forge(base(references=references)).build()


FAMILIES = (
    "local-fields",
    "central-fields",
    "end-fields",
    "paired",
    "lookalikes",
    "directory",
    "zip64",
    "references",
)
_FORGED_ONLY = {"zip64", "references"}  # rebuilt from scratch: one base is enough


def mutations(base_name: str, data: bytes, family: str) -> Iterator[Mutation]:
    if family in ("local-fields", "central-fields", "end-fields"):
        yield from _field_mutations(data, (family,))
    elif family == "paired":
        yield from _paired_mutations(data)
    elif family == "lookalikes":
        yield from _lookalike_mutations(data)
    elif family == "directory":
        yield from _directory_mutations(data)
    elif family in _FORGED_ONLY:
        if base_name == "forged":
            yield from (_zip64_mutations if family == "zip64" else _reference_mutations)(data)
    else:
        raise ValueError(f"no mutation family {family!r}")


def sweep(family: str) -> Iterator[tuple[str, bytes]]:
    """Every mutation of ``family`` applied to every base archive: (label, archive)."""
    for base_name, data in bases().items():
        for label, mutate in mutations(base_name, data, family):
            yield f"{base_name}: {label}", mutate(data)


@dataclass
class Counts:
    total: int = 0
    by_family: dict[str, tuple[int, int]] = field(default_factory=dict)  # (accepted, refused)


def sweep_counts() -> Counts:
    """How many archives the sweep makes, and how many of each family load or are refused."""
    from wirecodec import WireCodecError

    counts = Counts()
    for family in FAMILIES:
        accepted = refused = 0
        for _, data in sweep(family):
            try:
                judge(data)
                accepted += 1
            except WireCodecError:
                refused += 1
        counts.by_family[family] = (accepted, refused)
        counts.total += accepted + refused
    return counts


# -- the rule -------------------------------------------------------------------------------------


def zipfile_bytes(archive: zipfile.ZipFile, name: str) -> bytes:
    """An entry's bytes as zipfile reads them, its CRC unchecked (we do not check weights' CRCs)."""
    with archive.open(name) as entry:
        entry._expected_crc = None  # type: ignore[attr-defined]  # reading, not verifying
        return entry.read()


def judge(data: bytes) -> None:
    """Load ``data``; raise WireCodecError if refused, AssertionError if the rule is broken."""
    from wirecodec.files.base.walk import iter_tensors
    from wirecodec.files.zip.container import load_zip
    from wirecodec.files.zip.records import read_archive
    from wirecodec.tensors import to_array

    model = load_zip(data)  # only WireCodecError may escape (anything else fails the caller)
    references = list(iter_tensors(load_zip(data, load_external_data=False)))
    archive_records = read_archive(data)
    names = [entry.name for entry in archive_records.entries]
    if SIGNATURES["end"] in archive_records.comment:
        # zipfile takes the last end signature even when the record it starts is cut
        # short by the end of the file ("not a zip file"): no second opinion to be had.
        return
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise AssertionError(f"we load an archive zipfile cannot open: {exc}") from None
    except NotImplementedError as exc:  # see below: zipfile declines, it does not judge
        assert "version" in str(exc), exc
        return
    with archive:
        assert [info.filename for info in archive.infolist()] == names, "zipfile lists other entries"
        _check_records(data, archive)
        for tensor, reference in zip(iter_tensors(model), references, strict=True):
            ref = {e.key: e.value for e in reference.external_data}
            if not ref:
                continue
            assert ref["location"] != "__MODEL_PROTO", f"tensor {tensor.name!r} reads the model entry"
            try:
                theirs = zipfile_bytes(archive, ref["location"])
            except NotImplementedError as exc:
                # zipfile declines what it does not implement: a "version needed to
                # extract" past 6.3, flag bit 5 (patched data). Stored bytes are still
                # plain bytes to us; there is just no second opinion on this entry.
                assert "version" in str(exc) or "flag bit" in str(exc), exc
                continue
            start = int(ref.get("offset", 0))
            length = int(ref["length"]) if "length" in ref else len(theirs) - start
            assert start + length <= len(theirs), "a tensor reads past its entry"
            assert bytes(tensor.raw_data) == theirs[start : start + length], (
                f"tensor {tensor.name!r}: other bytes"
            )
            to_array(tensor)


_ENCRYPTED = 1 | 0x40 | 0x2000  # APPNOTE 4.4.4: encrypted, strong encryption, masked headers


def _check_records(data: bytes, archive: zipfile.ZipFile) -> None:
    """The table's principles, checked on an archive we accepted from zipfile's reading of its
    central directory and the raw local headers: each local header agrees with its central
    record (name, method, encryption; sizes and CRC unless a data descriptor is flagged),
    every entry is stored, and no two entries' headers and data overlap."""
    extents = []
    for info in archive.infolist():
        at = info.header_offset
        local = struct.unpack_from(_LOCAL_FMT, data, at)
        flags, method, crc, packed, size, name_size, extra_size = local[2], local[3], *local[6:]
        name = data[at + 30 : at + 30 + name_size]
        label = f"entry {info.filename!r}"
        assert name == info.orig_filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437"), label
        assert method == 0 and info.compress_type == 0, f"{label}: accepted though not stored in both records"
        assert not (flags | info.flag_bits) & _ENCRYPTED, f"{label}: accepted though encrypted"
        if not (flags | info.flag_bits) & 8:
            extra = data[at + 30 + name_size : at + 30 + name_size + extra_size]
            big = iter(_zip64(extra))
            size = next(big) if size == 0xFFFFFFFF else size
            packed = next(big) if packed == 0xFFFFFFFF else packed
            assert (crc, size, packed) == (info.CRC, info.file_size, info.compress_size), (
                f"{label}: accepted though its local header disagrees"
            )
        start = at + 30 + name_size + extra_size
        extents.append((at, start + info.compress_size, info.filename))
    extents.sort()
    for (_, end, name), (next_at, _, next_name) in itertools.pairwise(extents):
        assert end <= next_at, f"entries {name!r} and {next_name!r} overlap"
    if extents:
        assert extents[-1][1] <= archive.start_dir, "an entry runs into the central directory"


# -- the fuzzer's driver ----------------------------------------------------------------------------


_NOISE = 4  # byte overwrites after the structured mutations, at most


def from_bytes(data: bytes) -> bytes:
    """An archive chosen by a fuzzer's input: a base, then one to three mutations of any family."""
    if len(data) < 2:
        return data
    names = sorted(bases())
    base_name = names[data[0] % len(names)]
    archive = bases()[base_name]
    rounds = 1 + data[1] % 3
    position = 2
    for _ in range(rounds):
        if position + 3 > len(data):
            break
        family = FAMILIES[data[position] % len(FAMILIES)]
        options = list(mutations(base_name, bases()[base_name], family))
        if options:
            choice = int.from_bytes(data[position + 1 : position + 3], "little") % len(options)
            # A mutation planned on the base may not fit an archive already mutated: skip it.
            with contextlib.suppress(ValueError, IndexError, OverflowError, struct.error):
                archive = options[choice][1](archive)
        position += 3
    # What remains of the input overwrites bytes at chosen places: byte-level noise on top
    # (a few bytes at most, so that the structure chosen above survives).
    for i in range(position, min(len(data) - 2, position + 3 * _NOISE), 3):
        at = int.from_bytes(data[i : i + 2], "little") % max(len(archive), 1)
        archive = archive[:at] + data[i + 2 : i + 3] + archive[at + 1 :]
    return archive


__all__ += ["Member", "W", "bases", "mutations", "parse"]
