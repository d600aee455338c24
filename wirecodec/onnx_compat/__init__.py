"""The onnx package's namespace over wirecodec: ``import wirecodec.onnx_compat as onnx``.

The package mirrors onnx's module layout: the message classes and constants at the top,
``load``/``save`` and their relatives, and the modules ``helper``, ``numpy_helper``,
``checker``, ``external_data_helper``, ``serialization``, ``parser``, ``printer``,
``compose``, ``utils``, ``defs``, ``shape_inference``, ``reference`` (the evaluator of
wirecodec.reference) and ``version_converter`` (wirecodec.version_converter); the names
libraries built on onnx import (the generated modules ``onnx_pb``, ``onnx_ml_pb2``, ...;
``mapping`` and ``_mapping``; ``onnx_cpp2py_export.*``; ``tools``; ``backend``). The onnx
names not provided raise :class:`NotProvidedError` (a ``NotImplementedError``) naming the
feature. onnx's own test suite, run against this namespace (``python -m tests.onnx_suite``),
and the libraries of ``tests/clients`` are the measure of how far it goes
(``docs/coming-from-onnx.md``).

``load_model``, ``save_model``, ``load_tensor``, ``save_tensor`` and the ``*_from_string``
functions take what their onnx namesakes take and build on :func:`wirecodec.load`,
:func:`wirecodec.save` and :func:`wirecodec.encode_into`:

>>> import io
>>> from schema_dsl.onnx import ModelProto
>>> buffer = io.BytesIO()
>>> save_model(ModelProto(ir_version=10, producer_name="demo"), buffer)
>>> load_model_from_string(buffer.getvalue()).producer_name
'demo'

Differences from onnx:

* ``format`` is ``"protobuf"`` (binary), ``"textproto"``, ``"json"`` or ``"onnxtxt"``, or
  any format added to :data:`serialization.registry`; without one, a path's extension
  chooses it (``.json``, ``.textproto``, ``.onnxtxt``, ...), as in onnx.
* Saving to a path is atomic (a temporary file renamed into place), and with
  ``save_as_external_data=True`` the binary format's data files are written the same
  way, in onnx's layout byte for byte (the same tensors, file names and offsets);
  ``location`` defaults to ``<model file name>.data`` (onnx: a random name), a data file
  left by an earlier save is replaced (onnx appends to it), and the model passed in is
  not modified (onnx rewrites its tensors into external references; so do the text
  formats here, as in onnx).
  Tensors already marked external by ``convert_model_to_external_data`` are written to
  their files first, as onnx writes them.
* A binary model loaded from a path or a real file is memory-mapped: tensor data stays
  on disk until read (see :func:`wirecodec.load`). Its external data is read under
  onnx's policy: unknown ``external_data`` keys are dropped with a warning, a data file
  that is a symbolic link is refused, and a refusal is an ``ExternalDataError`` that is
  also ``checker.ValidationError``.
* Saving with external data to a file object needs the object's ``name`` to be a path
  (the data files go beside it, as in onnx); an unnamed one (``io.BytesIO``) is an
  :class:`~wirecodec.ExternalDataError` — onnx writes a model whose references point at
  data it never wrote.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import sys
from typing import IO, TYPE_CHECKING, Final, TypeVar

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
from wirecodec._helper.args import as_message
from wirecodec.errors import ExternalDataError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.onnx_compat import external_data_helper, helper, serialization
from wirecodec.onnx_compat import protos as _protos
from wirecodec.onnx_compat._errors import ExternalDataValidationError
from wirecodec.onnx_compat._external_save import save_with_onnx_layout
from wirecodec.onnx_compat._unsupported import NotProvidedError as NotProvidedError
from wirecodec.protobuf.codec import decode, encode_into

if TYPE_CHECKING:
    from wirecodec.files.opener import Opened

# The front doors (wirecodec.files: load, the opener and its layouts, save) are imported
# by the functions that use them, on their first call: import onnx costs what onnx's does.

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
    "ONNX_ML",
    "IR_VERSION_2017_10_10",
    "IR_VERSION_2017_10_30",
    "IR_VERSION_2017_11_3",
    "IR_VERSION_2019_1_22",
    "IR_VERSION_2019_3_18",
    "IR_VERSION_2019_9_19",
    "IR_VERSION_2020_5_8",
    "IR_VERSION_2021_7_30",
    "IR_VERSION_2023_5_5",
    "IR_VERSION_2024_3_25",
    "convert_model_to_external_data",
    "write_external_data_tensors",
    "__version__",
    "checker",
    "compose",
    "defs",
    "external_data_helper",
    "helper",
    "load",
    "load_external_data_for_model",
    "load_from_string",
    "load_model",
    "load_model_from_string",
    "load_tensor",
    "load_tensor_from_string",
    "numpy_helper",
    "parser",
    "printer",
    "reference",
    "save",
    "save_model",
    "save_tensor",
    "serialization",
    "shape_inference",
    "utils",
    "version_converter",
]

# onnx's top-level names of the IR versions (the members of Version it exports as ints).
IR_VERSION_2017_10_10: Final = int(Version.IR_VERSION_2017_10_10)
IR_VERSION_2017_10_30: Final = int(Version.IR_VERSION_2017_10_30)
IR_VERSION_2017_11_3: Final = int(Version.IR_VERSION_2017_11_3)
IR_VERSION_2019_1_22: Final = int(Version.IR_VERSION_2019_1_22)
IR_VERSION_2019_3_18: Final = int(Version.IR_VERSION_2019_3_18)
IR_VERSION_2019_9_19: Final = int(Version.IR_VERSION_2019_9_19)
IR_VERSION_2020_5_8: Final = int(Version.IR_VERSION_2020_5_8)
IR_VERSION_2021_7_30: Final = int(Version.IR_VERSION_2021_7_30)
IR_VERSION_2023_5_5: Final = int(Version.IR_VERSION_2023_5_5)
IR_VERSION_2024_3_25: Final = int(Version.IR_VERSION_2024_3_25)

# onnx exports these two at the top level as well.
convert_model_to_external_data = external_data_helper.convert_model_to_external_data
write_external_data_tensors = external_data_helper.write_external_data_tensors

ONNX_ML: Final = True
"""onnx's flag for a build with the ai.onnx.ml messages and operators; wirecodec reads and writes them."""

