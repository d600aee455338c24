"""References: a tensor whose bytes live elsewhere (``data_location`` EXTERNAL), read and written.

Reading: :func:`parse_ref` checks a tensor's ``external_data`` entries, whatever layout
holds the bytes (data files, a container's entries, safetensors files).
Writing: :func:`as_reference` is the one way the writers point a tensor at a file or a
container entry (the zip container, safetensors files, a replaced model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from schema_dsl.message import Message, shallow_copy
from schema_dsl.onnx import StringStringEntryProto, TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.base.walk import iter_tensors

__all__ = [
    "DATA_FIELDS",
    "ExternalRef",
    "any_external_data",
    "as_reference",
    "label_of",
    "parse_ref",
    "uses_external_data",
]

DATA_FIELDS: Final = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data")
"""The fields that hold a numeric tensor's elements (what a reference replaces)."""

_EXTERNAL: Final = int(TensorProto.DataLocation.EXTERNAL)


def as_reference(tensor: TensorProto, location: str, offset: int, length: int) -> TensorProto:
    """A copy of ``tensor`` whose data is ``length`` bytes at ``offset`` of ``location``.

    The copy shares everything else with ``tensor``, which is left as it was; an offset of
    0 is not written (it is the default).
    """
    moved = shallow_copy(tensor, leave_out=frozenset(DATA_FIELDS))
    moved.data_type = tensor.data_type
    moved.data_location = _EXTERNAL
    refs = [StringStringEntryProto(key="location", value=location)]
    if offset:
        refs.append(StringStringEntryProto(key="offset", value=str(offset)))
    refs.append(StringStringEntryProto(key="length", value=str(length)))
    moved.external_data = refs
    return moved


_KEYS: Final = frozenset({"location", "offset", "length", "checksum", "basepath"})


@dataclass(frozen=True)
class ExternalRef:
    """Where a tensor's bytes live: ``length`` None means "to the end of the file"."""

    location: str
    offset: int
    length: int | None
    checksum: str | None


def label_of(tensor: TensorProto) -> str:
    """``tensor 'w1'``, or ``an unnamed tensor``: how messages name a tensor."""
    return f"tensor {tensor.name!r}" if tensor.name else "an unnamed tensor"


def _count(tensor: TensorProto, key: str, text: str) -> int:
    # Digits only: int() would also take "+1", " 1", "1_000" and "-1".
    if not text.isascii() or not text.isdigit():
        raise ExternalDataError(f"{label_of(tensor)}: external_data {key}={text!r} is not a byte count")
    # int() refuses strings of more than 4300 digits with a ValueError; no file is that big.
    if len(text.lstrip("0")) > 20:
        raise ExternalDataError(f"{label_of(tensor)}: external_data {key} has {len(text)} digits, too large")
    return int(text)


def parse_ref(tensor: TensorProto) -> ExternalRef:
    """Read and check a tensor's ``external_data`` entries."""
    entries: dict[str, str] = {}
    for entry in tensor.external_data:
        if entry.key not in _KEYS:
            raise ExternalDataError(f"{label_of(tensor)}: unknown external_data key {entry.key!r}")
        if entry.key in entries:
            raise ExternalDataError(f"{label_of(tensor)}: external_data key {entry.key!r} given twice")
        entries[entry.key] = entry.value
    location = entries.get("location")
    if not location:
        raise ExternalDataError(f"{label_of(tensor)}: external_data has no location")
    offset = _count(tensor, "offset", entries["offset"]) if "offset" in entries else 0
    length = _count(tensor, "length", entries["length"]) if "length" in entries else None
    return ExternalRef(location, offset, length, entries.get("checksum"))


def uses_external_data(tensor: TensorProto) -> bool:
    return tensor.HasField("data_location") and tensor.data_location == _EXTERNAL


# data_location is field 14, a varint: its tag is the byte 0x70, or starts with 0xf0 when
# written in more bytes than needed. Encoded messages with neither byte hold no such field.
_DATA_LOCATION_TAGS: Final = (b"\x70", b"\xf0")


def any_external_data(model: Message) -> bool:
    """Whether any tensor in ``model`` refers to external data; loads nothing that waits."""
    tensors = iter_tensors(model, peek=True, needles=_DATA_LOCATION_TAGS)
    return any(uses_external_data(t) for t in tensors)
