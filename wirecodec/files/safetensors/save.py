"""Saving a model with its weights in safetensors files that the model's references point into.

``save(model, "model.onnx", external_data="model.safetensors")`` (or
:func:`save_safetensors`) writes ``model.safetensors`` — a file the ``safetensors``
package (and so PyTorch) reads — and ``model.onnx``, whose tensors refer to their bytes
inside it by (location, offset, length), so onnxruntime and :func:`wirecodec.load`
read the very same bytes. With ``max_shard_size`` the weights are split into
``model-00001-of-00003.safetensors`` … and a ``model.safetensors.index.json`` in the
Hugging Face hub's format is written beside them.

Payloads are written one at a time (views of mapped files are copied file to file), so
memory does not grow with the weights; every file is written to a temporary and renamed
into place only when all are complete (:class:`~wirecodec.files.base.atomic.AtomicFiles`).
"""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError, TensorError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.files.base.options import SaveOptions
from wirecodec.files.base.raw import raw_bytes
from wirecodec.files.base.references import as_reference, uses_external_data
from wirecodec.files.base.walk import ByIdentity, substitute
from wirecodec.files.external.write import check_location, data_path
from wirecodec.files.safetensors.format import Entry, byte_size, encode_header, layout, safetensors_dtype
from wirecodec.files.safetensors.names import named_tensors
from wirecodec.protobuf.lazy import PendingBytes
from wirecodec.protobuf.payloads import advance, report_progress, write_payload
from wirecodec.protobuf.stream_encode import plan as plan_encoding

__all__ = ["save_safetensors", "shard_names"]

SUFFIX = ".safetensors"


@dataclass
class _Item:
    tensor: TensorProto
    name: str
    dtype: str
    payload: Any


@dataclass
class _Shard:
    location: str
    items: list[_Item] = field(default_factory=list)
    size: int = 0
    entries: list[Entry] = field(default_factory=list)
    prefix: bytes = b""


def shard_names(location: str, count: int) -> list[str]:
    """The file names of ``count`` shards for ``location`` (hub style; one shard keeps the name).

    >>> shard_names("w/model.safetensors", 2)
    ['w/model-00001-of-00002.safetensors', 'w/model-00002-of-00002.safetensors']
    """
    if count == 1:
        return [location]
    stem = location[: -len(SUFFIX)]
    return [f"{stem}-{i:05d}-of-{count:05d}{SUFFIX}" for i in range(1, count + 1)]


def _label(tensor: TensorProto, name: str) -> str:
    return f"tensor {tensor.name!r}" if tensor.name == name else f"tensor {tensor.name!r} (saved as {name!r})"


def _nbytes(payload: Any) -> int:
    return payload.nbytes if isinstance(payload, PendingBytes) else memoryview(payload).nbytes


def _payload(tensor: TensorProto, where: str) -> Any:
    try:
        return raw_bytes(tensor)
    except TensorError as exc:
        raise ExternalDataError(f"{where}: {exc}") from None


def _items(model: ModelProto, options: SaveOptions) -> list[_Item]:
    """The tensors that move, each with its name, dtype and bytes; refusals before any write."""
    items: list[_Item] = []
    for tensor, name, initializer in named_tensors(model):
        if not (initializer or options.convert_attribute):
            continue
        # Tensors that already refer to a file stay as they are, and strings cannot be raw bytes.
        if uses_external_data(tensor) or tensor.data_type == TensorProto.DataType.STRING:
            continue
        where = _label(tensor, name)
        payload = _payload(tensor, where)
        nbytes = _nbytes(payload)
        if nbytes < options.size_threshold:
            continue
        dtype = safetensors_dtype(tensor.data_type, where)
        expected = byte_size(dtype, tensor.dims, where)
        if nbytes != expected:
            raise ExternalDataError(
                f"{where}: holds {nbytes} bytes but {dtype} {list(tensor.dims)} takes {expected}"
            )
        items.append(_Item(tensor, name, dtype, payload))
    return items


def _shards(
    items: list[_Item],
    location: str,
    max_shard_size: int | None,
    align: int,
    metadata: Mapping[str, str] | None,
) -> list[_Shard]:
    """Items in shards (never splitting a tensor), each shard's header and layout done."""
    shards: list[_Shard] = []
    for item in items:
        size = _nbytes(item.payload)
        if not shards or (
            max_shard_size is not None and shards[-1].size and shards[-1].size + size > max_shard_size
        ):
            shards.append(_Shard(""))
        shards[-1].items.append(item)
        shards[-1].size += size
    for shard, name in zip(shards, shard_names(location, len(shards)), strict=True):
        shard.location = name
        by_name = {item.name: item for item in shard.items}
        shard.entries = layout(
            (i.name, i.dtype, tuple(i.tensor.dims), _nbytes(i.payload)) for i in shard.items
        )
        shard.items = [by_name[entry.name] for entry in shard.entries]
        shard.prefix = encode_header(shard.entries, align=align, metadata=metadata)
    return shards