__version__: Final = "1.23.2"
"""The onnx release whose Python API this namespace follows."""

Target = str | os.PathLike[str] | IO[bytes]

_PROTOBUF: Final = "protobuf"


def _path_of(f: object) -> pathlib.Path | None:
    """The path behind ``f``: itself, or a file object's ``name`` when that is a path."""
    if isinstance(f, (str, os.PathLike)):
        return pathlib.Path(f)
    name = getattr(f, "name", None)
    return pathlib.Path(name) if isinstance(name, (str, os.PathLike)) else None


def _format_of(format: str | None, f: object) -> str:
    """``format`` if given (it must be registered), else the one of the path's extension, else protobuf."""
    if format is not None:
        serialization.registry.get(format)  # a ValueError naming the formats if unknown
        return format
    path = _path_of(f)
    inferred = serialization.registry.get_format_from_file_extension(path.suffix) if path else None
    return inferred or _PROTOBUF


def _binary(format: str) -> bool:
    """True when ``format`` is the built-in binary protobuf (wirecodec's mapped load and streamed save)."""
    return (
        format == _PROTOBUF and type(serialization.registry.get(format)).__module__ == serialization.__name__
    )


_M = TypeVar("_M", ModelProto, TensorProto)


def _deserialize(format: str, data: object, empty: _M) -> _M:
    """``data`` parsed by the registered serializer of ``format`` into ``empty``, checked to be one."""
    parsed = serialization.registry.get(format).deserialize_proto(data, empty)
    return as_message(parsed, type(empty), f"the {format!r} serializer's result")


def _read_all(f: Target) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        return pathlib.Path(f).read_bytes()
    data = f.read()
    return data.encode() if isinstance(data, str) else bytes(data)


