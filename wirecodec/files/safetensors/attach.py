"""Pointing a model's tensors into existing safetensors files, by name.

A PyTorch checkpoint ``model.safetensors`` and an ONNX export of the same network name
their weights alike; :func:`attach_weights` makes each ONNX tensor whose name the file
has refer to that tensor's bytes in it (location, offset, length), after checking that
its element type and shape are the file's. The model then no longer needs its own copy:
one file of weights serves PyTorch, onnxruntime and :func:`wirecodec.load`.

>>> import pathlib, tempfile
>>> import wirecodec
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> wirecodec.save(build(), folder / "a.onnx", external_data="w.safetensors", size_threshold=0)
>>> attached = attach_weights(build(), folder / "w.safetensors")
>>> [entry.value for entry in attached.graph.initializer[0].external_data]
['w.safetensors', '4096', '256']
"""

from __future__ import annotations

import json
import mmap
import os
import pathlib
from dataclasses import dataclass, field
from typing import Any

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError, TensorError
from wirecodec.files.base.locations import relative_location_problem
from wirecodec.files.base.references import as_reference, uses_external_data
from wirecodec.files.base.walk import ByIdentity, substitute
from wirecodec.files.safetensors.format import Entry, Header, read_header, safetensors_dtype
from wirecodec.files.safetensors.names import named_tensors
from wirecodec.protobuf.payloads import WINDOW, read_only_map, release
from wirecodec.tensors import from_array, to_array

__all__ = ["Attached", "attach", "attach_weights", "read_weights"]

INDEX_SUFFIX = ".index.json"


@dataclass(frozen=True)
class _Found:
    path: pathlib.Path
    header: Header
    entry: Entry


@dataclass
class Attached:
    """What :func:`attach` did: the new model, the names attached, and what did not match."""

    model: ModelProto
    attached: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # tensors the files do not name: left as they were
    unused: list[str] = field(default_factory=list)  # names in the files that no tensor has


