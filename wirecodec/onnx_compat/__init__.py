"""Loading and saving under the onnx package's top-level names and signatures.

``load_model``, ``save_model``, ``load_tensor``, ``save_tensor`` and the ``*_from_string``
functions take what their onnx namesakes take and build on :func:`wirecodec.load`,
:func:`wirecodec.save` and :func:`wirecodec.encode_into`:

>>> import io
>>> from schema_dsl.onnx import ModelProto
>>> buffer = io.BytesIO()
>>> save_model(ModelProto(ir_version=10, producer_name="demo"), buffer)
>>> load_model_from_string(buffer.getvalue()).producer_name
'demo'

The module also carries the other top-level names onnx code reaches for — the message
classes, ``IR_VERSION``, and the ``helper`` and ``numpy_helper`` modules — so
``import wirecodec.onnx_compat as onnx`` stands in for ``import onnx`` in code that
builds, loads and saves models (``docs/coming-from-onnx.md`` lists what is not there).

Differences from onnx:

* Only the binary protobuf format is read and written. ``format="textproto"``, ``"json"``
  or ``"onnxtxt"`` — or a path ending in one of their extensions (``.json``,
  ``.textproto``, ``.onnxtxt``, ...) with no ``format`` — is a ``ValueError`` rather than a
  silently binary file.
* Saving to a path is atomic (a temporary file renamed into place), and with
  ``save_as_external_data=True`` the data files are written the same way; ``location``
  defaults to ``<model file name>.data`` (onnx: a random name). The model passed in is
  never modified (onnx rewrites its tensors into external references).
* A model loaded from a path or a real file is memory-mapped: tensor data stays on disk
  until read (see :func:`wirecodec.load`).
* Saving with external data to a file object needs the object's ``name`` to be a path
  (the data files go beside it, as in onnx); an unnamed one (``io.BytesIO``) is an
  :class:`~wirecodec.ExternalDataError` — onnx writes a model whose references point at
  data it never wrote.
"""

from __future__ import annotations

import os
import pathlib
import tempfile
from typing import IO, Final

from schema_dsl.onnx import (
    EXPERIMENTAL,
    IR_VERSION,
    STABLE,
    AttributeProto,
    DeviceConfigurationProto,
    FunctionProto,
    GraphProto,
    IntIntListEntryProto,
    MapProto,
    ModelProto,
    NodeDeviceConfigurationProto,
    NodeProto,
    OperatorProto,
    OperatorSetIdProto,
    OperatorSetProto,
    OperatorStatus,
    OptionalProto,
    SequenceProto,
    ShardedDimProto,
    ShardingSpecProto,
    SimpleShardedDimProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorAnnotation,
    TensorProto,
    TensorShapeProto,
    TrainingInfoProto,
    TypeProto,
    ValueInfoProto,
    Version,
)
from wirecodec import helper, numpy_helper
from wirecodec._helper.args import as_message
from wirecodec.errors import ExternalDataError
from wirecodec.files.load import load as _load
from wirecodec.files.load import load_external_data_into
from wirecodec.files.load import load_tensor as _load_tensor
from wirecodec.files.save import save as _save
from wirecodec.files.save import save_tensor as _save_tensor
from wirecodec.protobuf.codec import decode, encode_into

__all__ = [
    "EXPERIMENTAL",
    "IR_VERSION",
    "STABLE",
    "AttributeProto",
    "DeviceConfigurationProto",
    "FunctionProto",
    "GraphProto",
    "IntIntListEntryProto",
    "MapProto",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "OperatorProto",
    "OperatorSetIdProto",
    "OperatorSetProto",
    "OperatorStatus",
    "OptionalProto",
    "SequenceProto",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorAnnotation",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "Version",
    "helper",
    "load",
    "load_external_data_for_model",
    "load_from_string",
    "load_model",
    "load_model_from_string",
    "load_tensor",
    "load_tensor_from_string",
    "numpy_helper",
    "save",
    "save_model",
    "save_tensor",
]

Target = str | os.PathLike[str] | IO[bytes]

# The file extensions onnx maps to formats other than binary protobuf.
_OTHER_FORMATS: Final = {
    ".textproto": "textproto",
    ".pbtxt": "textproto",
    ".txtpb": "textproto",
    ".prototxt": "textproto",
    ".json": "json",
    ".onnxjson": "json",
    ".onnxtext": "onnxtxt",
    ".onnxtxt": "onnxtxt",
}


def _path_of(f: object) -> pathlib.Path | None:
    """The path behind ``f``: itself, or a file object's ``name`` when that is a path."""
    if isinstance(f, (str, os.PathLike)):
        return pathlib.Path(f)
    name = getattr(f, "name", None)
    return pathlib.Path(name) if isinstance(name, (str, os.PathLike)) else None


def _check_format(format: str | None, f: object, where: str) -> None:
    if format is None:
        path = _path_of(f)
        inferred = _OTHER_FORMATS.get(path.suffix.lower()) if path is not None else None
        if inferred is not None:
            raise ValueError(
                f"{where}: {str(path)!r} names the {inferred!r} format, which wirecodec does not "
                "read or write; pass format='protobuf' for the binary format"
            )
    elif format != "protobuf":
        raise ValueError(f"{where}: format {format!r} is not supported (only 'protobuf')")


