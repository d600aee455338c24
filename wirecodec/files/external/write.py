"""Where the writers may put external data: a location checked to stay inside the model's
directory, lexically and once resolved. The write-back that decides which tensors go
where is :mod:`wirecodec.files.writeback`.
"""

from __future__ import annotations

import os
import pathlib

from wirecodec.errors import ExternalDataError
from wirecodec.files.base.locations import relative_location_problem

__all__ = ["check_location", "data_path"]


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