def _index_files(index: pathlib.Path) -> dict[str, pathlib.Path]:
    """``weight_map`` of a hub index: tensor name -> shard path (shards beside the index)."""
    try:
        document = json.loads(index.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ExternalDataError(f"{index}: not a safetensors index: {exc}") from None
    weight_map = document.get("weight_map") if isinstance(document, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise ExternalDataError(f"{index}: a safetensors index needs a weight_map of names to file names")
    files: dict[str, pathlib.Path] = {}
    for name, shard in weight_map.items():
        problem = relative_location_problem(shard)
        if problem is not None or not shard:
            raise ExternalDataError(f"{index}: shard {shard!r} of {name!r} {problem or 'is empty'}")
        files[name] = index.parent / shard
    return files


def read_weights(weights: str | os.PathLike[str]) -> dict[str, _Found]:
    """Every tensor of a safetensors file, or of the shards a ``.index.json`` lists, by name."""
    path = pathlib.Path(weights)
    if path.name.endswith(INDEX_SUFFIX):
        wanted = _index_files(path)
        headers = {shard: read_header(shard) for shard in sorted(set(wanted.values()))}
        found: dict[str, _Found] = {}
        for name, shard in wanted.items():
            entry = headers[shard].entries.get(name)
            if entry is None:
                raise ExternalDataError(f"{path}: {name!r} is not in its shard {shard.name!r}")
            found[name] = _Found(shard, headers[shard], entry)
        return found
    header = read_header(path)
    return {name: _Found(path, header, entry) for name, entry in header.entries.items()}


def _location(file: pathlib.Path, model_dir: pathlib.Path) -> str:
    """``file`` relative to the model's directory, which it must be inside."""
    relative = os.path.relpath(os.path.realpath(file), os.path.realpath(model_dir))
    location = pathlib.PurePath(relative).as_posix()
    problem = relative_location_problem(location)
    if problem is not None:
        raise ExternalDataError(
            f"{file} is not inside the model's directory {model_dir} (the location would be "
            f"{location!r}, which {problem}); put the weights next to the model, or below it"
        )
    return location


def _check(tensor: TensorProto, name: str, found: _Found) -> None:
    where = f"tensor {tensor.name!r}" + ("" if tensor.name == name else f" (as {name!r})")
    dtype = safetensors_dtype(tensor.data_type, where)
    entry = found.entry
    if dtype != entry.dtype or tuple(tensor.dims) != entry.shape:
        raise ExternalDataError(
            f"{where}: the model has {dtype} {list(tensor.dims)}, but {found.path.name} has "
            f"{entry.dtype} {list(entry.shape)}"
        )


def _held_bytes(tensor: TensorProto) -> Any:
    """The bytes ``tensor`` holds in the model (b"" when it holds none, or refers to a file)."""
    if uses_external_data(tensor):
        return b""
    if tensor.HasField("raw_data"):
        return tensor.raw_data
    try:
        return from_array(to_array(tensor)).raw_data
    except TensorError:
        return b""  # no usable values: nothing to compare


def _verify(tensor: TensorProto, name: str, found: _Found, maps: dict[pathlib.Path, mmap.mmap]) -> None:
    """Refuse a tensor whose own bytes differ from the file's (compared a window at a time)."""
    held = memoryview(_held_bytes(tensor)).cast("B")
    if not held.nbytes:
        return
    where = f"tensor {tensor.name!r}" + ("" if tensor.name == name else f" (as {name!r})")
    entry = found.entry
    if held.nbytes != entry.nbytes:
        raise ExternalDataError(f"{where}: holds {held.nbytes} bytes, {found.path.name} has {entry.nbytes}")
    whole = maps.get(found.path)
    if whole is None:
        with found.path.open("rb") as file:
            whole = maps[found.path] = read_only_map(file.fileno())  # a copy where maps fail
    theirs = memoryview(whole)[found.header.offset(entry) : found.header.offset(entry) + entry.nbytes]
    for start in range(0, held.nbytes, WINDOW):
        ours_window, theirs_window = held[start : start + WINDOW], theirs[start : start + WINDOW]
        same = ours_window == theirs_window  # byte views: compared in C, numpy not needed
        if not same:
            pairs = zip(bytes(ours_window), bytes(theirs_window), strict=True)
            first = start + next(i for i, (x, y) in enumerate(pairs) if x != y)
        release(ours_window)
        release(theirs_window)
        if not same:
            raise ExternalDataError(
                f"{where}: its bytes differ from {found.path.name}'s (first at byte {first})"
            )


def attach(
    model: ModelProto,
    weights: str | os.PathLike[str],
    *,
    model_dir: str | os.PathLike[str] | None = None,
    convert_attribute: bool = False,
    require_all: bool = False,
    verify: bool = False,
) -> Attached:
    """:func:`attach_weights`, with a report of what matched (for the command line)."""
    found = read_weights(weights)
    folder = pathlib.Path(model_dir) if model_dir is not None else pathlib.Path(weights).parent
    locations: dict[pathlib.Path, str] = {}
    result = Attached(model)
    replacements: ByIdentity[TensorProto] = ByIdentity()
    used: set[str] = set()
    maps: dict[pathlib.Path, mmap.mmap] = {}
    for tensor, name, initializer in named_tensors(model):
        if not (initializer or convert_attribute):
            continue
        match = found.get(name)
        if match is None:
            result.kept.append(name)
            continue
        _check(tensor, name, match)
        if verify:
            _verify(tensor, name, match, maps)
        location = locations.get(match.path)
        if location is None:
            location = locations[match.path] = _location(match.path, folder)
        offset = match.header.offset(match.entry)
        replacements[tensor] = as_reference(tensor, location, offset, match.entry.nbytes)
        result.attached.append(name)
        used.add(name)
    result.unused = sorted(set(found) - used)
    if not result.attached:
        raise ExternalDataError(f"{weights}: names none of the model's tensors; nothing to attach")
    if require_all and result.kept:
        shown = ", ".join(repr(n) for n in result.kept[:5]) + (", ..." if len(result.kept) > 5 else "")
        raise ExternalDataError(f"{weights}: has no tensor for {len(result.kept)} of the model's: {shown}")
    new_model = substitute(model, replacements)
    assert isinstance(new_model, ModelProto)
    result.model = new_model
    return result


def attach_weights(
    model: ModelProto,
    weights: str | os.PathLike[str],
    *,
    model_dir: str | os.PathLike[str] | None = None,
    convert_attribute: bool = False,
    require_all: bool = False,
    verify: bool = False,
) -> ModelProto:
    """``model`` with its tensors referring to their bytes in the safetensors file ``weights``.

    ``weights`` is a ``.safetensors`` file or a hub ``.safetensors.index.json`` (its
    shards then). Each initializer — with ``convert_attribute=True`` each attribute
    tensor too — whose name (as :mod:`wirecodec.files.safetensors.names` gives it) the
    file has becomes an external-data reference to it; its element type and shape
    must be the file's, or :class:`~wirecodec.ExternalDataError` says which differs.
    Tensors the file does not name stay as they are (``require_all=True`` refuses
    instead); a file that names none of them is refused. ``verify=True`` also compares
    the bytes a tensor holds in the model (if any) with the file's and refuses a
    difference: the right shapes from the wrong checkpoint pass the other checks.

    Locations are relative to ``model_dir``, the directory the model will be saved in
    (default: the weights' own), which must contain the weights. Save the result there
    with :func:`wirecodec.save`. The caller's model is not modified.
    """
    return attach(
        model,
        weights,
        model_dir=model_dir,
        convert_attribute=convert_attribute,
        require_all=require_all,
        verify=verify,
    ).model
