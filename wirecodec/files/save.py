"""``save``: models and single tensors to files, atomically, optionally with external data.

>>> import pathlib, tempfile
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> save(build(), folder / "mlp.onnx", external_data=True, size_threshold=64)
>>> sorted(p.name for p in folder.iterdir())
['mlp.onnx', 'mlp.onnx.data']
"""

from __future__ import annotations

import contextlib
import glob
import os
import pathlib
import re
from typing import IO, Any

from schema_dsl.message import shallow_copy
from schema_dsl.onnx import ModelProto, TensorProto
from schema_dsl.views import holding_views
from wirecodec.errors import ExternalDataError, WireCodecError
from wirecodec.files._base.atomic import AtomicFiles
from wirecodec.files._base.options import SaveOptions
from wirecodec.files._base.walk import iter_tensors, substitute
from wirecodec.files.external import write as _external_write
from wirecodec.files.load import load
from wirecodec.protobuf.codec import encode_chunks, write_chunks
from wirecodec.protobuf.lazy import waiting_bytes
from wirecodec.protobuf.payloads import advance, stand_in, write_payload
from wirecodec.protobuf.stream_encode import BIG, plan

__all__ = ["SaveOptions", "save", "save_tensor", "with_stand_ins", "write_model"]


def save(
    model: ModelProto,
    path: str | os.PathLike[str],
    *,
    external_data: bool | str = False,
    location: str | None = None,
    size_threshold: int = 1024,
    all_tensors_to_one_file: bool = True,
    align: int = 4096,
    max_shard_size: int | None = None,
    convert_attribute: bool = False,
    durable: bool = True,
) -> None:
    """Write ``model`` to ``path`` atomically; optionally move tensor data to external files.

    With ``external_data=True``, every initializer (and with ``convert_attribute=True``
    every attribute tensor) holding at least ``size_threshold`` bytes moves to
    ``location`` (default ``<model file name>.data``; if a file of that name exists, a
    fresh ``<model file name>.N.data``, and the previous version's default-named data is
    removed once the new model is in place), each at an offset aligned to
    ``align`` bytes (64 for tensors smaller than that) so it can be mapped;
    ``max_shard_size`` splits the data into ``<location>.0``, ``.1``, … without
    splitting a tensor; ``all_tensors_to_one_file=False`` writes one file per tensor,
    named after it. The caller's model is not modified.

    Every file is written to a temporary in the target directory and renamed into
    place only when all of them are complete, so an error (or a crash before the
    renames) leaves the previous files intact.

    ``durable=True`` (the default) also ``fsync``s every file before the renames and
    the directory after them: once ``save`` returns, the model survives a power cut.
    ``durable=False`` skips the ``fsync``s (``save`` returns once the bytes are in the
    operating system's page cache, as ``onnx.save`` does) and keeps the rest: a crash
    or kill of this process, or an error, still never leaves a half-written file under
    a target name, and an error removes the temporaries. But after a power cut or an
    operating-system crash, a file written with ``durable=False`` may hold its previous
    version, or be empty or incomplete (the rename can reach the disk before the data
    does), and the model may name external data that is not there. Use it for files
    you can write again.

    ``external_data="model.safetensors"`` (a name ending in ``.safetensors``, relative
    to the model's directory) puts the weights in a safetensors file instead, which the
    ``safetensors`` package reads too, with ``size_threshold``, ``max_shard_size``,
    ``convert_attribute``, ``align`` and ``durable`` as above
    (:func:`wirecodec.files.safetensors.save.save_safetensors`, docs/safetensors.md).
    """
    if location is not None and not location:
        raise ExternalDataError("location must not be empty (None picks the default name)")
    options = SaveOptions(
        location=location,
        size_threshold=size_threshold,
        all_tensors_to_one_file=all_tensors_to_one_file,
        align=align,
        max_shard_size=max_shard_size,
        convert_attribute=convert_attribute,
        durable=durable,
    )
    if isinstance(external_data, str):
        if location is not None or not all_tensors_to_one_file:
            raise ValueError(
                "external_data='<name>.safetensors' names the file: location and "
                "all_tensors_to_one_file do not apply"
            )
        from wirecodec.files.safetensors.save import save_safetensors  # only this path needs it

        save_safetensors(model, path, options.but(location=external_data))
        return
    write_model(model, path, options, external=bool(external_data))


@holding_views()  # tensors found in one walk are looked up by id in the next
def with_stand_ins(model: ModelProto) -> ModelProto:
    """``model`` with each tensor whose ``raw_data`` waits to be fetched (a model by URL)
    replaced by a copy holding a stand-in (:func:`~wirecodec.protobuf.payloads.stand_in`):
    written as a single file, each such tensor is fetched as it is written and not kept."""
    replacements: dict[int, TensorProto] = {}
    for tensor in iter_tensors(model):
        waiting = waiting_bytes(tensor, "raw_data")
        # Smaller payloads are batched with the structure, not written on their own: those are
        # fetched when encoded (and kept, being small).
        if waiting is not None and waiting.nbytes >= BIG:
            copy = shallow_copy(tensor, leave_out=frozenset({"raw_data"}))
            copy.raw_data = stand_in(waiting)
            replacements[id(tensor)] = copy
    if not replacements:
        return model
    changed = substitute(model, replacements)
    assert isinstance(changed, ModelProto)
    return changed


