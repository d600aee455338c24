"""Planning a save with external data: which tensors move out, where each one lands.

The caller's model is never modified: tensors that move get replacement copies, and
only the messages on the path from the root to them are shallow-copied.
"""

from __future__ import annotations

import os
import pathlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from schema_dsl.message import shallow_copy
from schema_dsl.onnx import (
    ModelProto,
    StringStringEntryProto,
    TensorProto,
)
from schema_dsl.views import holding_views
from wirecodec.errors import ExternalDataError, TensorError
from wirecodec.files._base.locations import relative_location_problem
from wirecodec.files._base.options import SaveOptions
from wirecodec.files._base.raw import raw_bytes
from wirecodec.files._base.references import DATA_FIELDS, uses_external_data
from wirecodec.files._base.walk import substitute, tensors

_SMALL_ALIGN: Final = 64  # below the page alignment, still aligned for any element type


@dataclass
class DataFile:
    """One external data file: its name relative to the model and its payloads in order."""

    location: str
    parts: list[tuple[int, Any]] = field(default_factory=list)  # (offset, bytes-like)
    size: int = 0


@dataclass
class Plan:
    model: ModelProto
    files: list[DataFile]


def check_location(location: str) -> None:
    """A location we write must stay inside the model's directory (CVE-2025-51480)."""
    problem = "is empty" if not location else relative_location_problem(location)
    if problem is not None:
        raise ExternalDataError(
            f"refusing to write external data to {location!r}: it {problem}; "
            "it must be a relative path inside the model's directory"
        )


def data_path(model_dir: pathlib.Path, location: str) -> pathlib.Path:
    """Where a data file at ``location`` will be written, checked to stay in ``model_dir``.

    The lexical check (:func:`check_location`) is not enough: a directory inside the model
    directory may be a symlink to anywhere. So the directory the file lands in must
    resolve inside the model directory, exist, and the name must not be a directory.
    (A symlink *named* like the file is fine: the rename replaces the link itself.)
    """
    check_location(location)
    path = model_dir / location
    if location.endswith(("/", "\\")) or path.name in ("", ".", "..") or path.is_dir():
        raise ExternalDataError(f"refusing to write external data to {location!r}: it names a directory")
    root = os.path.realpath(model_dir)
    folder = os.path.realpath(path.parent)
    if os.path.commonpath([root, folder]) != root:
        raise ExternalDataError(
            f"refusing to write external data to {location!r}: its directory resolves to "
            f"{folder!r}, outside the model's directory"
        )
    if not os.path.isdir(folder):
        raise ExternalDataError(f"cannot write external data to {location!r}: no directory {folder!r}")
    return path


def _safe_name(name: str, used: set[str]) -> str:
    base = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "tensor"
    base = base[:120]
    candidate, n = base, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{base}.{n}"
    used.add(candidate.lower())
    return candidate


def _payload(tensor: TensorProto) -> Any | None:
    """The raw bytes a tensor would move out, or None if it has none we can move."""
    if uses_external_data(tensor) or tensor.data_type == TensorProto.DataType.STRING:
        return None
    try:
        return raw_bytes(tensor)
    except TensorError:
        return None  # a tensor whose typed data is not a valid array stays inline, as it was


@holding_views()  # tensors found in one walk are looked up by id in the next
def plan(
    model: ModelProto, model_path: pathlib.Path, options: SaveOptions, *, taken: Iterable[str] = ()
) -> Plan:
    """Which tensors move where. ``taken``: lower-cased names per-tensor files must avoid
    (files in the directory that the model being replaced does not own)."""
    size_threshold, all_tensors_to_one_file = options.size_threshold, options.all_tensors_to_one_file
    align, max_shard_size, convert_attribute = (
        options.align,
        options.max_shard_size,
        options.convert_attribute,
    )
    location = options.location or f"{model_path.name}.data"
    check_location(location)

    replacements: dict[int, TensorProto] = {}
    files: list[DataFile] = []
    used_names: set[str] = {model_path.name.lower(), *taken}
    current: DataFile | None = None
    shard = 0
    # Exactly the tensors onnx's own save moves, and no others: onnx.load resolves external
    # data only for these (initializers of every graph and subgraph; with
    # ``convert_attribute``, attribute tensors too, in functions as well). A sparse
    # tensor's values, or a training graph's initializer, written out would not load in onnx.
    moved_by_onnx = tensors(
        model, attributes=convert_attribute, sparse=False, functions=convert_attribute, training=False
    )
    for tensor in moved_by_onnx:
        if id(tensor) in replacements:
            continue
        payload = _payload(tensor)
        if payload is None or len(payload) < size_threshold:
            continue
        size = len(payload)
        if not all_tensors_to_one_file:
            current = DataFile(_safe_name(tensor.name or "tensor", used_names))
            files.append(current)
        elif current is None or (
            max_shard_size is not None and current.size and current.size + size > max_shard_size
        ):
            name = location if max_shard_size is None else f"{location}.{shard}"
            shard += 1
            current = DataFile(name)
            files.append(current)
        step = align if size >= align else _SMALL_ALIGN
        offset = -(-current.size // step) * step
        current.parts.append((offset, payload))
        current.size = offset + size

        moved = shallow_copy(tensor, leave_out=frozenset(DATA_FIELDS))
        if not tensor.HasField("raw_data"):
            moved.data_type = tensor.data_type
        moved.data_location = int(TensorProto.DataLocation.EXTERNAL)
        moved.external_data = [
            StringStringEntryProto(key="location", value=current.location),
            StringStringEntryProto(key="offset", value=str(offset)),
            StringStringEntryProto(key="length", value=str(size)),
        ]
        replacements[id(tensor)] = moved

    new_model = substitute(model, replacements)
    assert isinstance(new_model, ModelProto)
    return Plan(new_model, files)
