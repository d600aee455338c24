"""A file object that reads and cannot seek: what a pipe or a socket's file is, without a
process. Tests of every source kind hand it to the loaders."""

from __future__ import annotations

import io
from typing import Any

__all__ = ["Unseekable"]


class Unseekable(io.RawIOBase):
    """Reads ``data`` front to back; ``seekable()`` is False, as a pipe's."""

    def __init__(self, data: bytes) -> None:
        self._inner = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        return self._inner.readinto(buffer)
