"""Integrity of the bytes a model refers to: .onnxz entries against their CRC-32, and
safetensors data files against the headers they carry and the references that point in.

The files layer's own checks (each layout knows what its bytes must satisfy), so the
library checks what the command line checks: :func:`wirecodec.check` with ``full=True``
and ``wirecodec check --full`` both report :func:`problems`.

Two costs, two functions each:

- a safetensors header is a few kilobytes at the front of its file: reading it costs
  nothing, so every verb that opens a model with such data checks it
  (:func:`safetensors_problems`, :func:`refuse_lying_safetensors`);
- a CRC-32 covers a whole entry: checking it reads every byte. ``check`` does it only
  with ``--full``; the verbs that read an entry whole anyway (``tensors -o``, ``convert``,
  ``run``) check each entry they read (:func:`crc_problems`, :func:`refuse_bad_crc`).
"""

from __future__ import annotations

import pathlib
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from schema_dsl.onnx import TensorProto
from wirecodec.errors import ContainerError, ExternalDataError, WireCodecError
from wirecodec.files.base.references import ExternalRef, parse_ref
from wirecodec.files.base.walk import tensor_sites
from wirecodec.files.external.data import DirectoryData
from wirecodec.files.opener import Opened
from wirecodec.files.safetensors.format import ONNX_TYPES, Header, read_header
from wirecodec.files.safetensors.format import Entry as SafetensorsEntry
from wirecodec.files.zip.data import ZipData
from wirecodec.files.zip.records import Entry
from wirecodec.tensors.dtypes import INFOS

__all__ = [
    "Problem",
    "crc_problems",
    "external_sites",
    "problems",
    "refuse_bad_crc",
    "refuse_lying_safetensors",
    "safetensors_problems",
]

_CHUNK: Final = 1 << 20  # CRC in pieces: a view of a map, never a copy of a whole entry


@dataclass(frozen=True)
class Problem:
    """What is wrong (``message``), found at ``path`` (the referring tensor's field path)."""

    path: str
    rule: str
    message: str


def external_sites(opened: Opened) -> Iterator[tuple[str, TensorProto]]:
    """Every tensor that refers to bytes outside the model, with its field path."""
    if opened.layout == "single":
        return
    for site in tensor_sites(opened.model):
        tensor = site.message
        assert isinstance(tensor, TensorProto)
        if tensor.data_location == TensorProto.DataLocation.EXTERNAL and tensor.external_data:
            yield site.path, tensor


def problems(opened: Opened, *, full: bool) -> list[Problem]:
    """Every integrity problem of ``opened``'s referred bytes: safetensors headers (read
    always: a few kilobytes), and with ``full`` every container entry's CRC-32 (reads
    every entry)."""
    sites = list(external_sites(opened))
    found = safetensors_problems(opened, sites)
    if full:
        found += crc_problems(opened, sites)
    return found


def _ref(tensor: TensorProto) -> ExternalRef | None:
    try:
        return parse_ref(tensor)
    except WireCodecError:
        return None  # a malformed reference is the checker's to report, not ours


# -- safetensors ---------------------------------------------------------------------------------


def _is_safetensors(location: str) -> bool:
    return location.lower().endswith(".safetensors")


def _any_safetensors(opened: Opened) -> bool:
    refs = (_ref(tensor) for tensor in opened.external_tensors())
    return any(ref is not None and _is_safetensors(ref.location) for ref in refs)


def safetensors_problems(
    opened: Opened, sites: Iterable[tuple[str, TensorProto]] | None = None
) -> list[Problem]:
    """Each safetensors data file whose header lies, or that a reference misreads.

    Reads only headers. A header must parse and cover its file exactly
    (:func:`~wirecodec.files.safetensors.read_header`), and each tensor that points into
    the file must point at exactly one of its entries, of the tensor's element type and shape.
    """
    if not isinstance(opened.data, DirectoryData):
        return []
    # Most models have no safetensors data: find out before naming paths (a walk of every graph).
    if sites is None and not _any_safetensors(opened):
        return []
    headers: dict[pathlib.Path, Header | None] = {}
    problems: list[Problem] = []
    for path, tensor in sites if sites is not None else external_sites(opened):
        ref = _ref(tensor)
        if ref is None or not _is_safetensors(ref.location):
            continue
        try:
            file = opened.data.whole(ref.location, tensor).path
        except WireCodecError:
            continue  # missing or unsafe: the resolver reports it where the bytes are read
        if file is None:
            continue
        if file not in headers:
            try:
                headers[file] = read_header(file)
            except (ExternalDataError, OSError) as exc:
                headers[file] = None
                problems.append(
                    Problem(path, "safetensors-header", f"{ref.location}: {_after_path(exc, file)}")
                )
        header = headers[file]
        if header is not None:
            mismatch = _mismatch(header, ref, tensor)
            if mismatch:
                problems.append(Problem(path, "safetensors-reference", f"{ref.location}: {mismatch}"))
    return problems


