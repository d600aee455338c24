"""External data's resolver: data files in the model's directory, each mapped once."""

from __future__ import annotations

import os
import pathlib

from schema_dsl.onnx import TensorProto
from wirecodec.files.base.tensor_data import Located, TensorData
from wirecodec.files.external.read import ExternalDataStore, resolve

__all__ = ["DirectoryData"]


class DirectoryData(TensorData):
    """Data files in the model's directory, each mapped once (see :class:`ExternalDataStore`)."""

    kind = "directory"

    def __init__(
        self, base_dir: str | os.PathLike[str], *, lazy: bool = True, for_copying: bool = False
    ) -> None:
        self.base_dir = pathlib.Path(base_dir)
        self.store = ExternalDataStore(self.base_dir, lazy=lazy, for_copying=for_copying)
        self._sizes: dict[pathlib.Path, int] = {}

    def whole(self, location: str, tensor: TensorProto) -> Located:
        path = resolve(self.base_dir, location, tensor)
        size = self._sizes.get(path)
        if size is None:
            size = self._sizes[path] = path.stat().st_size
        return Located(location, 0, size, size, path)

    def view(self, tensor: TensorProto) -> memoryview:
        return self.store.view(tensor)
