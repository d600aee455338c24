"""Where the writers may put external data: a location checked to stay inside the model's
directory, lexically and once resolved. The write-back that decides which tensors go
where is :mod:`wirecodec.files.writeback`.
"""

from __future__ import annotations

import os
import pathlib

from wirecodec.errors import ExternalDataError
from wirecodec.files.base.locations import relative_location_problem
from wirecodec.files.base.mapping import map_read_only
from wirecodec.files.base.source import open_source_file

__all__ = ["check_location", "data_path", "held_bytes"]


def check_location(location: str) -> None:
    """A location we write must stay inside the model's directory (CVE-2025-51480)."""
    problem = "is empty" if not location else relative_location_problem(location)
    if problem is not None:
        raise ExternalDataError(
            f"refusing to write external data to {location!r}: it {problem}; "
            "it must be a relative path inside the model's directory"
        )


def data_path(model_dir: pathlib.Path, location: str) -> pathlib.Path:
    """Where a data file at ``location`` will be written, checked to stay in ``model_dir``.

    The lexical check (:func:`check_location`) is not enough: a directory inside the model
    directory may be a symlink to anywhere. So the directory the file lands in must
    resolve inside the model directory, exist, and the name must not be a directory.
    (A symlink *named* like the file is fine: the rename replaces the link itself.)
    """
    check_location(location)
    path = model_dir / location
    if location.endswith(("/", "\\")) or path.name in ("", ".", "..") or path.is_dir():
        raise ExternalDataError(f"refusing to write external data to {location!r}: it names a directory")
    root = os.path.realpath(model_dir)
    folder = os.path.realpath(path.parent)
    if os.path.commonpath([root, folder]) != root:
        raise ExternalDataError(
            f"refusing to write external data to {location!r}: its directory resolves to "
            f"{folder!r}, outside the model's directory"
        )
    if not os.path.isdir(folder):
        raise ExternalDataError(f"cannot write external data to {location!r}: no directory {folder!r}")
    return path


def held_bytes(destination: pathlib.Path, location: str) -> memoryview | None:
    """What a data file about to be written already holds, mapped read-only, or None
    (no such file, or empty). A writer puts these bytes first and its tensors after them,
    as onnx's saver appends, so another model pointing into the file still reads what it
    read (the file is still replaced atomically, by the copy). A safetensors file is
    refused: its header fixes its length, and bytes after its tensors make it unreadable."""
    try:
        with open_source_file(destination) as held:
            size = os.fstat(held.fileno()).st_size
            if not size:
                return None
            if location.endswith(".safetensors"):
                raise ExternalDataError(
                    f"refusing to append external data to {location!r}: a safetensors "
                    "file cannot hold bytes after its tensors (name another location)"
                )
            return memoryview(map_read_only(held.fileno(), size, str(destination)))
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None  # nothing there to keep (a directory of that name fails when written)
