"""``onnx.external_data_helper``: mark, write and read tensors whose bytes live in other files.

These functions change the tensors they are given, as onnx's do (``wirecodec.save``
and ``wirecodec.load`` are the ways that leave the caller's model alone). A location is
resolved as :func:`wirecodec.load` resolves it: relative, inside the base directory,
no symlink or hard link leading out; a location that breaks this is a
:class:`~wirecodec.CheckError` (onnx: ``onnx.checker.ValidationError``).

>>> import numpy as np, tempfile
>>> from wirecodec.numpy_helper import from_array, to_array
>>> folder = tempfile.mkdtemp()
>>> tensor = from_array(np.arange(4, dtype=np.int32), "t")
>>> set_external_data(tensor, "t.bin")
>>> save_external_data(tensor, folder)
>>> [(e.key, e.value) for e in tensor.external_data]
[('location', 't.bin'), ('offset', '0'), ('length', '16')]
>>> tensor.ClearField("raw_data")
>>> load_external_data_for_tensor(tensor, folder)
>>> to_array(tensor).tolist(), uses_external_data(tensor)
([0, 1, 2, 3], False)
"""

from __future__ import annotations

import itertools
import os
import pathlib
import re
import sys
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator

from schema_dsl.onnx import AttributeProto, FunctionProto, GraphProto, ModelProto, TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.base.locations import relative_location_problem
from wirecodec.files.external.read import resolve
from wirecodec.onnx_compat._errors import ExternalDataValidationError

__all__ = [
    "ExternalDataInfo",
    "convert_model_from_external_data",
    "convert_model_to_external_data",
    "load_external_data_for_model",
    "load_external_data_for_tensor",
    "remove_external_data_field",
    "save_external_data",
    "set_external_data",
    "uses_external_data",
    "write_external_data_tensors",
]

_KEYS = ("location", "offset", "length", "checksum", "basepath")
_ALLOWED_EXTERNAL_DATA_KEYS = frozenset(_KEYS)  # onnx's private names, which its tests read
# An offset may leave a gap after the end of the file to align a tensor, never more than this.
_MAX_PADDING = _MAX_EXTERNAL_DATA_PADDING = 64 * 1024
_BYTES_OVERHEAD = sys.getsizeof(b"")  # onnx compares sys.getsizeof(raw_data) with the threshold


def _refused(tensor: TensorProto, message: str) -> ExternalDataValidationError:
    """The error onnx raises as checker.ValidationError (here also an ExternalDataError)."""
    return ExternalDataValidationError(message, f"tensor {tensor.name!r}")


def refuse_symlink(tensor: TensorProto, base_dir: str | os.PathLike[str], location: str) -> None:
    """onnx refuses a data file that is a symbolic link, wherever it points (wirecodec follows
    one that stays inside the model's directory)."""
    if location and (pathlib.Path(base_dir) / location).is_symlink():
        raise _refused(tensor, f"tensor {tensor.name!r}: data file {location!r} is a symbolic link")


def drop_unknown_keys(tensor: TensorProto) -> None:
    """Remove ``external_data`` entries with keys onnx does not know, warning as onnx does."""
    if any(entry.key not in _KEYS for entry in tensor.external_data):
        ExternalDataInfo(tensor)  # the warning
        kept = [entry for entry in tensor.external_data if entry.key in _KEYS]
        del tensor.external_data[:]
        tensor.external_data.extend(kept)


class ExternalDataInfo:
    """The ``external_data`` entries of a tensor, parsed: location, offset, length, checksum, basepath.

    Unknown keys are ignored with a warning; a negative offset or length is a ``ValueError``.
    """

    def __init__(self, tensor: TensorProto) -> None:
        self.location = ""
        self.offset: int | None = None
        self.length: int | None = None
        self.checksum: str | None = None
        self.basepath = ""
        unknown = []
        for entry in tensor.external_data:
            if entry.key not in _KEYS:
                unknown.append(entry.key)
            elif entry.key in ("offset", "length"):
                value = int(entry.value)
                if value < 0:
                    raise ValueError(
                        f"External data {entry.key} must be non-negative, got {value} "
                        f"for tensor {tensor.name!r}"
                    )
                setattr(self, entry.key, value)
            else:
                setattr(self, entry.key, entry.value)
        if unknown:
            warnings.warn(
                f"Ignoring unknown external data key(s) {sorted(unknown)} for tensor {tensor.name!r}. "
                f"Allowed keys: {sorted(_KEYS)}",
                stacklevel=2,
            )