def _after_path(exc: BaseException, file: pathlib.Path) -> str:
    """The error's message without the file path it starts with (the location names the file)."""
    text = str(exc)
    prefix = f"{file}: "
    return text[len(prefix) :] if text.startswith(prefix) else text


def _mismatch(header: Header, ref: ExternalRef, tensor: TensorProto) -> str | None:
    """Why ``tensor``'s reference does not read one of the header's entries as it is, or None.

    Several entries may start at one offset: a zero-size tensor (Resize's empty ``roi``)
    takes no bytes, so the entry after it starts where it does. The reference reads one of
    them when its length, element type and shape fit; the first that fits answers."""
    label = f"tensor {tensor.name!r}" if tensor.name else "an unnamed tensor"
    length = ref.length
    here = [entry for entry in header.entries.values() if header.offset(entry) == ref.offset]
    if not here:
        return f"{label} reads from offset {ref.offset}, where no tensor of the header starts"
    # The entry of the tensor's own name first: the one a mismatch is told against.
    here.sort(key=lambda entry: entry.name != tensor.name)
    fitting = [entry for entry in here if length is None or length == entry.nbytes]
    if not fitting:
        entry = here[0]
        return (
            f"{label} reads {length} bytes at offset {ref.offset}, but the header's {entry.name!r} "
            f"there holds {entry.nbytes}"
        )
    problems = [_entry_mismatch(entry, tensor, label) for entry in fitting]
    return None if None in problems else problems[0]


def _entry_mismatch(entry: SafetensorsEntry, tensor: TensorProto, label: str) -> str | None:
    code = ONNX_TYPES[entry.dtype][0]
    if code != tensor.data_type:
        info = INFOS.get(tensor.data_type)
        ours = info.name if info is not None else f"data_type {tensor.data_type}"
        return f"{label} is {ours}, but the header says {entry.name!r} is {entry.dtype}"
    if entry.shape != tuple(tensor.dims):
        shape = list(entry.shape)
        return f"{label} has dims {list(tensor.dims)}, but the header says {entry.name!r} has {shape}"
    return None


def refuse_lying_safetensors(opened: Opened) -> None:
    """Raise :class:`~wirecodec.ExternalDataError` (one line, the first problem, how many
    more) when a safetensors data file of ``opened`` lies."""
    _refuse(safetensors_problems(opened), ExternalDataError)


# -- zip entries ---------------------------------------------------------------------------------


def _entry_crc(data: ZipData, entry: Entry) -> int:
    crc = 0
    for start in range(entry.data_offset, entry.data_end, _CHUNK):
        crc = zlib.crc32(data.buffer[start : min(start + _CHUNK, entry.data_end)], crc)
    return crc


def crc_problems(
    opened: Opened, sites: Iterable[tuple[str, TensorProto]] | None = None, *, whole_only: bool = False
) -> list[Problem]:
    """Each container entry (referred to by ``sites``, default every tensor) whose bytes do
    not match their CRC-32. Reads every such entry in full. ``whole_only``: only entries a
    tensor reads whole (a part of an entry cannot be checked without reading all of it)."""
    if not isinstance(opened.data, ZipData):
        return []
    data = opened.data
    seen: set[str] = set()
    problems: list[Problem] = []
    for path, tensor in sites if sites is not None else external_sites(opened):
        ref = _ref(tensor)
        entry = data.archive.by_name.get(ref.location) if ref is not None else None
        if ref is None or entry is None or entry.name in seen:
            continue
        if whole_only and (ref.offset != 0 or (ref.length is not None and ref.length != entry.size)):
            continue
        seen.add(entry.name)
        actual = _entry_crc(data, entry)
        if actual != entry.crc:
            problems.append(
                Problem(
                    path,
                    "container-crc",
                    f"entry {entry.name!r}: its bytes do not match their CRC-32 "
                    f"({actual:08x}, the archive says {entry.crc:08x}): corrupt archive",
                )
            )
    return problems


def refuse_bad_crc(opened: Opened, sites: Iterable[tuple[str, TensorProto]] | None = None) -> None:
    """Raise :class:`~wirecodec.ContainerError` when an entry that ``sites`` read whole is corrupt."""
    _refuse(crc_problems(opened, sites, whole_only=True), ContainerError)


def _refuse(problems: list[Problem], error: type[WireCodecError]) -> None:
    if not problems:
        return
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    where = f"{first.path}: " if first.path else ""  # a caller that names the tensor itself passes ""
    raise error(f"{where}{first.message}{more}")
