"""External tensor data: sound references to files in the model's directory (IR.md, "External Tensor Data").

Without a ``base_dir`` only the references themselves are checked. With one, each data
file is found (through the loader's own resolver, so the checker refuses exactly what
``wirecodec.load`` refuses) and the ranges are compared with the file's size; ``full``
also reads each file to verify a ``checksum`` (SHA1 of the whole file, onnx.proto).
"""

from __future__ import annotations

import hashlib
import pathlib
from dataclasses import dataclass, field
from typing import Final

from schema_dsl.onnx import TensorProto
from wirecodec.checker.tensors import element_count, is_external
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import ModelSites
from wirecodec.errors import WireCodecError
from wirecodec.files.base.tensor_data import Located, TensorData
from wirecodec.protobuf.fieldpath import join
from wirecodec.tensors.dtypes import INFOS, TYPED_FIELDS, raw_size

__all__ = ["RULES", "check_external"]

_SECTION = "IR.md: External Tensor Data"
EXTERNAL_FLAG = Rule(
    "external-flag",
    "onnx.proto: TensorProto.data_location",
    "a tensor with external_data entries has data_location EXTERNAL, and an EXTERNAL one has entries",
)
EXTERNAL_KEYS = Rule(
    "external-keys",
    "onnx.proto: TensorProto.external_data",
    "external_data keys are the recognized ones, each given once, and 'location' is among them",
)
EXTERNAL_NUMBER = Rule(
    "external-number", "onnx.proto: TensorProto.external_data", "offset and length are decimal byte counts"
)
EXTERNAL_INLINE_DATA = Rule(
    "external-inline-data", _SECTION, "a tensor stored externally does not also use raw_data or a typed field"
)
EXTERNAL_PATH = Rule(
    "external-path", _SECTION, "location is a relative path that stays inside the model's directory"
)
EXTERNAL_LENGTH = Rule(
    "external-length", _SECTION, "the external byte range holds exactly the elements dims count"
)
EXTERNAL_FILE = Rule(
    "external-file",
    _SECTION,
    "(with base_dir) the data file exists as a regular file inside the model's directory",
)
EXTERNAL_RANGE = Rule(
    "external-range", _SECTION, "(with base_dir) offset and length lie within the data file"
)
EXTERNAL_CHECKSUM = Rule(
    "external-checksum", _SECTION, "(full=True) a checksum, when given, is the SHA1 digest of the data file"
)

RULES = (
    EXTERNAL_FLAG,
    EXTERNAL_KEYS,
    EXTERNAL_NUMBER,
    EXTERNAL_INLINE_DATA,
    EXTERNAL_PATH,
    EXTERNAL_LENGTH,
    EXTERNAL_FILE,
    EXTERNAL_RANGE,
    EXTERNAL_CHECKSUM,
)

_KEYS: Final = frozenset({"location", "offset", "length", "checksum", "basepath"})  # basepath: onnx writes it


@dataclass
class _Files:
    """What the checker learned about each data file (or container entry), so each is
    located, stat'ed and hashed once, and a missing one is reported once."""

    data: TensorData | None
    full: bool
    refused: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # location -> path, why, count
    digests: dict[pathlib.Path, str] = field(default_factory=dict)

    def find(self, path: str, location: str, tensor: TensorProto) -> Located | None:
        """Where ``tensor``'s bytes are, or None when its location is refused (noted once per location)."""
        assert self.data is not None
        refused = self.refused.get(location)
        if refused is not None:
            self.refused[location] = (refused[0], refused[1], refused[2] + 1)
            return None
        try:
            return self.data.whole(location, tensor)
        except WireCodecError as exc:
            self.refused[location] = (path, _without_tensor(str(exc)), 1)
            return None

    def sha1(self, path: pathlib.Path) -> str:
        if path not in self.digests:
            digest = hashlib.sha1(usedforsecurity=False)
            with path.open("rb") as file:
                for chunk in iter(lambda: file.read(1 << 20), b""):
                    digest.update(chunk)
            self.digests[path] = digest.hexdigest()
        return self.digests[path]


def _without_tensor(message: str) -> str:
    """A resolver's message without its leading ``tensor 'w': ``: the problem is the file's."""
    head, sep, rest = message.partition(": ")
    return rest if sep and (head.startswith("tensor ") or head == "an unnamed tensor") else message


