"""The safetensors file format: its header, its element types, and how files are laid out.

A safetensors file is 8 bytes ``N`` (an unsigned little-endian 64-bit count), ``N``
bytes of a UTF-8 JSON object (it may be padded at the end with spaces), then the byte
buffer. Every key of the object but ``__metadata__`` names a tensor:
``{"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]}``, offsets relative
to the start of the buffer. ``__metadata__`` maps strings to strings. The tensors cover
the buffer exactly: no holes, no overlap, nothing after the last one.

Because an ONNX external-data reference is (location, offset, length), a tensor's
reference can point straight at its bytes in such a file: offset = ``data_start`` +
begin. That is all wirecodec needs to read one; this module parses and checks headers
(:func:`read_header`) and lays out new files (:func:`layout`, :func:`encode_header`).

Element types map both ways with ONNX's (:data:`ONNX_TYPES`); the others are refused
with :class:`~wirecodec.ExternalDataError` (:func:`onnx_type`, :func:`safetensors_dtype`).

>>> entries = layout([("b", "F16", (2,), 4), ("a", "F32", (3,), 12)])
>>> [(e.name, e.begin, e.end) for e in entries]
[('a', 0, 12), ('b', 12, 16)]
>>> prefix = encode_header(entries, align=64)
>>> len(prefix) % 64, parse_header(prefix[8:], len(prefix) + 16, "x").entries["b"].shape
(0, (2,))
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from schema_dsl.onnx import TensorProto
from wirecodec.errors import ExternalDataError

__all__ = [
    "MAX_HEADER_SIZE",
    "ONNX_TYPES",
    "Entry",
    "Header",
    "byte_size",
    "encode_header",
    "layout",
    "onnx_type",
    "parse_header",
    "read_header",
    "safetensors_dtype",
]

DataType = TensorProto.DataType

# The reference implementation refuses bigger headers; so do we (a lying N must not
# make us read or allocate gigabytes).
MAX_HEADER_SIZE: Final = 100_000_000
_PREFIX: Final = 8
METADATA_KEY: Final = "__metadata__"

# safetensors dtype -> (ONNX data type, bits per element). The bytes are the same on
# both sides: little-endian, row-major; F4 packs two elements a byte, first element in
# the low four bits, as ONNX's FLOAT4E2M1 does (and PyTorch's float4_e2m1fn_x2).
ONNX_TYPES: Final[dict[str, tuple[int, int]]] = {
    "F64": (int(DataType.DOUBLE), 64),
    "F32": (int(DataType.FLOAT), 32),
    "F16": (int(DataType.FLOAT16), 16),
    "BF16": (int(DataType.BFLOAT16), 16),
    "I64": (int(DataType.INT64), 64),
    "I32": (int(DataType.INT32), 32),
    "I16": (int(DataType.INT16), 16),
    "I8": (int(DataType.INT8), 8),
    "U64": (int(DataType.UINT64), 64),
    "U32": (int(DataType.UINT32), 32),
    "U16": (int(DataType.UINT16), 16),
    "U8": (int(DataType.UINT8), 8),
    "BOOL": (int(DataType.BOOL), 8),
    "C64": (int(DataType.COMPLEX64), 64),
    "F8_E4M3": (int(DataType.FLOAT8E4M3FN), 8),
    "F8_E5M2": (int(DataType.FLOAT8E5M2), 8),
    "F8_E4M3FNUZ": (int(DataType.FLOAT8E4M3FNUZ), 8),
    "F8_E5M2FNUZ": (int(DataType.FLOAT8E5M2FNUZ), 8),
    "F8_E8M0": (int(DataType.FLOAT8E8M0), 8),
    "F4": (int(DataType.FLOAT4E2M1), 4),
}
_DTYPES: Final[dict[int, str]] = {code: name for name, (code, _) in ONNX_TYPES.items()}
_BITS: Final[dict[str, int]] = {name: bits for name, (_, bits) in ONNX_TYPES.items()}

# Types safetensors names that have no ONNX counterpart we can vouch for.
_NO_ONNX_TYPE: Final = {
    "F6_E2M3": "safetensors does not define how 6-bit elements are packed into bytes",
    "F6_E3M2": "safetensors does not define how 6-bit elements are packed into bytes",
}


def onnx_type(dtype: str, where: str) -> int:
    """The ONNX ``data_type`` of a safetensors ``dtype`` (``where`` names it in errors).

    >>> onnx_type("BF16", "w") == TensorProto.DataType.BFLOAT16
    True
    """
    found = ONNX_TYPES.get(dtype)
    if found is None:
        why = _NO_ONNX_TYPE.get(dtype, "it is not a safetensors dtype wirecodec knows")
        raise ExternalDataError(f"{where}: safetensors dtype {dtype!r} has no ONNX element type ({why})")
    return found[0]


def safetensors_dtype(data_type: int, where: str) -> str:
    """The safetensors dtype of an ONNX ``data_type``; refused when there is none.

    >>> safetensors_dtype(TensorProto.DataType.FLOAT8E4M3FN, "w")
    'F8_E4M3'
    """
    found = _DTYPES.get(data_type)
    if found is None:
        try:
            name = DataType(data_type).name
        except ValueError:
            name = f"data_type {data_type}"
        raise ExternalDataError(
            f"{where}: {name} has no safetensors dtype (safetensors stores "
            f"{', '.join(sorted(ONNX_TYPES))}); such a tensor cannot live in a safetensors file"
        )
    return found


def byte_size(dtype: str, shape: Iterable[int], where: str) -> int:
    """Bytes that ``shape`` elements of ``dtype`` take; sub-byte tensors must fill whole bytes."""
    bits = math.prod(shape) * _BITS[dtype]
    if bits % 8:
        raise ExternalDataError(
            f"{where}: {math.prod(shape)} elements of {dtype} do not fill whole bytes, "
            "which safetensors requires"
        )
    return bits // 8


@dataclass(frozen=True)
class Entry:
    """One tensor of a safetensors file: ``begin``/``end`` are offsets into the buffer."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int

    @property
    def nbytes(self) -> int:
        return self.end - self.begin


