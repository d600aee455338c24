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

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.external import iter_tensors, parse_ref, resolve, uses_external_data
from wirecodec.files.save import save
from wirecodec.files.stream import assemble, stream
from wirecodec.files.stream_events import LazyTensor
from wirecodec.files.zip_container import is_zip, load_zip, save_zip
from wirecodec.protobuf.payloads import SourceMap, report_progress

__all__ = ["Layout", "convert", "load_mapped"]

Layout = Literal["single", "external", "zip"]


class _Maps:
    """One SourceMap per file, opened on first use (an empty file needs none)."""

    def __init__(self) -> None:
        self._maps: dict[pathlib.Path, memoryview] = {}

    def view(self, path: pathlib.Path) -> memoryview:
        whole = self._maps.get(path)
        if whole is None:
            # mmap refuses empty files; an empty one holds no payload anyway.
            whole = memoryview(b"") if path.stat().st_size == 0 else memoryview(SourceMap.open(path))
            self._maps[path] = whole
        return whole


def load_mapped(path: str | os.PathLike[str]) -> ModelProto:
    """The model at ``path`` with every payload a view of a mapped source file, unread.

    A single file is streamed (so one of any size costs its structure only), inline
    ``raw_data`` pointing into it; external data is resolved as :func:`wirecodec.load`
    resolves it (the same safety checks), into maps of the data files. A zip container
    is opened with ``wirecodec.files.zip_container.load_zip``.
    """
    source = pathlib.Path(path)
    if is_zip(source):
        return load_zip(source)
    maps = _Maps()

    def mapped(lazy: LazyTensor) -> TensorProto:
        tensor = lazy.header
        if lazy.raw_offset is not None:
            if lazy.raw_length == 0:
                tensor.raw_data = b""
            else:
                whole = maps.view(source)
                tensor.raw_data = whole[lazy.raw_offset : lazy.raw_offset + lazy.raw_length]
        return tensor

    with stream(source) as events:
        model = assemble(events, mapped)
    _map_external_data(model, source.parent, maps)
    return model


def _map_external_data(model: ModelProto, base_dir: pathlib.Path, maps: _Maps) -> None:
    """Point every external tensor's ``raw_data`` at a view of its mapped data file."""
    views: list[tuple[TensorProto, memoryview]] = []
    for tensor in iter_tensors(model):
        if not uses_external_data(tensor):
            continue
        ref = parse_ref(tensor)
        whole = maps.view(resolve(base_dir, ref.location, tensor))
        end = whole.nbytes if ref.length is None else ref.offset + ref.length
        if ref.offset > whole.nbytes or end > whole.nbytes:
            raise ExternalDataError(
                f"tensor {tensor.name!r}: offset {ref.offset} + length {ref.length} runs past the end of "
                f"{ref.location!r} ({whole.nbytes} bytes)"
            )
        views.append((tensor, whole[ref.offset : end]))
    # Every reference is checked before any tensor changes.
    for tensor, view in views:
        tensor.raw_data = view
        tensor.data_location = int(TensorProto.DataLocation.DEFAULT)
        tensor.ClearField("external_data")


def _source_bytes(path: pathlib.Path) -> int:
    """The source's size with the data files it names (for progress; best effort)."""
    total = path.stat().st_size
    try:
        with stream(path, skip_payloads=True) as events:
            locations = {
                entry.value
                for event in events
                if hasattr(event, "tensor")
                for entry in event.tensor.header.external_data
                if entry.key == "location"
            }
    except (OSError, ValueError):
        return total
    for location in locations:
        with contextlib.suppress(OSError, ValueError):
            total += (path.parent / location).stat().st_size
    return total


def convert(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    to: Layout = "single",
    location: str | None = None,
    size_threshold: int = 1024,
    all_tensors_to_one_file: bool = True,
    max_shard_size: int | None = None,
    align: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Write the model at ``src`` to ``dst`` in another layout; peak memory independent of weights.

    ``to="single"``: one file, payloads inline (files over 2 GiB are fine: wirecodec has
    no 2 GiB limit). ``to="external"``: tensors of at least ``size_threshold`` bytes in
    data files, with ``location``, ``all_tensors_to_one_file``, ``max_shard_size`` and
    ``align`` (default 4096) as in :func:`wirecodec.save`. ``to="zip"``: a zip container
    (``align`` default 64). The source may be any of the three; each tensor's bytes are
    copied from the source file to the destination by the kernel where it can.

    ``progress(done, total)`` is called as bytes are written (``total`` is the size of
    the source files, an estimate of the output's). Writes are atomic, like
    :func:`wirecodec.save`'s.
    """
    if to not in ("single", "external", "zip"):
        raise ValueError(f"to must be 'single', 'external' or 'zip', got {to!r}")
    if align is not None and to == "single":
        raise ValueError("align applies to external data and zip containers, not to a single file")
    source = pathlib.Path(src)
    total = _source_bytes(source) if progress is not None else 0
    model = load_mapped(source)
    done = 0

    def advance(nbytes: int) -> None:
        nonlocal done
        done += nbytes
        if progress is not None:
            progress(done, max(total, done))

    with report_progress(advance):
        if to == "zip":
            save_zip(model, dst, align=64 if align is None else align)
        else:
            save(
                model,
                dst,
                external_data=to == "external",
                location=location,
                size_threshold=size_threshold,
                all_tensors_to_one_file=all_tensors_to_one_file,
                align=4096 if align is None else align,
                max_shard_size=max_shard_size,
            )
