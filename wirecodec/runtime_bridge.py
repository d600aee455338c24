"""onnxruntime sessions for models in any layout wirecodec reads, without copying the weights.

onnxruntime parses a model with protobuf, which refuses messages over 2 GiB, and it
cannot read our zip container. So :func:`onnxruntime_session` decodes the model itself
over a read-only map of the file, and hands onnxruntime a small graph in which each
initializer of 1 KiB or more whose ``raw_data`` is a view of that map is an *external
data reference to the file itself*: ``location`` = the file's name, ``offset`` = where the payload lies
in it. onnxruntime maps the file and serves the weights from its pages, as it does for
ordinary external data. Tensors already stored as external data keep their
references (resolved, as usual, next to the model file).

Why not the two APIs onnxruntime offers for weights from memory (measured with
onnxruntime 1.32, see docs/zip-container.md): ``add_external_initializers`` with
``OrtValue``\\ s over numpy views of our map creates no copy itself, but the session
copies every such initializer into memory it owns at creation (a write to our buffer
afterwards is not seen; RSS grows by the weights' size on top of the pages read), and
``add_external_initializers_from_files_in_memory`` copies by its own documentation.
A file reference costs no copy for weights used as they are (a ``Gather`` table);
kernels that pre-pack a weight (``MatMul``, ``Conv``) make their packed copy either way.

onnxruntime is imported when a session is made, never with wirecodec.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator
from typing import Any, Final

import numpy as np

from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TensorProto
from wirecodec.files.base.references import uses_external_data
from wirecodec.files.base.source import classify
from wirecodec.files.base.walk import ByIdentity, iter_tensors
from wirecodec.files.opener import Opened, open_model
from wirecodec.files.zip.data import ZipData
from wirecodec.protobuf.codec import encode
from wirecodec.protobuf.walk import walk

__all__ = ["onnxruntime_session"]

# Where onnxruntime resolves external data for a model given as bytes.
_FOLDER_KEY: Final = "session.model_external_initializers_file_folder_path"
_EXTERNAL: Final = int(TensorProto.DataLocation.EXTERNAL)
# Smaller initializers go inline: shape inference reads small constant inputs (axes,
# shapes) and cannot read external data; copying them costs nothing. onnx's threshold.
_INLINE_BELOW: Final = 1024


def _import_onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise ImportError(
            "onnxruntime_session needs onnxruntime, which is not installed: pip install onnxruntime"
        ) from exc
    return onnxruntime


def _graphs(model: ModelProto) -> Iterator[GraphProto]:
    """The main graph and every subgraph in its nodes' attributes (If, Loop, Scan bodies)."""
    for site in walk(model.graph, (GraphProto,)):
        if isinstance(site.message, GraphProto):
            yield site.message


def _reference(tensor: TensorProto, location: str, start: int, end: int) -> None:
    """Make ``tensor`` refer to bytes ``start:end`` of the file ``location``."""
    tensor.ClearField("raw_data")
    tensor.data_location = _EXTERNAL
    tensor.external_data = [
        StringStringEntryProto(key="location", value=location),
        StringStringEntryProto(key="offset", value=str(start)),
        StringStringEntryProto(key="length", value=str(end - start)),
    ]


def _from_zip(opened: Opened, data: ZipData, location: str) -> None:
    """A container's initializers refer to their entries' bytes in the archive file; other
    tensors (attributes, sparse parts, small initializers) get their bytes inline."""
    model = opened.model
    initializers: ByIdentity[bool] = ByIdentity()  # each tensor held while looked up
    for graph in _graphs(model):
        for initializer in graph.initializer:
            initializers[initializer] = True
    tensors = [t for t in iter_tensors(model) if uses_external_data(t)]
    ranges = []
    for tensor in tensors:  # every reference checked before any tensor changes
        found = data.locate(tensor)
        offset = data.archive.by_name[found.where].data_offset
        ranges.append((tensor, offset + found.start, offset + found.end))
    for tensor, start, end in ranges:
        if initializers.get(tensor) and end - start >= _INLINE_BELOW:
            _reference(tensor, location, start, end)
        else:
            tensor.raw_data = data.buffer[start:end]
            tensor.ClearField("data_location")
            tensor.ClearField("external_data")


def _from_protobuf(opened: Opened, location: str) -> None:
    """A model file's initializers (but small ones) refer to their ``raw_data``'s bytes in the
    file; external data references stay as they are."""
    mapped = opened.original
    base = np.frombuffer(mapped, dtype=np.uint8)
    try:
        for graph in _graphs(opened.model):
            for tensor in graph.initializer:
                view = tensor.raw_data if tensor.HasField("raw_data") else None
                # decode keeps bytes fields as views of the buffer it was given: of our map.
                if isinstance(view, memoryview) and view.obj is mapped and view.nbytes >= _INLINE_BELOW:
                    start = int(np.frombuffer(view, dtype=np.uint8).ctypes.data - base.ctypes.data)
                    _reference(tensor, location, start, start + view.nbytes)
    finally:
        del base


def onnxruntime_session(path: str | os.PathLike[str], sess_options: Any = None, providers: Any = None) -> Any:
    """An ``onnxruntime.InferenceSession`` for the model at ``path``, in any layout wirecodec reads.

    A single file over 2 GiB, the zip container and external data all work, and the
    weights are not copied on their way: onnxruntime reads them from the file itself
    (see the module documentation). The model is opened by the one opener
    (:func:`wirecodec.files.opener.open_model`), so its errors are the opener's.
    ``sess_options`` is used and modified (the folder external data is resolved in is
    set to the model's directory). Raises ``ImportError`` when onnxruntime is not installed.
    A URL (docs/remote.md) is fetched whole: onnxruntime needs every weight.
    """
    onnxruntime = _import_onnxruntime()
    options = onnxruntime.SessionOptions() if sess_options is None else sess_options
    if classify(path) == "url":
        remote = open_model(path)
        remote.resolve_external()
        return onnxruntime.InferenceSession(encode(remote.model), options, providers=providers)
    source = pathlib.Path(path)
    opened = open_model(source)
    if isinstance(opened.data, ZipData):
        _from_zip(opened, opened.data, source.name)
    else:
        _from_protobuf(opened, source.name)
    options.add_session_config_entry(_FOLDER_KEY, str(source.resolve().parent))
    return onnxruntime.InferenceSession(encode(opened.model), options, providers=providers)
