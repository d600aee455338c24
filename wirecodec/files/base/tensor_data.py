"""Where the bytes a tensor refers to live: data files beside the model, or a zip container's entries.

A tensor whose ``data_location`` is EXTERNAL names its bytes by ``location``, ``offset``
and ``length``. What a location means depends on where the model came from: a file in
the model's directory (external data) or an entry of the archive (the ``.onnxz``
container). :func:`wirecodec.files.opener.open_model` gives every model the resolver
that fits it, so each tool asks the same two questions the same way:

- :meth:`TensorData.locate`: where are the bytes, and are they all there (nothing read);
- :meth:`TensorData.view`: the bytes, as a read-only view of a map (nothing copied).

Both raise :class:`~wirecodec.ExternalDataError` (or :class:`~wirecodec.ContainerError`
for an archive) naming the tensor.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterable
from dataclasses import dataclass

from schema_dsl.onnx import TensorProto
from wirecodec.errors import ExternalDataError, WireCodecError
from wirecodec.files.base.references import label_of, parse_ref

__all__ = ["Located", "NoData", "TensorData", "label_of"]



@dataclass(frozen=True)
class Located:
    """Where a tensor's bytes lie: ``where`` names the file or entry, ``start``/``end`` the range
    in it, ``size`` its whole size. ``path`` is the data file, when it is one."""

    where: str
    start: int
    end: int
    size: int
    path: pathlib.Path | None


class TensorData:
    """Resolves tensors that refer to bytes outside the model's own encoding."""

    kind = "none"

    def whole(self, location: str, tensor: TensorProto) -> Located:
        """The whole file or entry ``location`` names (for ``tensor``, named in errors); raises
        when it cannot be had (missing, unsafe)."""
        raise NotImplementedError

    def place(self, tensor: TensorProto) -> Located:
        """Where ``tensor``'s reference points, its range unchecked."""
        ref = parse_ref(tensor)
        found = self.whole(ref.location, tensor)
        end = max(found.size, ref.offset) if ref.length is None else ref.offset + ref.length
        return Located(found.where, ref.offset, end, found.size, found.path)

    def locate(self, tensor: TensorProto) -> Located:
        """Where ``tensor``'s referenced bytes lie; checks they exist and fit, reads nothing."""
        found = self.place(tensor)
        if found.start > found.size or found.end > found.size:
            raise self.range_error(
                f"{label_of(tensor)}: bytes {found.start} to {found.end} of {found.where!r} lie past its end "
                f"({found.size} bytes)"
            )
        return found

    def range_error(self, message: str) -> WireCodecError:
        return ExternalDataError(message)

    def view(self, tensor: TensorProto) -> memoryview:
        """The bytes ``tensor`` refers to, as a read-only view."""
        raise NotImplementedError

    def resolve_all(self, tensors: Iterable[TensorProto]) -> int:
        """Give each external tensor its bytes as ``raw_data`` (a view), as ``onnx.load`` does.

        Every reference is resolved before any tensor changes: a refusal leaves the model
        exactly as it was. Returns how many tensors changed.
        """
        views = [(tensor, self.view(tensor)) for tensor in tensors]
        for tensor, view in views:
            tensor.raw_data = view
            self._forget_reference(tensor)
        return len(views)

    def _forget_reference(self, tensor: TensorProto) -> None:
        tensor.data_location = int(TensorProto.DataLocation.DEFAULT)
        tensor.ClearField("external_data")


class NoData(TensorData):
    """A model read from bytes or a pipe: there is no directory to find its data files in."""

    kind = "none"

    def __init__(self, label: str) -> None:
        self.label = label

    def _refuse(self, tensor: TensorProto) -> ExternalDataError:
        location = parse_ref(tensor).location
        return ExternalDataError(
            f"{label_of(tensor)}: its data is in {location!r}, but the model came from {self.label}, "
            "which has no directory to find data files in (give a path, or base_dir=...)"
        )

    def whole(self, location: str, tensor: TensorProto) -> Located:
        raise self._refuse(tensor)

    def view(self, tensor: TensorProto) -> memoryview:
        raise self._refuse(tensor)
