"""Opening a model by URL: its structure fetched by ranges, each tensor's bytes when read.

What :func:`wirecodec.files.opener.open_model` does with ``https://...`` (and, with
fsspec installed, ``s3://...`` and the like):

1. the structure walk of a local sparse copy (wirecodec.protobuf.sparse) runs over
   ranged reads (:class:`~wirecodec.files.remote.source.RangeSource`), and finds where
   the large ``raw_data`` payloads lie — reading headers only;
2. everything else is fetched into an anonymous map at the same offsets (the *shadow*),
   the decoder reads the structure from it, and every large ``raw_data`` is left
   *pending* (wirecodec.protobuf.lazy.PendingBytes): present, its length known, its
   bytes fetched by one ranged request when it is first read;
3. external data beside the model resolves against the model's URL
   (:class:`RemoteData`), with the same rule as local files: a location is relative and
   never leaves the model's "directory"; its tensors are pending the same way.

So opening and inspecting a model of gigabytes transfers its structure (kilobytes to
megabytes), and reading one tensor transfers that tensor. A payload region of the shadow
holds a marker naming its range until the decoder has sliced it: each slice is then
matched to its range without relying on the walk and the decoder visiting tensors in
the same order.
"""

from __future__ import annotations

import functools
import mmap
import urllib.parse
from collections.abc import Callable, Iterable
from typing import Any, Final

from schema_dsl import FieldSpec, Message
from schema_dsl.layout import slot_value
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError, NotAModelError, RemoteError
from wirecodec.files.base.locations import relative_location_problem
from wirecodec.files.base.references import label_of
from wirecodec.files.base.source import is_zip_head
from wirecodec.files.base.tensor_data import Located, TensorData
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.remote.clients import open_source
from wirecodec.files.remote.source import RangeSource, RemoteOptions
from wirecodec.protobuf.codec import decode_split
from wirecodec.protobuf.lazy import PendingBytes, pending_bytes
from wirecodec.protobuf.sparse import MIN_PAYLOAD, gaps, walk_payloads

__all__ = ["RemoteData", "Shadow", "fetch_structure"]

_MARK: Final = b"\x00wirecodec-remote"  # + the range's index, 8 bytes
_CHUNK: Final = 8 << 20  # a long run of structure is fetched this much per request


def _raw_data(message: type[Message], spec: FieldSpec) -> bool:
    return message is TensorProto and spec.name == "raw_data"


class Shadow:
    """A remote model's bytes without its large ``raw_data`` payloads (see the module doc)."""

    def __init__(self, source: RangeSource, lazy: bool) -> None:
        self.source = source
        size = source.size
        ranges = walk_payloads(source.read_some, size, ModelProto, keep=_raw_data) if lazy else None
        # None: not lazy, or a structure the walk is unsure of: then every byte is fetched.
        self.payloads: list[tuple[int, int]] = ranges or []
        self.map = mmap.mmap(-1, size)
        for start, end in gaps(size, self.payloads):
            self._fill(start, end)
        for index, (start, _) in enumerate(self.payloads):
            self.map[start : start + len(_MARK) + 8] = _MARK + index.to_bytes(8, "little")

    def _fill(self, start: int, end: int) -> None:
        for low in range(start, end, _CHUNK):
            high = min(end, low + _CHUNK)
            self.map[low:high] = self.source.read(low, high)

    def decode(self, max_depth: int, lazy: bool) -> ModelProto:
        """The model, decoded from the shadow (the map is not written again)."""
        view = memoryview(self.map).toreadonly()
        return decode_split(ModelProto, self.map, view, "decode", max_depth=max_depth, lazy=lazy)

    def leave_pending(self, tensors: Iterable[TensorProto]) -> None:
        """Make each large ``raw_data`` the decoder sliced from the shadow pending; fetch
        into the shadow any payload no tensor claimed (its views then read the real bytes)."""
        claimed: set[int] = set()
        for tensor in tensors:
            view = slot_value(tensor, "raw_data")
            index = self._index_of(view)
            if index is None:
                continue
            start, end = self.payloads[index]
            claimed.add(index)
            fetch = functools.partial(self.source.read, start, end)
            pending_bytes(tensor, "raw_data", end - start, fetch, _piece_reader(self.source.read, start))
        for index, (start, end) in enumerate(self.payloads):
            if index not in claimed:
                self._fill(start, end)

    def _index_of(self, view: object) -> int | None:
        if not isinstance(view, memoryview) or view.obj is not self.map or view.nbytes < MIN_PAYLOAD:
            return None
        mark = len(_MARK)
        if view[:mark].tobytes() != _MARK:
            return None
        index = int.from_bytes(view[mark : mark + 8], "little")
        if index >= len(self.payloads):
            return None
        start, end = self.payloads[index]
        return index if end - start == view.nbytes else None