def _data_file(tensor: TensorProto, base_dir: str | os.PathLike[str], location: str) -> pathlib.Path:
    """The existing data file of ``location`` under ``base_dir``, proven safe."""
    refuse_symlink(tensor, base_dir, location)
    try:
        return resolve(pathlib.Path(base_dir), location, tensor)
    except ExternalDataError as error:
        if "does not exist" in str(error):
            raise FileNotFoundError(str(error)) from None
        raise _refused(tensor, str(error)) from None


def _read(tensor: TensorProto, base_dir: str | os.PathLike[str]) -> bytes:
    info = ExternalDataInfo(tensor)
    path = _data_file(tensor, base_dir, info.location)
    with open(path, "rb") as data_file:
        size = os.fstat(data_file.fileno()).st_size
        start = info.offset or 0
        if start > size:
            raise ValueError(
                f"External data offset ({start}) exceeds file size ({size}) for tensor {tensor.name!r}"
            )
        data_file.seek(start)
        if info.length is None:
            return data_file.read()
        if info.length > size - start:
            raise ValueError(
                f"External data length ({info.length}) exceeds available data ({size - start} bytes "
                f"from offset {start}) for tensor {tensor.name!r}"
            )
        return data_file.read(info.length)


def load_external_data_for_tensor(tensor: TensorProto, base_dir: str | os.PathLike[str]) -> None:
    """Read the tensor's bytes into ``raw_data``; it then no longer refers to a file."""
    tensor.raw_data = _read(tensor, base_dir)
    tensor.data_location = TensorProto.DEFAULT
    del tensor.external_data[:]


def load_external_data_for_model(model: ModelProto, base_dir: str | os.PathLike[str]) -> None:
    """:func:`load_external_data_for_tensor` for every tensor of the model that uses external data."""
    for tensor in _get_all_tensors(model):
        if uses_external_data(tensor):
            load_external_data_for_tensor(tensor, base_dir)


def set_external_data(
    tensor: TensorProto,
    location: str,
    offset: int | None = None,
    length: int | None = None,
    checksum: str | None = None,
    basepath: str | None = None,
) -> None:
    """Mark a tensor with ``raw_data`` as external, with these entries (``None`` ones left out)."""
    if not tensor.HasField("raw_data"):
        raise ValueError(
            f"Tensor {tensor.name} does not have raw_data field. Cannot set external data for this tensor."
        )
    del tensor.external_data[:]
    tensor.data_location = TensorProto.EXTERNAL
    values = (location, offset, length, checksum, basepath)
    for key, value in zip(_KEYS, values, strict=True):
        if value is not None:
            entry = tensor.external_data.add()
            entry.key = key
            entry.value = str(int(value)) if key in ("offset", "length") else str(value)


_VALID_FILE_NAME = re.compile(r'^[^<>:;,?"*|/]+$')