def _write_all(data: bytes | str, f: Target) -> None:
    if isinstance(data, str):
        data = data.encode("utf-8")
    if isinstance(f, (str, os.PathLike)):
        with AtomicFiles(durable=False) as files:  # onnx does not fsync either
            with files.open(f) as out:
                out.write(data)
            files.commit()
    else:
        f.write(data)


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
    chosen = _format_of(format, f)
    path = _path_of(f)
    with_data = load_external_data and path is not None
    if _binary(chosen):
        from wirecodec.files.opener import open_model

        opened = open_model(f)
        if with_data and path is not None:
            _resolve_external_as_onnx(opened, path.parent)
        return opened.model
    model = _deserialize(chosen, _read_all(f), ModelProto())
    if with_data and path is not None:
        external_data_helper.load_external_data_for_model(model, path.parent)
    return model


def _resolve_external_as_onnx(opened: Opened, base_dir: pathlib.Path) -> None:
    """Read in external data as wirecodec does (mapped), under onnx's policy: unknown keys are
    dropped with a warning, a symlinked data file is refused, a refusal is also onnx's class."""
    # (a model whose layout is "single" has no reference to read: no walk over its tensors,
    # which would build every node's attributes to find none)
    for tensor in list(opened.external_tensors()):
        if external_data_helper.uses_external_data(tensor):
            external_data_helper.drop_unknown_keys(tensor)
            location = next((e.value for e in tensor.external_data if e.key == "location"), "")
            external_data_helper.refuse_symlink(tensor, base_dir, location)
    try:
        opened.resolve_external()
    except ExternalDataError as error:
        raise ExternalDataValidationError(str(error)) from error


def load_model_from_string(s: bytes, format: str = "protobuf") -> ModelProto:
    """Decode a serialized ModelProto (from bytes or any buffer)."""
    if _binary(_format_of(format, None)):
        return decode(ModelProto, s)
    return _deserialize(format, s, ModelProto())


def load_tensor(f: Target, format: str | None = None) -> TensorProto:
    """Load a serialized TensorProto from a path or a binary file object."""
    _check_target(f, "load_tensor")
    chosen = _format_of(format, f)
    if _binary(chosen):
        from wirecodec.files.load import load_tensor as _load_tensor

        return _load_tensor(f)
    return _deserialize(chosen, _read_all(f), TensorProto())


