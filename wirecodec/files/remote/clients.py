"""Which client reads a URL: HTTP(S) with the standard library, other schemes through fsspec.

Apart from :mod:`wirecodec.files.remote.source` so that the clients, which build on the
source's ``RangeSource``, are imported only when a URL of their scheme is opened.
"""

from __future__ import annotations

from wirecodec.files.remote.source import SCHEME_END, RangeSource, RemoteOptions

__all__ = ["open_source"]


def open_source(url: str, options: RemoteOptions) -> RangeSource:
    """The source for ``url``: HTTP(S) with the standard library, other schemes through fsspec."""
    scheme = url.partition(SCHEME_END)[0].lower()
    if scheme in ("http", "https"):
        from wirecodec.files.remote.http_client import HttpSource  # only when a URL is opened

        return HttpSource(url, options)
    from wirecodec.files.remote.fsspec_client import FsspecSource

    return FsspecSource(url, options)