def convert_model_to_external_data(
    model: ModelProto,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """Mark the model's large tensors as external; :func:`write_external_data_tensors` (or
    saving the model to a path) then writes them.

    A tensor is marked when it has ``raw_data`` and that is at least ``size_threshold``
    (counted as onnx counts: ``sys.getsizeof`` of the bytes). Initializers only, unless
    ``convert_attribute``. One file ``location`` (default a fresh uuid name), or one per
    tensor named after it.
    """
    tensors = _get_all_tensors(model) if convert_attribute else _get_initializer_tensors(model)
    large = [
        t for t in tensors if t.HasField("raw_data") and len(t.raw_data) + _BYTES_OVERHEAD >= size_threshold
    ]
    if all_tensors_to_one_file:
        file_name = f"{uuid.uuid1()}.data"
        if location:
            if os.path.isabs(location):
                raise ValueError("location must be a relative path that is relative to the model path.")
            if os.path.exists(location):
                raise FileExistsError(f"External data file exists in {location}.")
            file_name = location
        for tensor in large:
            set_external_data(tensor, file_name)
    else:
        for tensor in large:
            name = tensor.name if _VALID_FILE_NAME.match(tensor.name) else str(uuid.uuid1())
            set_external_data(tensor, name)


def convert_model_from_external_data(model: ModelProto) -> None:
    """Unmark the model's external tensors, which must hold their bytes in ``raw_data`` already."""
    for tensor in _get_all_tensors(model):
        if uses_external_data(tensor):
            if not tensor.HasField("raw_data"):
                raise ValueError("raw_data field doesn't exist.")
            del tensor.external_data[:]
            tensor.data_location = TensorProto.DEFAULT


def _writable_file(tensor: TensorProto, base_path: str | os.PathLike[str], location: str) -> pathlib.Path:
    """The data file of ``location`` under ``base_path`` for writing: created if missing, proven safe."""
    problem = relative_location_problem(location)
    if problem is not None:
        raise _refused(tensor, f"location {location!r} {problem}")
    root = pathlib.Path(base_path).resolve()
    path = root / location
    if not path.exists() and not path.is_symlink():
        # Checked before anything is created: a symlinked folder on the way could lead out.
        if not path.parent.resolve().is_relative_to(root):
            raise _refused(tensor, f"location {location!r} leads outside the model directory")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch()
    return _data_file(tensor, root, location)


def save_external_data(tensor: TensorProto, base_path: str | os.PathLike[str]) -> None:
    """Append the tensor's ``raw_data`` to its external file (at its ``offset`` if set) and record
    where it went."""
    info = ExternalDataInfo(tensor)
    if not tensor.HasField("raw_data"):
        raise _refused(tensor, "raw_data field doesn't exist.")
    path = _writable_file(tensor, base_path, info.location)
    with open(path, "r+b") as data_file:
        end = data_file.seek(0, os.SEEK_END)
        if info.offset is not None:
            padding = info.offset - end
            if not 0 <= padding <= _MAX_PADDING:
                raise _refused(
                    tensor,
                    f"External data offset ({info.offset}) for tensor {tensor.name!r} must be between "
                    f"the current file size ({end}) and {end + _MAX_PADDING}.",
                )
            data_file.write(b"\0" * padding)
        offset = data_file.tell()
        data_file.write(tensor.raw_data)
        set_external_data(tensor, info.location, offset, data_file.tell() - offset)


def write_external_data_tensors(model: ModelProto, filepath: str | os.PathLike[str]) -> ModelProto:
    """Write every tensor marked external that still holds ``raw_data`` to its file under
    ``filepath`` and clear its ``raw_data``; returns the model."""
    for tensor in _get_all_tensors(model):
        if uses_external_data(tensor) and tensor.HasField("raw_data"):
            save_external_data(tensor, filepath)
            tensor.ClearField("raw_data")
    return model


def uses_external_data(tensor: TensorProto) -> bool:
    """True if the tensor's data lives in an external file."""
    return tensor.HasField("data_location") and tensor.data_location == TensorProto.EXTERNAL


def remove_external_data_field(tensor: TensorProto, field_key: str) -> None:
    """Remove the ``external_data`` entries with key ``field_key``."""
    kept = [entry for entry in tensor.external_data if entry.key != field_key]
    del tensor.external_data[:]
    tensor.external_data.extend(kept)


def _in_graphs(
    attribute: AttributeProto, each: Callable[[GraphProto], Iterable[TensorProto]]
) -> Iterator[TensorProto]:
    if attribute.type == AttributeProto.GRAPH:
        yield from each(attribute.g)
    elif attribute.type == AttributeProto.GRAPHS:
        for graph in attribute.graphs:
            yield from each(graph)


def _initializers_of(graph: GraphProto) -> Iterator[TensorProto]:
    yield from graph.initializer
    for node in graph.node:
        for attribute in node.attribute:
            yield from _in_graphs(attribute, _initializers_of)


def _attribute_tensors_of(body: GraphProto | FunctionProto) -> Iterator[TensorProto]:
    for node in body.node:
        for attribute in node.attribute:
            if attribute.HasField("t"):
                yield attribute.t
            yield from attribute.tensors
            yield from _in_graphs(attribute, _attribute_tensors_of)


def _get_initializer_tensors(model: ModelProto) -> Iterator[TensorProto]:
    """The initializers of the main graph and of every subgraph (onnx's order)."""
    return _initializers_of(model.graph)


def _get_attribute_tensors(model: ModelProto) -> Iterator[TensorProto]:
    """The tensors held by attributes, in the graphs and in model-local functions."""
    yield from _attribute_tensors_of(model.graph)
    for function in model.functions:
        yield from _attribute_tensors_of(function)


def _get_all_tensors(model: ModelProto) -> Iterator[TensorProto]:
    """Initializers, then attribute tensors."""
    return itertools.chain(_get_initializer_tensors(model), _get_attribute_tensors(model))