def fetch_structure(
    url: str, options: RemoteOptions, *, lazy: bool, max_depth: int
) -> tuple[ModelProto, RangeSource]:
    """The model at ``url``, its large payloads pending (all fetched when not ``lazy``)."""
    source = open_source(url, options)
    if source.size == 0:
        raise NotAModelError("empty file: not an ONNX model", 0, "ModelProto")
    if is_zip_head(source.read(0, 4)):
        raise RemoteError(
            "a zip container (.onnxz) is not read by ranges: load_zip(url) copies it to a temporary file",
            url,
        )
    if source.whole is None and source.size <= options.whole_below:
        source.whole = source.read(0, source.size)  # one request; every later read is served from it
    shadow = Shadow(source, lazy)
    model = shadow.decode(max_depth, lazy)
    if shadow.payloads:
        shadow.leave_pending(iter_tensors(model))
    return model, source


class RemoteData(TensorData):
    """Data files beside a remote model: each location joined to the model's URL, refused
    when it is absolute or climbs out with ``..`` (as for local files); each tensor's
    bytes fetched when it is first read."""

    kind = "remote"

    def __init__(self, model_url: str, options: RemoteOptions) -> None:
        parts = urllib.parse.urlsplit(model_url)
        folder = parts.path[: parts.path.rfind("/") + 1] or "/"
        self.base = urllib.parse.urlunsplit((parts.scheme, parts.netloc, folder, "", ""))
        self.options = options
        self._sources: dict[str, RangeSource] = {}

    def url_of(self, location: str, tensor: TensorProto) -> str:
        """The URL of the data file ``location`` names (for ``tensor``, named in errors)."""
        problem = relative_location_problem(location)
        if problem is not None:
            raise ExternalDataError(f"{label_of(tensor)}: location {location!r} {problem}")
        return self.base + urllib.parse.quote(location.replace("\\", "/"))

    def _source(self, location: str, tensor: TensorProto) -> RangeSource:
        source = self._sources.get(location)
        if source is None:
            source = self._sources[location] = open_source(self.url_of(location, tensor), self.options)
        return source

    def whole(self, location: str, tensor: TensorProto) -> Located:
        size = self._source(location, tensor).size
        return Located(location, 0, size, size, None)

    def view(self, tensor: TensorProto) -> memoryview:
        found = self.locate(tensor)
        return memoryview(self._source(found.where, tensor).read(found.start, found.end)).toreadonly()

    def pending(self, tensor: TensorProto) -> PendingBytes:
        """``tensor``'s referenced bytes, not fetched yet: a writer copies them a piece (one
        ranged read) at a time (wirecodec.protobuf.payloads.write_payload), never holding
        the tensor whole, where :meth:`view` would fetch it at once."""
        found = self.locate(tensor)
        source = self._source(found.where, tensor)
        fetch = functools.partial(source.read, found.start, found.end)
        return PendingBytes(found.end - found.start, fetch, _piece_reader(source.read, found.start))

    def resolve_all(self, tensors: Iterable[TensorProto]) -> int:
        """As :meth:`TensorData.resolve_all`, but each tensor's bytes wait to be fetched
        until it is read (every reference is still checked first: its file and range)."""
        located = [(tensor, self.locate(tensor)) for tensor in tensors]
        for tensor, found in located:
            source = self._source(found.where, tensor)
            self._forget_reference(tensor)
            fetch = functools.partial(source.read, found.start, found.end)
            pieces = _piece_reader(source.read, found.start)
            pending_bytes(tensor, "raw_data", found.end - found.start, fetch, pieces)
        return len(located)

    @property
    def received(self) -> int:
        """Body bytes received for the data files so far."""
        return sum(source.received for source in self._sources.values())


def _piece_reader(read: Callable[[int, int], Any], start: int) -> Callable[[int, int], Any]:
    """Bytes ``[lo:hi)`` of the payload that begins at ``start`` (a ranged read of its own)."""

    def piece(lo: int, hi: int) -> Any:
        return read(start + lo, start + hi)

    return piece
