"""The one lexical rule for external-data locations, read and written alike.

A location names a file relative to the model's directory (IR.md, "External Tensor
Data"); absolute paths, drive letters, ``..`` steps and NUL bytes would let a model read
or write anywhere (CVE-2022-25882, CVE-2024-27318, CVE-2025-51480). Reading and
writing then each add their filesystem checks (symlinks, hard links, directories).
"""

from __future__ import annotations

import pathlib

__all__ = ["relative_location_problem"]


def relative_location_problem(location: str) -> str | None:
    """What is wrong with ``location`` as a path inside the model directory, or None.

    >>> relative_location_problem("weights/w.bin") is None
    True
    >>> relative_location_problem("../w.bin"), relative_location_problem("C:w.bin")
    ("contains '..'", 'is absolute; it must be relative')
    """
    if "\x00" in location:
        return "contains a NUL byte"
    windows = pathlib.PureWindowsPath(location)
    if pathlib.PurePath(location).is_absolute() or windows.is_absolute() or windows.drive:
        return "is absolute; it must be relative"
    if location.startswith("\\"):
        return "is absolute; it must be relative"
    if ".." in pathlib.PurePosixPath(location.replace("\\", "/")).parts:
        return "contains '..'"
    return None