def load_tensor_from_string(s: bytes, format: str = "protobuf") -> TensorProto:
    """Decode a serialized TensorProto."""
    if _binary(_format_of(format, None)):
        return decode(TensorProto, s)
    return _deserialize(format, s, TensorProto())


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

    With ``save_as_external_data=True``, the files are onnx's: initializers holding
    ``raw_data`` of at least ``size_threshold`` bytes (counted as onnx counts:
    ``sys.getsizeof``) go back to back to ``location`` (default ``<model file name>.data``)
    beside the model, or one file per tensor named after it with
    ``all_tensors_to_one_file=False``; ``convert_attribute=True`` moves attribute tensors
    too. ``wirecodec.save`` is the way with wirecodec's layout (aligned, typed data too).
    """
    _check_target(f, "save_model")
    chosen = _format_of(format, _path_of(f))
    model = decode(ModelProto, proto) if isinstance(proto, (bytes, bytearray, memoryview)) else proto
    model = as_message(model, ModelProto, "save_model: proto")
    path = _path_of(f)
    binary_external = save_as_external_data and _binary(chosen)
    if (
        path is not None
        and not binary_external
        and any(
            external_data_helper.uses_external_data(t) and t.HasField("raw_data")
            for t in external_data_helper._get_all_tensors(model)
        )
    ):
        # Marked by convert_model_to_external_data and still holding their bytes: onnx
        # writes them to their files beside the model (and empties them) whatever the format.
        external_data_helper.write_external_data_tensors(model, path.parent)
    if not _binary(chosen):
        if save_as_external_data:
            external_data_helper.convert_model_to_external_data(
                model, all_tensors_to_one_file, location, size_threshold, convert_attribute
            )
            if path is not None:
                external_data_helper.write_external_data_tensors(model, path.parent)
        _write_all(serialization.registry.get(chosen).serialize_proto(model), f)
    elif not save_as_external_data:
        if isinstance(f, (str, os.PathLike)):
            # Atomic (a temporary renamed into place) but, as onnx's, not fsync'ed: the
            # durable way is wirecodec.save.
            from wirecodec.files.save import save as _save

            _save(model, f, durable=False)
        else:
            encode_into(model, f)
    else:
        if path is None:
            raise ExternalDataError(
                "save_model: save_as_external_data needs a path, or a file object whose name is one "
                f"(the data files go beside the model); got a {type(f).__name__} without a name"
            )
        target = pathlib.Path(os.path.abspath(path))

        def write_model(saved: ModelProto, files: AtomicFiles) -> None:
            if isinstance(f, (str, os.PathLike)):
                with files.open(target) as out:
                    encode_into(saved, out)
            else:
                encode_into(saved, f)

        # onnx's layout (which tensors, names, offsets), the model left as it was.
        save_with_onnx_layout(
            model,
            target,
            write_model,
            convert=True,
            all_tensors_to_one_file=all_tensors_to_one_file,
            location=location,
            default_location=f"{target.name}.data",  # onnx: a random name
            size_threshold=size_threshold,
            convert_attribute=convert_attribute,
        )


def save_tensor(proto: TensorProto, f: Target, format: str | None = None) -> None:
    """Write a TensorProto to a path (atomically) or into a binary file object."""
    _check_target(f, "save_tensor")
    chosen = _format_of(format, _path_of(f))
    tensor = as_message(proto, TensorProto, "save_tensor: proto")
    if not _binary(chosen):
        _write_all(serialization.registry.get(chosen).serialize_proto(tensor), f)
    elif isinstance(f, (str, os.PathLike)):
        from wirecodec.files.save import save_tensor as _save_tensor

        _save_tensor(tensor, f)
    else:
        encode_into(tensor, f)


def load_external_data_for_model(model: ModelProto, base_dir: str | os.PathLike[str]) -> None:
    """Resolve the external tensors of a model loaded with ``load_external_data=False``.

    As in onnx, each such tensor then reads as an ordinary one; its ``raw_data`` is a view
    of the mapped data file rather than a copy.
    """
    from wirecodec.files.load import load_external_data_into

    load_external_data_into(as_message(model, ModelProto, "load_external_data_for_model: model"), base_dir)


# onnx's short names for the model functions.
load = load_model
save = save_model
load_from_string = load_model_from_string


# onnx's modules that few programs use, imported on first use (as attributes, and by
# ``import onnx.x`` through the shim): ``_mapping`` and ``mapping`` import numpy.
# So are the checker, the schemas, inference, the printer and parser, the evaluator and the
# converter: a program that loads, edits and saves models (most libraries, most of the time)
# does not pay for them (docs/coming-from-onnx.md, "Speed").
_ON_FIRST_USE: Final = frozenset(
    {
        "_mapping",
        "backend",
        "checker",
        "defs",
        "inliner",
        "mapping",
        "model_container",
        "onnx_cpp2py_export",
        "parser",
        "printer",
        "reference",
        "shape_inference",
        "tools",
        "version_converter",
    }
)
# onnx's modules that are wirecodec's own, under the same names.
_WIRECODEC_MODULES: Final = {"compose": "wirecodec.compose", "utils": "wirecodec.utils"}

# onnx's generated modules under their names (``import onnx.onnx_pb``, ``from onnx import
# onnx_ml_pb2``): each is the module of its .proto file in ``protos``, known to the import
# system by onnx's name too.
for _alias, _home in _protos.ALIASES.items():
    globals()[_alias] = sys.modules.setdefault(
        f"{__name__}.{_alias}", importlib.import_module(f"{_protos.__name__}.{_home}")
    )


def __getattr__(name: str) -> object:
    # numpy_helper imports numpy: loaded on first use, so that onnx's load, save and
    # checker work where numpy is not installed (Pyodide: docs/platforms.md), as the
    # rest of wirecodec does.
    if name == "numpy_helper":
        from wirecodec import numpy_helper

        return numpy_helper
    if name in _ON_FIRST_USE:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _WIRECODEC_MODULES:
        return importlib.import_module(_WIRECODEC_MODULES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
