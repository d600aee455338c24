"""``load``: models and single tensors from paths, file objects or bytes.

>>> import pathlib, tempfile
>>> from wirecodec import save
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> save(build(), folder / "mlp.onnx", external_data=True, size_threshold=64)
>>> model = load(folder / "mlp.onnx")
>>> type(model.graph.initializer[0].raw_data.obj).__name__
'mmap'
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.files.base.references import uses_external_data
from wirecodec.files.base.source import classify, open_source_file
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.external.data import DirectoryData
from wirecodec.files.opener import Source, decode_source, open_model, read_payload_source
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH

if TYPE_CHECKING:
    from wirecodec.files.remote.source import RemoteOptions

__all__ = ["load", "load_external_data_into", "load_tensor"]


def load(
    source: Source,
    *,
    lazy: bool = True,
    load_external_data: bool = True,
    base_dir: str | os.PathLike[str] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    remote: RemoteOptions | None = None,
) -> ModelProto:
    """Load a model from a path, a URL, ``-`` (standard input), a binary file object or bytes.

    With ``lazy=True`` (the default) a file is memory-mapped read-only and decoded in
    place: every ``raw_data`` is a view of the map, read from disk only when touched,
    external data files are mapped the same way, and small elements of repeated message
    fields are validated now but built on first read (see :func:`wirecodec.decode`).
    ``lazy=False`` reads and decodes everything now instead, so no file stays mapped.

    External data is resolved relative to ``base_dir`` (default: the model file's
    directory); ``load_external_data=False`` leaves the references as they are. A zip
    model container (docs/zip-container.md), recognised by its first bytes, gives each
    tensor a view of its entry. Every source goes through
    :func:`wirecodec.files.opener.open_model`, whose errors these are: an empty input or
    one with no ONNX field is a :class:`~wirecodec.NotAModelError` (unlike ``onnx.load``,
    which returns an empty model).

    A URL (``https://...``; ``s3://`` and the like with fsspec installed) is read by
    byte ranges (docs/remote.md): its structure now, each large tensor's bytes when the
    tensor is first read, external data from beside it the same way; ``remote``
    (:class:`~wirecodec.RemoteOptions`) sets timeouts, retries, and whether a server
    that ignores ``Range`` may send the whole file. Its failures are
    :class:`~wirecodec.RemoteError`, naming the URL and the byte range.
    """
    opened = open_model(source, lazy=lazy, base_dir=base_dir, max_depth=max_depth, remote=remote)
    if load_external_data:
        opened.resolve_external()
    return opened.model


def load_external_data_into(model: ModelProto, base_dir: str | os.PathLike[str], *, lazy: bool = True) -> int:
    """Resolve a loaded model's external tensors (for ``load(..., load_external_data=False)``)."""
    external = [tensor for tensor in iter_tensors(model) if uses_external_data(tensor)]
    return DirectoryData(base_dir, lazy=lazy).resolve_all(external)


def load_tensor(source: Source, *, lazy: bool = True) -> TensorProto:
    """Load a single serialized TensorProto (the ``.pb`` files of onnx test data): from a
    path, ``-``, a URL (fetched whole: a tensor file is one tensor), a file object or bytes."""
    data: Any
    kind = classify(source)
    if kind == "path":
        with open_source_file(source) as file:  # type: ignore[arg-type]
            data = read_payload_source(file, lazy, str(source), TensorProto)
    elif kind == "url":
        from wirecodec.files.remote.clients import open_source  # only for a URL
        from wirecodec.files.remote.source import RemoteOptions

        remote = open_source(str(source), RemoteOptions())
        data = remote.read(0, remote.size)
    elif kind == "stdin":
        data = sys.stdin.buffer.read()
    elif kind == "file":
        label = str(getattr(source, "name", "<file object>"))
        data = read_payload_source(source, lazy, label, TensorProto)  # type: ignore[arg-type]
    else:
        data = source
    return decode_source(TensorProto, data, DEFAULT_MAX_DEPTH, lazy)
