"""``save``: models and single tensors to files, atomically, optionally with external data.

>>> import pathlib, tempfile
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> save(build(), folder / "mlp.onnx", external_data=True, size_threshold=64)
>>> sorted(p.name for p in folder.iterdir())
['mlp.onnx', 'mlp.onnx.data']
"""

from __future__ import annotations

import os

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.files.base.options import SaveOptions
from wirecodec.files.writeback import with_stand_ins, write_back
from wirecodec.protobuf.codec import encode_chunks, write_chunks

__all__ = ["SaveOptions", "save", "save_tensor", "with_stand_ins"]


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

    With ``external_data=True`` the model keeps its layout (the one rule of
    :mod:`wirecodec.files.writeback`): a tensor whose bytes are still in an external data
    file (a model from :func:`wirecodec.load`, or one loaded without its data) stays a
    reference to that file, unread, when the file resolves from ``path`` (the same
    directory, or below it), and is copied to the new data file when it does not. Every
    other initializer (and with ``convert_attribute=True`` every attribute tensor) holding
    at least ``size_threshold`` bytes moves to ``location`` (default
    ``<model file name>.data``; if a file of that name exists, a fresh
    ``<model file name>.N.data``: an existing file is never written over, and nothing is
    deleted, so a data file the new model no longer uses stays for you to remove; an
    explicit ``location`` naming an existing file keeps its bytes first and appends after
    them, as onnx's saver does, so models pointing into it still read what they read), each
    at an offset aligned to ``align`` bytes (64 for tensors smaller than that) so it can
    be mapped;
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
        write_back(model, path, "safetensors", options.but(location=external_data))
        return
    write_back(model, path, "external" if external_data else "single", options)


def save_tensor(tensor: TensorProto, path: str | os.PathLike[str]) -> None:
    """Write a single TensorProto to ``path`` atomically."""
    chunks, _ = encode_chunks(tensor)
    with AtomicFiles() as group:
        with group.open(path) as out:
            write_chunks(out, chunks)
        group.commit()
