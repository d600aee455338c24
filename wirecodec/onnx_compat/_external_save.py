"""``onnx_compat.save_model(..., save_as_external_data=True)``: onnx's files, written wirecodec's way.

onnx marks the tensors (``convert_model_to_external_data``), appends each marked one
that holds ``raw_data`` to its file in the order ``write_external_data_tensors`` visits
them, and serializes the model. This module computes the same layout — the same tensors
(``raw_data`` only, counted with ``sys.getsizeof`` against the threshold), the same file
names, the same offsets (back to back, no alignment; a tensor already marked with an
``offset`` keeps it, padded with zeros as onnx pads) — without changing the caller's
model, and writes the data files and the model atomically. A data file left by an
earlier save is appended to, as onnx appends (the file grows on every save): the models
pointing into it keep their bytes (wirecodec.files.external.write.held_bytes, as
wirecodec's own saver). Each data file is still replaced atomically, by a copy of the
bytes it held followed by the new ones.
"""

from __future__ import annotations

import os
import pathlib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from schema_dsl.message import shallow_copy
from schema_dsl.onnx import ModelProto, StringStringEntryProto, TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.files.base.walk import ByIdentity, substitute
from wirecodec.files.external.write import data_path, held_bytes
from wirecodec.onnx_compat import external_data_helper as helper
from wirecodec.onnx_compat._errors import ExternalDataValidationError
from wirecodec.protobuf.payloads import write_payload

__all__ = ["OnnxLayout", "onnx_layout", "save_with_onnx_layout"]

_LEFT_OUT = frozenset({"raw_data", "external_data"})


@dataclass
class DataFile:
    """One data file: its location (relative to the model) and its ``(offset, payload)`` parts."""

    location: str
    parts: list[tuple[int, Any]] = field(default_factory=list)
    size: int = 0


@dataclass
class OnnxLayout:
    """The model as onnx serializes it after the save, and the data files it writes."""

    model: ModelProto
    files: list[DataFile]


def _marked(
    model: ModelProto,
    all_tensors_to_one_file: bool,
    location: str | None,
    size_threshold: int,
    convert_attribute: bool,
    default_location: str | None,
) -> dict[int, str]:
    """``id(tensor)`` -> location, for the tensors onnx's ``convert_model_to_external_data`` marks."""
    candidates = (
        helper._get_all_tensors(model) if convert_attribute else helper._get_initializer_tensors(model)
    )
    large = [
        t
        for t in candidates
        if t.HasField("raw_data") and len(t.raw_data) + helper._BYTES_OVERHEAD >= size_threshold
    ]
    if all_tensors_to_one_file:
        file_name = default_location or f"{uuid.uuid1()}.data"
        if location:
            if os.path.isabs(location):
                raise ValueError("location must be a relative path that is relative to the model path.")
            if os.path.exists(location):  # onnx checks the name against the current directory
                raise FileExistsError(f"External data file exists in {location}.")
            file_name = location
        return {id(t): file_name for t in large}
    marks = {}
    for tensor in large:
        name = tensor.name
        marks[id(tensor)] = name if helper._VALID_FILE_NAME.match(name) else str(uuid.uuid1())
    return marks


def _entries(location: str, offset: int, length: int) -> list[StringStringEntryProto]:
    return [
        StringStringEntryProto(key="location", value=location),
        StringStringEntryProto(key="offset", value=str(offset)),
        StringStringEntryProto(key="length", value=str(length)),
    ]


def onnx_layout(
    model: ModelProto,
    *,
    convert: bool,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
    default_location: str | None = None,
    held: Callable[[str], Any] = lambda location: None,
) -> OnnxLayout:
    """The layout onnx's ``save_model`` gives ``model`` (``convert``: with ``save_as_external_data``).

    ``default_location`` names the one data file when ``location`` is None (onnx: a random name);
    ``held(location)`` is what a data file already there holds (None: nothing), appended to.
    """
    # Every tensor held while the walks below look it up by identity (wirecodec.files.base.walk).
    tensors = list(helper._get_all_tensors(model))
    marks = (
        _marked(model, all_tensors_to_one_file, location, size_threshold, convert_attribute, default_location)
        if convert
        else {}
    )
    files: dict[str, DataFile] = {}
    replacements: ByIdentity[TensorProto] = ByIdentity()
    for tensor in tensors:
        where = marks.get(id(tensor))
        wanted: int | None = None
        if where is None:
            if not (helper.uses_external_data(tensor) and tensor.HasField("raw_data")):
                continue
            info = helper.ExternalDataInfo(tensor)
            where, wanted = info.location, info.offset
        data = files.get(where)
        if data is None:
            data = files[where] = DataFile(where)
            kept = held(where)
            if kept is not None:
                data.parts.append((0, kept))
                data.size = len(kept)
        if wanted is not None and not 0 <= wanted - data.size <= helper._MAX_PADDING:
            raise ExternalDataValidationError(
                f"External data offset ({wanted}) for tensor {tensor.name!r} must be between the "
                f"current file size ({data.size}) and {data.size + helper._MAX_PADDING}.",
                tensor.name,
            )
        offset = data.size if wanted is None else wanted
        payload = tensor.raw_data
        data.parts.append((offset, payload))
        data.size = offset + len(payload)
        moved = shallow_copy(tensor, leave_out=_LEFT_OUT)
        moved.data_location = TensorProto.EXTERNAL
        moved.external_data = _entries(where, offset, len(payload))
        replacements[tensor] = moved
    new_model = substitute(model, replacements)
    assert isinstance(new_model, ModelProto)
    return OnnxLayout(new_model, list(files.values()))


def _write_parts(out: Any, parts: list[tuple[int, Any]]) -> None:
    at = 0
    for offset, payload in parts:
        out.write(b"\0" * (offset - at))
        write_payload(out, payload)  # as the write-back: file to file, never all resident
        at = offset + len(payload)


def _held(base_dir: pathlib.Path) -> Callable[[str], Any]:
    def held(location: str) -> Any:
        try:
            path = data_path(base_dir, location)
        except ExternalDataError:
            return None  # a bad location is refused when it is written (_paths)
        return None if path.is_symlink() else held_bytes(path, location)

    return held


def _paths(base_dir: pathlib.Path, layout: OnnxLayout) -> Iterator[tuple[pathlib.Path, DataFile]]:
    for data in layout.files:
        target = base_dir / data.location
        if target.is_symlink():  # onnx refuses to write through one (it could lead anywhere)
            raise ExternalDataValidationError(
                f"refusing to write external data to {data.location!r}: it is a symbolic link", data.location
            )
        if not target.parent.exists() and target.parent.resolve().is_relative_to(base_dir.resolve()):
            target.parent.mkdir(parents=True, exist_ok=True)  # as onnx creates the subfolder
        try:
            yield data_path(base_dir, data.location), data
        except Exception as error:
            raise ExternalDataValidationError(str(error), data.location) from error


def save_with_onnx_layout(
    model: ModelProto,
    model_path: pathlib.Path,
    write_model: Callable[[ModelProto, AtomicFiles], None],
    **options: Any,
) -> None:
    """Write the data files of onnx's layout beside ``model_path``, then the model (by ``write_model``),
    all put in place together."""
    base_dir = model_path.parent
    layout = onnx_layout(model, held=_held(base_dir), **options)
    with AtomicFiles(durable=False) as files:  # onnx does not fsync either
        for path, data in list(_paths(base_dir, layout)):
            with files.open(path) as out:
                _write_parts(out, data.parts)
            data.parts.clear()  # a kept file's map goes before the renames (writeback's reason)
        write_model(layout.model, files)
        files.commit()