def _check_target(f: object, where: str) -> None:
    if isinstance(f, (str, os.PathLike)):
        return
    if not callable(getattr(f, "write", None)) and not callable(getattr(f, "read", None)):
        raise TypeError(f"{where}: f must be a path or a binary file object, got {type(f).__name__}")


def load_model(f: Target, format: str | None = None, load_external_data: bool = True) -> ModelProto:
    """Load a ModelProto from a path or a binary file object.

    External data is read from the model's directory (a file object's ``name``); a file
    object with no name gets none loaded, as in onnx.
    """
    _check_target(f, "load_model")
    _check_format(format, f, "load_model")
    with_data = load_external_data and _path_of(f) is not None
    return _load(f, load_external_data=with_data)


def load_model_from_string(s: bytes, format: str = "protobuf") -> ModelProto:
    """Decode a serialized ModelProto (from bytes or any buffer)."""
    _check_format(format, None, "load_model_from_string")
    return decode(ModelProto, s)


def load_tensor(f: Target, format: str | None = None) -> TensorProto:
    """Load a serialized TensorProto from a path or a binary file object."""
    _check_target(f, "load_tensor")
    _check_format(format, f, "load_tensor")
    return _load_tensor(f)


def load_tensor_from_string(s: bytes, format: str = "protobuf") -> TensorProto:
    """Decode a serialized TensorProto."""
    _check_format(format, None, "load_tensor_from_string")
    return decode(TensorProto, s)


def save_model(
    proto: ModelProto | bytes,
    f: Target,
    format: str | None = None,
    *,
    save_as_external_data: bool = False,
    all_tensors_to_one_file: bool = True,
    location: str | None = None,
    size_threshold: int = 1024,
    convert_attribute: bool = False,
) -> None:
    """Write a model (or its serialized bytes) to a path or into a binary file object.

    With ``save_as_external_data=True``, tensors of at least ``size_threshold`` bytes go
    to ``location`` (default ``<model file name>.data``) beside the model, or one file
    per tensor with ``all_tensors_to_one_file=False``; ``convert_attribute=True`` moves
    attribute tensors too.
    """
    _check_target(f, "save_model")
    _check_format(format, f, "save_model")
    model = decode(ModelProto, proto) if isinstance(proto, (bytes, bytearray, memoryview)) else proto
    model = as_message(model, ModelProto, "save_model: proto")
    if isinstance(f, (str, os.PathLike)):
        _save(
            model,
            f,
            external_data=save_as_external_data,
            location=location,
            size_threshold=size_threshold,
            all_tensors_to_one_file=all_tensors_to_one_file,
            convert_attribute=convert_attribute,
        )
    elif not save_as_external_data:
        encode_into(model, f)
    else:
        path = _path_of(f)
        if path is None:
            raise ExternalDataError(
                "save_model: save_as_external_data needs a path, or a file object whose name is one "
                f"(the data files go beside the model); got a {type(f).__name__} without a name"
            )
        # wirecodec.save writes data files beside a model file: stage the model in a scratch
        # directory next to the target, move the data files out, copy the model into ``f``.
        with tempfile.TemporaryDirectory(dir=path.parent, prefix=".wirecodec-") as scratch:
            staged = pathlib.Path(scratch) / path.name
            location = f"{path.name}.data" if location is None else location
            folder = (pathlib.Path(scratch) / location).parent.resolve()
            if folder.is_relative_to(pathlib.Path(scratch).resolve()):
                folder.mkdir(parents=True, exist_ok=True)  # mirrors the subfolder beside the model
            _save(
                model,
                staged,
                external_data=True,
                location=location,
                size_threshold=size_threshold,
                all_tensors_to_one_file=all_tensors_to_one_file,
                convert_attribute=convert_attribute,
            )
            for produced in sorted(pathlib.Path(scratch).rglob("*")):
                if produced.is_file() and produced != staged:
                    destination = path.parent / produced.relative_to(scratch)
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(produced, destination)
            f.write(staged.read_bytes())


def save_tensor(proto: TensorProto, f: Target, format: str | None = None) -> None:
    """Write a TensorProto to a path (atomically) or into a binary file object."""
    _check_target(f, "save_tensor")
    _check_format(format, f, "save_tensor")
    tensor = as_message(proto, TensorProto, "save_tensor: proto")
    if isinstance(f, (str, os.PathLike)):
        _save_tensor(tensor, f)
    else:
        encode_into(tensor, f)


def load_external_data_for_model(model: ModelProto, base_dir: str | os.PathLike[str]) -> None:
    """Resolve the external tensors of a model loaded with ``load_external_data=False``.

    As in onnx, each such tensor then reads as an ordinary one; its ``raw_data`` is a view
    of the mapped data file rather than a copy.
    """
    load_external_data_into(as_message(model, ModelProto, "load_external_data_for_model: model"), base_dir)


# onnx's short names for the model functions.
load = load_model
save = save_model
load_from_string = load_model_from_string