def check_external(sites: ModelSites, report: Report, *, data: TensorData | None, full: bool) -> None:
    """Report every external-data violation; files are consulted only with ``data`` (a resolver)."""
    files = _Files(data, full)
    for site in sites.tensors:
        tensor, path = site.tensor, site.path
        if not is_external(tensor):
            if tensor.external_data:
                report.add(
                    join(path, "data_location"),
                    EXTERNAL_FLAG,
                    "the tensor has external_data entries but data_location is not EXTERNAL",
                )
            continue
        _tensor(report, path, tensor, files)
    for location, (path, why, count) in files.refused.items():
        others = f" ({count} tensors refer to {location!r}; this is the first)" if count > 1 else ""
        report.add(path, EXTERNAL_FILE, why + others)


def _count(report: Report, path: str, key: str, text: str) -> int | None:
    # Digits only: int() would also take "+1", " 1" and "1_000".
    if not text.isascii() or not text.isdigit() or len(text) > 20:
        report.add(path, EXTERNAL_NUMBER, f"external_data {key}={text!r} is not a byte count")
        return None
    return int(text)


def _tensor(report: Report, path: str, tensor: TensorProto, files: _Files) -> None:
    if not tensor.external_data:
        report.add(
            join(path, "external_data"), EXTERNAL_FLAG, "data_location is EXTERNAL but external_data is empty"
        )
        return
    inline = (["raw_data"] if tensor.HasField("raw_data") else []) + [
        n for n in TYPED_FIELDS if len(getattr(tensor, n))
    ]
    for name in inline:
        report.add(
            join(path, name), EXTERNAL_INLINE_DATA, f"the tensor is stored externally but also has {name}"
        )
    entries: dict[str, tuple[int, str]] = {}
    for i, entry in enumerate(tensor.external_data):
        where = join(join(path, "external_data", i), "key")
        if entry.key not in _KEYS:
            report.add(where, EXTERNAL_KEYS, f"unknown external_data key {entry.key!r}")
        elif entry.key in entries:
            report.add(
                where,
                EXTERNAL_KEYS,
                f"key {entry.key!r} is already given at external_data[{entries[entry.key][0]}]",
            )
        else:
            entries[entry.key] = (i, entry.value)
    if "location" not in entries or not entries["location"][1]:
        report.add(join(path, "external_data"), EXTERNAL_KEYS, "external_data has no location")
        return
    numbers: dict[str, int | None] = {}
    for key in ("offset", "length"):
        if key in entries:
            i, text = entries[key]
            numbers[key] = _count(report, join(join(path, "external_data", i), "value"), key, text)
    if any(value is None for value in numbers.values()):
        return
    offset, length = numbers.get("offset") or 0, numbers.get("length")
    expected = _expected_size(tensor)
    if length is not None and expected is not None and length != expected:
        report.add(
            join(join(path, "external_data", entries["length"][0]), "value"),
            EXTERNAL_LENGTH,
            f"length {length} does not hold dims {list(tensor.dims)}, which need {expected} bytes",
        )
    i, location = entries["location"]
    where = join(join(path, "external_data", i), "value")
    if not _relative_inside(report, where, location) or files.data is None:
        return
    found = files.find(where, location, tensor)
    if found is None:
        return
    size = found.size
    end = offset + (length if length is not None else max(size - offset, 0))
    if offset > size or end > size:
        report.add(
            where, EXTERNAL_RANGE, f"bytes {offset}..{end} run past the end of {location!r} ({size} bytes)"
        )
    elif length is None and expected is not None and size - offset != expected:
        report.add(
            where,
            EXTERNAL_LENGTH,
            f"the {size - offset} bytes from offset {offset} to the end of {location!r} do not hold "
            f"dims {list(tensor.dims)}, which need {expected}",
        )
    if files.full and "checksum" in entries and found.path is not None:
        j, checksum = entries["checksum"]
        actual = files.sha1(found.path)
        if checksum.lower() != actual:
            report.add(
                join(join(path, "external_data", j), "value"),
                EXTERNAL_CHECKSUM,
                f"checksum {checksum!r} is not the SHA1 of {location!r} ({actual})",
            )


def _expected_size(tensor: TensorProto) -> int | None:
    info = INFOS.get(tensor.data_type)
    count = element_count(tensor)
    if info is None or info.bits == 0 or count is None or tensor.HasField("segment"):
        return None
    return raw_size(info.code, count)


def _relative_inside(report: Report, path: str, location: str) -> bool:
    posix = pathlib.PurePosixPath(location.replace("\\", "/"))
    windows = pathlib.PureWindowsPath(location)
    if "\x00" in location:
        problem = "contains a NUL byte"
    elif posix.is_absolute() or windows.is_absolute() or windows.drive:
        problem = "is absolute; it must be relative to the model's directory"
    elif ".." in posix.parts:
        problem = "contains '..'"
    else:
        return True
    report.add(path, EXTERNAL_PATH, f"location {location!r} {problem}")
    return False
