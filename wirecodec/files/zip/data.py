"""The zip container's resolver: each tensor a view of an entry in the archive's map."""

from __future__ import annotations

from schema_dsl.onnx import TensorProto
from wirecodec.errors import ContainerError, WireCodecError
from wirecodec.files.base.tensor_data import Located, TensorData
from wirecodec.files.zip.container import entry_range, held_entry
from wirecodec.files.zip.records import Archive

__all__ = ["ZipData"]


class ZipData(TensorData):
    """The entries of a zip container, each tensor a view of the archive's map."""

    kind = "zip"

    def __init__(self, buffer: memoryview, archive: Archive) -> None:
        self.buffer = buffer
        self.archive = archive

    def whole(self, location: str, tensor: TensorProto) -> Located:
        entry = held_entry(self.archive, location, tensor)
        return Located(entry.name, 0, entry.size, entry.size, None)

    def range_error(self, message: str) -> WireCodecError:
        return ContainerError(message)

    def view(self, tensor: TensorProto) -> memoryview:
        start, end = entry_range(tensor, self.archive)
        return self.buffer[start:end]

    def _forget_reference(self, tensor: TensorProto) -> None:
        # Cleared rather than set to DEFAULT: the reference was the container's doing, so a
        # model saved and loaded again reads (and encodes) as it was saved.
        tensor.ClearField("data_location")
        tensor.ClearField("external_data")
