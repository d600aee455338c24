"""External tensor data (IR.md, "External Tensor Data"): safe resolution and mapping.

A tensor whose ``data_location`` is EXTERNAL names its bytes with ``external_data``
entries: ``location`` (a path relative to the model's directory, required), ``offset``
and ``length`` (decimal byte counts) and ``checksum`` (SHA1, recorded, not verified).
Each data file is memory-mapped once and tensors get read-only views of it.

Refused with :class:`~wirecodec.ExternalDataError`, naming the tensor: absolute paths,
paths that leave the model directory (``..``, symlinks pointing outside, hard links),
anything that is not a regular file, offsets or lengths outside the file, malformed
numbers and unknown keys.
"""

from __future__ import annotations

import mmap
import os
import pathlib
import stat

from schema_dsl.onnx import TensorProto
from wirecodec.errors import ExternalDataError
from wirecodec.files.base.locations import relative_location_problem
from wirecodec.files.base.mapping import map_read_only, remember_file
from wirecodec.files.base.references import ExternalRef, label_of, parse_ref
from wirecodec.files.base.walk import iter_tensors
from wirecodec.protobuf.payloads import SourceMap

__all__ = ["ExternalDataStore", "ExternalRef", "iter_tensors", "parse_ref", "resolve"]


def resolve(base_dir: pathlib.Path, location: str, tensor: TensorProto) -> pathlib.Path:
    """The data file for ``location``, proven to be a regular file inside ``base_dir``."""
    return _resolve_in(base_dir.resolve(), location, tensor)


def _resolve_in(root: pathlib.Path, location: str, tensor: TensorProto) -> pathlib.Path:
    """:func:`resolve` with the model directory already resolved (``root``)."""
    label = label_of(tensor)
    problem = relative_location_problem(location)
    if problem is not None:
        raise ExternalDataError(f"{label}: location {location!r} {problem}")
    path = root / pathlib.PurePath(location)
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise ExternalDataError(f"{label}: data file {location!r} does not exist in {root}") from None
    except (OSError, RuntimeError) as exc:  # symlink loops
        raise ExternalDataError(f"{label}: cannot resolve {location!r}: {exc}") from None
    if not real.is_relative_to(root):
        raise ExternalDataError(f"{label}: location {location!r} leads outside the model directory")
    info = real.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ExternalDataError(f"{label}: {location!r} is not a regular file")
    if info.st_nlink > 1:
        # A hard link may point at any file on the volume: refuse, as onnx's checker does.
        raise ExternalDataError(f"{label}: {location!r} has {info.st_nlink} hard links")
    return real


class ExternalDataStore:
    """One read-only map per data file, shared by every tensor that points into it.

    The maps stay open as long as a view of them is alive (views keep their map
    alive); the store itself holds them only to hand out views. Each location is
    resolved and checked once per store: an export names the same data file for
    hundreds of tensors, and resolving a path costs a ``stat`` per component.
    """

    def __init__(
        self, base_dir: os.PathLike[str] | str, *, lazy: bool = True, for_copying: bool = False
    ) -> None:
        self.base_dir = pathlib.Path(base_dir)
        self.lazy = lazy
        # Maps that keep a descriptor of their file whatever its size, so a save copies
        # their bytes file to file (what convert wants; see wirecodec.files.base.mapping).
        self.for_copying = for_copying
        self._files: dict[pathlib.Path, memoryview] = {}
        self._root: pathlib.Path | None = None
        self._resolved: dict[str, pathlib.Path] = {}

    def _resolve(self, location: str, tensor: TensorProto) -> pathlib.Path:
        path = self._resolved.get(location)
        if path is None:
            if self._root is None:
                self._root = self.base_dir.resolve()
            # Only successes are remembered: a refused location is refused for every tensor.
            path = self._resolved[location] = _resolve_in(self._root, location, tensor)
        return path

    def _whole(self, path: pathlib.Path) -> memoryview:
        found = self._files.get(path)
        if found is not None:
            return found
        with path.open("rb") as file:
            info = os.fstat(file.fileno())
            size = info.st_size
            mapped: mmap.mmap | None = None
            if size == 0:
                data = memoryview(b"")  # mmap refuses empty files
            elif self.for_copying:
                mapped = SourceMap.adopt(os.dup(file.fileno()), str(path))
            elif self.lazy:
                mapped = map_read_only(file.fileno(), size, str(path))
            else:
                data = memoryview(file.read())
            if mapped is not None:
                # A save that lands where this file resolves refers to it again (writeback).
                remember_file(mapped, path, info)
                data = memoryview(mapped)
        self._files[path] = data
        return data

    def view(self, tensor: TensorProto) -> memoryview:
        """The bytes ``tensor`` refers to, as a read-only view (no copy when lazy)."""
        ref = parse_ref(tensor)
        whole = self._whole(self._resolve(ref.location, tensor))
        size = whole.nbytes
        if ref.offset > size:
            raise ExternalDataError(
                f"{label_of(tensor)}: offset {ref.offset} is past the end of {ref.location!r} ({size} bytes)"
            )
        end = size if ref.length is None else ref.offset + ref.length
        if end > size:
            raise ExternalDataError(
                f"{label_of(tensor)}: offset {ref.offset} + length {ref.length} runs past the end of "
                f"{ref.location!r} ({size} bytes)"
            )
        return whole[ref.offset : end].toreadonly()

    def close(self) -> None:
        """Forget the maps (they close once no view of them remains)."""
        self._files.clear()
        self._resolved.clear()
