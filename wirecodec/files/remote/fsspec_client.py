"""A file on an ``fsspec`` file system (``s3://``, ``gcs://``, ``hf://``, ``memory://``...):
the optional extra (``pip install wirecodec[remote]``).

fsspec is imported only when such a URL is opened; without it, a clear
:class:`~wirecodec.RemoteError` says what to install. Its errors become
:class:`~wirecodec.RemoteError` naming the URL and the range.
"""

from __future__ import annotations

from typing import Any

from wirecodec.errors import RemoteError
from wirecodec.files.remote.source import RangeSource, RemoteOptions

__all__ = ["FsspecSource"]


class FsspecSource(RangeSource):
    """A file read through ``fsspec`` (``cat_file`` with ``start``/``end``)."""

    def __init__(self, url: str, options: RemoteOptions) -> None:
        super().__init__(options)
        self.url = url
        try:
            import fsspec  # type: ignore[import-not-found,import-untyped,unused-ignore]
        except ImportError:
            scheme = url.partition("://")[0]
            raise RemoteError(
                f"{scheme}:// URLs need the optional fsspec package (pip install 'wirecodec[remote]'); "
                "http:// and https:// work without it",
                url,
            ) from None
        try:
            self._fs, self._path = fsspec.core.url_to_fs(url)
            self.size = int(self._fs.size(self._path))
        except (ValueError, ImportError) as exc:  # an unknown scheme, or its driver missing
            raise RemoteError(f"fsspec cannot open it: {exc}", url) from None
        except OSError as exc:  # missing, refused
            raise RemoteError(f"{type(exc).__name__}: {exc}", url) from None

    def _fetch(self, start: int, end: int) -> bytes:
        try:
            data: Any = self._fs.cat_file(self._path, start=start, end=end)
        except (OSError, ValueError) as exc:
            raise RemoteError(f"{type(exc).__name__}: {exc}", self.url, start, end) from None
        return bytes(data)