def _referring(model: ModelProto, shards: list[_Shard]) -> ModelProto:
    """The model with every moved tensor replaced by a copy that refers to its bytes."""
    replacements: ByIdentity[TensorProto] = ByIdentity()
    for shard in shards:
        start = len(shard.prefix)
        for item, entry in zip(shard.items, shard.entries, strict=True):
            replacements[item.tensor] = as_reference(
                item.tensor, shard.location, start + entry.begin, entry.nbytes
            )
    new_model = substitute(model, replacements)
    assert isinstance(new_model, ModelProto)
    return new_model


def _index(shards: list[_Shard]) -> bytes:
    """``model.safetensors.index.json``: the hub's format, shard names relative to the index."""
    weight_map = {
        item.name: pathlib.PurePosixPath(shard.location.replace("\\", "/")).name
        for shard in shards
        for item in shard.items
    }
    total = sum(shard.size for shard in shards)
    document = {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def save_safetensors(
    model: ModelProto,
    path: str | os.PathLike[str],
    options: SaveOptions,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Write ``model`` to ``path`` with its weights in the safetensors file ``options.location``
    (the options below are :class:`~wirecodec.files.save.SaveOptions`' fields).

    ``location`` (relative to the model's directory, ending in ``.safetensors``) gets
    every initializer of at least ``size_threshold`` bytes — with
    ``convert_attribute=True`` every attribute tensor (Constant nodes) too — under the
    names of :mod:`wirecodec.files.safetensors.names`. The tensor data starts at a
    multiple of ``align`` bytes (the header is padded with spaces) and each tensor at a
    multiple of its element size; safetensors allows no gaps between tensors, so they
    are not page-aligned one by one. ``max_shard_size`` splits the weights into
    ``<stem>-0000N-of-0000M.safetensors`` files of at most that many tensor bytes
    (a bigger tensor gets a shard of its own) and writes ``<location>.index.json``;
    when everything fits in one, ``location`` is written as without it.
    ``metadata`` becomes the file's ``__metadata__``.

    Tensors whose element type safetensors lacks (INT4, COMPLEX128, ...) are refused
    with :class:`~wirecodec.ExternalDataError`, as is anything else that could not be
    written, before any file is touched. String tensors stay in the model. The caller's
    model is not modified. ``durable`` and atomicity as in :func:`wirecodec.save`;
    ``progress(done, total)`` is called as bytes are written.
    """
    location, max_shard_size, align = options.location, options.max_shard_size, options.align
    metadata, durable = options.metadata, options.durable
    if location is None:
        raise ValueError("a safetensors save needs options.location (the file's name)")
    if align < 8:
        raise ValueError(f"align must be a power of two of at least 8 (the format's own), got {align}")
    check_location(location)
    if not location.endswith(SUFFIX):
        raise ValueError(f"a safetensors location ends in {SUFFIX!r}, got {location!r}")
    target = pathlib.Path(path)
    items = _items(model, options)
    shards = _shards(items, location, max_shard_size, align, metadata)
    to_write = _referring(model, shards)
    index = _index(shards) if len(shards) > 1 else None
    names = [shard.location for shard in shards]
    if index is not None:
        names.append(location + ".index.json")
    destinations = [data_path(target.parent, name) for name in names]
    for name, destination in zip(names, destinations, strict=True):
        if os.path.normpath(destination) == os.path.normpath(target):
            raise ExternalDataError(f"refusing weights location {name!r}: it is the model file itself")
    encoding = plan_encoding(to_write)  # a value that cannot be encoded fails before any write
    total = sum(len(s.prefix) + s.size for s in shards) + (len(index) if index else 0) + encoding.size
    done = 0

    def count(nbytes: int) -> None:
        nonlocal done
        done += nbytes
        if progress is not None:
            progress(done, max(done, total))

    with report_progress(count), AtomicFiles(durable=durable) as group:
        for shard, destination in zip(shards, destinations, strict=False):
            with group.open(destination) as out:
                out.write(shard.prefix)
                advance(len(shard.prefix))
                for item in shard.items:
                    write_payload(out, item.payload)  # file to file, or a window at a time
        if index is not None:
            with group.open(destinations[-1]) as out:
                out.write(index)
                advance(len(index))
        with group.open(target) as out:
            encoding.write(out)
        group.commit()  # the weights first, the model last
