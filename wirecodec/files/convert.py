"""``convert``: a model from one layout to another (single file, external data, zip) in bounded memory.

The source is read with :func:`wirecodec.stream` (a single file of any size, headers
only) and its external data files are mapped, never read: every tensor payload is a
view of a :class:`~wirecodec.protobuf.payloads.SourceMap`, which the writers copy file
to file in the kernel. So memory holds the model's structure (nodes, names, shapes),
not its weights, in every direction.

>>> import pathlib, tempfile
>>> import wirecodec
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> wirecodec.save(build(), folder / "mlp.onnx")
>>> convert(folder / "mlp.onnx", folder / "split.onnx", to="external", size_threshold=64)
>>> sorted(p.name for p in folder.iterdir())
['mlp.onnx', 'split.onnx', 'split.onnx.data']
>>> convert(folder / "split.onnx", folder / "back.onnx", to="single")
>>> def weights(path):
...     return {t.name: bytes(t.raw_data) for t in wirecodec.load(path).graph.initializer}
>>> weights(folder / "back.onnx") == weights(folder / "mlp.onnx")
True
"""

from __future__ import annotations

import contextlib
import os
import pathlib
from collections.abc import Callable
from typing import Literal

from schema_dsl.onnx import ModelProto
from wirecodec.files.base.options import SaveOptions
from wirecodec.files.opener import Opened, Source, open_model
from wirecodec.files.save import with_stand_ins
from wirecodec.files.writeback import write_back
from wirecodec.protobuf.payloads import report_progress

__all__ = ["Layout", "convert", "convert_to_safetensors", "load_mapped"]

Layout = Literal["single", "external", "zip", "safetensors"]


def load_mapped(path: str | os.PathLike[str]) -> ModelProto:
    """The model at ``path`` with every payload a view of a mapped source file, unread.

    A single file is streamed (so one of any size costs its structure only), inline
    ``raw_data`` pointing into it; external data and a zip container's entries are
    resolved as :func:`wirecodec.load` resolves them (the one opener, the same checks).
    """
    opened = open_model(path, streamed=True)
    opened.resolve_external()
    return opened.model


def _source_bytes(opened: Opened) -> int:
    """The source's size with the data files its tensors name (for progress; best effort),
    from the model already opened: nothing is read again."""
    total = opened.size
    if opened.path is None:
        return total
    locations = {
        entry.value
        for tensor in opened.external_tensors()
        for entry in tensor.external_data
        if entry.key == "location"
    }
    for location in locations:
        with contextlib.suppress(OSError, ValueError):
            total += (opened.path.parent / location).stat().st_size
    return total


def convert(
    src: Source | Opened,
    dst: str | os.PathLike[str],
    *,
    to: Layout = "single",
    location: str | None = None,
    size_threshold: int = 1024,
    all_tensors_to_one_file: bool = True,
    max_shard_size: int | None = None,
    align: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    convert_attribute: bool = False,
) -> None:
    """Write the model at ``src`` to ``dst`` in another layout; peak memory independent of weights.

    ``to="single"``: one file, payloads inline (files over 2 GiB are fine: wirecodec has
    no 2 GiB limit). ``to="external"``: tensors of at least ``size_threshold`` bytes in
    data files, with ``location``, ``all_tensors_to_one_file``, ``max_shard_size`` and
    ``align`` (default 4096) and ``convert_attribute`` (attribute tensors, Constant
    values among them, move too: onnx's name and meaning) as in :func:`wirecodec.save`.
    ``to="safetensors"``: the weights in safetensors files beside ``dst`` (``location``
    default ``<dst stem>.safetensors``; see docs/safetensors.md). ``to="zip"``: a zip container
    (``align`` default 64). The source may be any of the three; each tensor's bytes are
    copied from the source file to the destination by the kernel where it can.

    Where the data goes (:mod:`wirecodec.files.writeback`): to another file, convert
    writes a copy that stands alone, new data files beside ``dst`` (``<dst>.data``, or a
    fresh ``<dst>.N.data`` when that name is taken: no existing file is written over).
    In place (``dst`` is ``src``), tensors already in an external data file stay there
    unread and only the model file is rewritten. Nothing is deleted: a data file the new
    model no longer uses stays.

    ``progress(done, total)`` is called as bytes are written (``total`` is the size of
    the source files, an estimate of the output's). Writes are atomic, like
    :func:`wirecodec.save`'s. ``src`` is anything :func:`wirecodec.files.opener.open_model`
    takes (a path, ``-``, bytes, a container; the same errors), or a model it opened.
    """
    if to not in ("single", "external", "zip", "safetensors"):
        raise ValueError(f"to must be 'single', 'external', 'zip' or 'safetensors', got {to!r}")
    if align is not None and to == "single":
        raise ValueError("align applies to external data and zip containers, not to a single file")
    # The one set of save options every writer takes (the safetensors default location aside).
    options = SaveOptions(
        location=location,
        size_threshold=size_threshold,
        all_tensors_to_one_file=all_tensors_to_one_file,
        align=4096 if align is None else align,
        max_shard_size=max_shard_size,
        convert_attribute=convert_attribute,
    )
    # A pipe is spooled beside the output (the one place we were asked to write), so memory
    # holds its structure only, whatever its size.
    spool = pathlib.Path(dst).resolve().parent
    opened = src if isinstance(src, Opened) else open_model(src, streamed=True, spool_dir=spool)
    total = _source_bytes(opened) if progress is not None else 0  # before references are resolved
    model = opened.model
    # In place, tensors already in a data file stay there (only the model is rewritten);
    # to another file, convert writes a copy that stands alone (docs/loading.md).
    keep = opened.path is not None and _same_file(opened.path, pathlib.Path(dst))
    if to == "safetensors":
        target = pathlib.Path(dst)
        default = (target.stem if target.suffix else target.name) + ".safetensors"
        options = options.but(location=location or default)
        write_back(model, dst, to, options, source=opened.data, keep=keep, progress=progress)
        return
    if to == "zip" and align is None:
        options = options.but(align=64)
    done = 0

    def advance(nbytes: int) -> None:
        nonlocal done
        done += nbytes
        if progress is not None:
            progress(done, max(total, done))

    with report_progress(advance):
        if to == "single" and opened.remote is not None:
            model = with_stand_ins(model)  # each fetched tensor written, then dropped
        write_back(model, dst, to, options, source=opened.data, keep=keep)


def _same_file(a: pathlib.Path, b: pathlib.Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def convert_to_safetensors(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    location: str | None = None,
    size_threshold: int = 1024,
    max_shard_size: int | None = None,
    convert_attribute: bool = False,
    align: int = 4096,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """``convert --to safetensors``: the model at ``src`` to ``dst`` + safetensors weights.

    ``src`` is any layout :func:`wirecodec.convert` reads; its payloads are views of
    mapped files, copied to the new files by the kernel, so memory holds the model's
    structure, not its weights. ``location`` defaults to ``dst``'s name with
    ``.safetensors`` for its suffix (``model.onnx`` -> ``model.safetensors``); the other
    options are :func:`save_safetensors`'s.
    """
    convert(
        src,
        dst,
        to="safetensors",
        location=location,
        size_threshold=size_threshold,
        max_shard_size=max_shard_size,
        convert_attribute=convert_attribute,
        align=align,
        progress=progress,
    )