@dataclass(frozen=True)
class Header:
    """A parsed header: tensors by name, ``__metadata__``, where the buffer starts."""

    entries: dict[str, Entry]
    metadata: dict[str, str]
    data_start: int

    def offset(self, entry: Entry) -> int:
        """The file offset of ``entry``'s first byte (what an ONNX reference records)."""
        return self.data_start + entry.begin


def _refuse_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number JSON allows")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"key {key!r} appears twice")
        result[key] = value
    return result


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _entry(name: str, info: Any, where: str) -> Entry:
    label = f"{where}: tensor {name!r}"
    if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
        raise ExternalDataError(f"{label}: needs exactly dtype, shape and data_offsets, got {info!r}")
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if not isinstance(dtype, str):
        raise ExternalDataError(f"{label}: dtype {dtype!r} is not a string")
    if dtype not in _BITS:
        onnx_type(dtype, label)  # raises, saying why
    if not isinstance(shape, list) or not all(_count(d) for d in shape):
        raise ExternalDataError(f"{label}: shape {shape!r} is not a list of sizes")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(_count(o) for o in offsets):
        raise ExternalDataError(f"{label}: data_offsets {offsets!r} is not [begin, end]")
    begin, end = offsets
    if end < begin:
        raise ExternalDataError(f"{label}: data_offsets {offsets!r} end before they begin")
    size = byte_size(dtype, shape, label)
    if end - begin != size:
        raise ExternalDataError(
            f"{label}: {dtype} {shape} takes {size} bytes but data_offsets {offsets!r} span {end - begin}"
        )
    return Entry(name, dtype, tuple(shape), begin, end)


def parse_header(text: bytes, file_size: int, where: str) -> Header:
    """Check and parse the ``N`` header bytes of a file of ``file_size`` bytes."""
    data_start = _PREFIX + len(text)
    try:
        decoded = text.decode("utf-8")
        if not decoded.lstrip(" \t\r\n").startswith("{"):
            raise ValueError("the header is not a JSON object")
        raw = json.loads(decoded, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ExternalDataError(f"{where}: not a safetensors header: {exc}") from None
    metadata = raw.pop(METADATA_KEY, {})
    if not isinstance(metadata, dict) or not all(isinstance(v, str) for v in metadata.values()):
        raise ExternalDataError(f"{where}: __metadata__ must map strings to strings")
    entries = {name: _entry(name, info, where) for name, info in raw.items()}
    position = 0
    for entry in sorted(entries.values(), key=lambda e: (e.begin, e.end)):
        if entry.begin != position:
            what = "overlaps the tensor before it" if entry.begin < position else "leaves a hole before it"
            raise ExternalDataError(f"{where}: tensor {entry.name!r} at {entry.begin} {what}")
        position = entry.end
    if data_start + position != file_size:
        raise ExternalDataError(
            f"{where}: the tensors cover {position} bytes after the {data_start}-byte header, but the "
            f"file has {file_size - data_start}"
        )
    return Header(entries, dict(metadata), data_start)


def read_header(path: str | os.PathLike[str]) -> Header:
    """Read and check the header of the safetensors file at ``path`` (the data is not read)."""
    where = os.fspath(path)
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        prefix = file.read(_PREFIX)
        if len(prefix) < _PREFIX:
            raise ExternalDataError(f"{where}: {size} bytes, too short for a safetensors file")
        (length,) = struct.unpack("<Q", prefix)
        if length > MAX_HEADER_SIZE:
            raise ExternalDataError(
                f"{where}: header length {length} is over the limit of {MAX_HEADER_SIZE} bytes"
            )
        if _PREFIX + length > size:
            raise ExternalDataError(
                f"{where}: header length {length} runs past the end of the file ({size} bytes)"
            )
        text = file.read(length)
    return parse_header(text, size, where)


def layout(items: Iterable[tuple[str, str, tuple[int, ...], int]]) -> list[Entry]:
    """Entries for ``(name, dtype, shape, nbytes)`` items, packed with no holes.

    Wider elements come first (a stable sort, so otherwise in the given order): with the
    buffer itself aligned, every tensor then starts at a multiple of its element size.
    """
    ordered = sorted(items, key=lambda item: -_BITS[item[1]])
    entries: list[Entry] = []
    position = 0
    for name, dtype, shape, nbytes in ordered:
        entries.append(Entry(name, dtype, shape, position, position + nbytes))
        position += nbytes
    return entries


def encode_header(
    entries: Iterable[Entry], *, align: int = 8, metadata: Mapping[str, str] | None = None
) -> bytes:
    """The 8-byte length and the JSON header, padded with spaces so the buffer starts at a
    multiple of ``align`` (a power of two, at least 8, as the format asks)."""
    if align < 8 or align & (align - 1):
        raise ValueError(f"align must be a power of two of at least 8, got {align}")
    header: dict[str, Any] = {}
    if metadata:
        header[METADATA_KEY] = dict(metadata)
    for entry in entries:
        header[entry.name] = {
            "dtype": entry.dtype,
            "shape": list(entry.shape),
            "data_offsets": [entry.begin, entry.end],
        }
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    total = -(-(_PREFIX + len(text)) // align) * align
    text += b" " * (total - _PREFIX - len(text))
    return struct.pack("<Q", len(text)) + text