def write_model(
    model: ModelProto, path: str | os.PathLike[str], options: SaveOptions, *, external: bool
) -> None:
    """:func:`save` with its options gathered (what ``convert`` calls): the model, and with
    ``external`` its tensors moved to data files as ``options`` say."""
    target = pathlib.Path(path)
    to_write: ModelProto = model
    files: list[_external_write.DataFile] = []
    replaced: set[str] = set()
    if external:
        to_write, files, replaced = _plan_external(model, target, options)
    # Every destination is checked before anything is written.
    destinations = [_external_write.data_path(target.parent, f.location) for f in files]
    for data_file, destination in zip(files, destinations, strict=True):
        if os.path.normpath(destination) == os.path.normpath(target):
            raise ExternalDataError(
                f"refusing external data location {data_file.location!r}: it is the model file itself"
            )
    # Measured before any file is opened: a value that cannot be encoded fails here.
    encoding = plan(to_write)
    with AtomicFiles(durable=options.durable) as group:
        for data_file, destination in zip(files, destinations, strict=True):
            with group.open(destination) as out:
                _write_parts(out, data_file.parts)
        with group.open(target) as out:
            encoding.write(out)
        # Data files first, the model last: a model never names data that is not there.
        group.commit()
    # The previous version's default-named data, unless the model just written still
    # refers to it (tensors that stayed external keep their references).
    if replaced:
        for name in replaced - _locations(to_write):
            with contextlib.suppress(OSError):
                (target.parent / name).unlink()


def _plan_external(
    model: ModelProto, target: pathlib.Path, options: SaveOptions
) -> tuple[ModelProto, list[_external_write.DataFile], set[str]]:
    """The model to write, its data files, and the previous default-named data it replaces."""
    replaced: set[str] = set()
    # The files the model now at ``target`` uses: needed to pick what a default-location
    # save cleans up, and which names per-tensor files may reuse. Reading it costs a load.
    needs_on_disk = options.location is None or not options.all_tensors_to_one_file
    on_disk = _referenced_files(target) if needs_on_disk else set()
    if options.location is None:
        # Never rewrite, in place, the data the model on disk now points at: a crash between
        # the renames would pair the old model with new data. New data gets a fresh name.
        replaced = {name for name in on_disk if _is_default_name(target, name)}
        options = options.but(location=_fresh_location(target))
    taken = () if options.all_tensors_to_one_file else _unrelated_files(target, on_disk)
    planned = _external_write.plan(model, target, options, taken=taken)
    return planned.model, planned.files, replaced


def _locations(model: ModelProto) -> set[str]:
    return {
        entry.value
        for tensor in iter_tensors(model)
        for entry in tensor.external_data
        if entry.key == "location"
    }


def _referenced_files(target: pathlib.Path) -> set[str]:
    """The data files that the model now at ``target`` (if any) refers to."""
    try:
        current = load(target, load_external_data=False, lazy=False)
    except (OSError, WireCodecError):
        return set()
    return _locations(current)


def _is_default_name(target: pathlib.Path, name: str) -> bool:
    """Named by our default scheme: ``<model>.data``, ``<model>.N.data``, and their shards."""
    return re.fullmatch(re.escape(target.name) + r"(\.\d+)?\.data(\.\d+)?", name) is not None


def _unrelated_files(target: pathlib.Path, ours: set[str]) -> set[str]:
    """Names in the model's directory that per-tensor files must not take (lower-cased)."""
    try:
        present = {entry.name.lower() for entry in target.parent.iterdir()}
    except OSError:
        return set()
    return present - {name.lower() for name in ours}


def _fresh_location(target: pathlib.Path) -> str:
    """``<model>.data``, or ``<model>.N.data`` when that name (or its shards) is taken."""
    n = 0
    while True:
        name = f"{target.name}.data" if n == 0 else f"{target.name}.{n}.data"
        if not any(target.parent.glob(glob.escape(name) + "*")):
            return name
        n += 1


def _write_parts(out: IO[bytes], parts: list[tuple[int, Any]]) -> None:
    position = 0
    for offset, payload in parts:
        if offset > position:
            out.write(bytes(offset - position))
            advance(offset - position)
        write_payload(out, payload)  # file to file, or page by page: never all resident
        position = offset + len(payload)


def save_tensor(tensor: TensorProto, path: str | os.PathLike[str]) -> None:
    """Write a single TensorProto to ``path`` atomically."""
    chunks, _ = encode_chunks(tensor)
    with AtomicFiles() as group:
        with group.open(path) as out:
            write_chunks(out, chunks)
        group.commit()
