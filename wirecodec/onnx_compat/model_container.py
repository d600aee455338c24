"""``onnx.model_container``: a model whose large initializers live beside it in memory.

A :class:`ModelContainer` holds a ``ModelProto`` whose large tensors are external
references to ``#name`` keys and the arrays themselves in ``large_initializers``, so they
are never serialized into the model; ``save`` writes the model and its weights as onnx
writes them (one ``<prefix>-<key>.weight`` file per tensor, or everything in
``<model file>.weight``), ``load`` reads them back. Every file is written atomically.

>>> import numpy as np, pathlib, tempfile
>>> from schema_dsl.onnx import TensorProto
>>> from wirecodec import helper
>>> weight = make_large_tensor_proto("#W", "W", TensorProto.FLOAT, (2, 2))
>>> graph = helper.make_graph([helper.make_node("MatMul", ["X", "W"], ["Y"])], "g",
...     [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 2])],
...     [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2, 2])], [weight])
>>> big = make_large_model(graph, {"#W": np.eye(2, dtype=np.float32)})
>>> path = pathlib.Path(tempfile.mkdtemp()) / "m.onnx"
>>> saved = big.save(str(path))
>>> again = ModelContainer()
>>> again.load(str(path))
>>> again["#t0"].tolist()
[[1.0, 0.0], [0.0, 1.0]]
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator
from typing import Any

from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TensorProto
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.onnx_compat import checker, external_data_helper

__all__ = ["ModelContainer", "make_large_model", "make_large_tensor_proto"]


def _point_at(
    tensor: TensorProto, location: str, offset: int | None = None, length: int | None = None
) -> None:
    del tensor.external_data[:]
    tensor.data_location = TensorProto.EXTERNAL
    for key, value in (("location", location), ("offset", offset), ("length", length)):
        if value is not None:
            tensor.external_data.append(StringStringEntryProto(key=key, value=str(value)))


def _subgraphs(graph: GraphProto) -> Iterator[GraphProto]:
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("g"):
                yield attribute.g
                yield from _subgraphs(attribute.g)
            for sub in attribute.graphs:
                yield sub
                yield from _subgraphs(sub)


def make_large_tensor_proto(
    location: str, tensor_name: str, tensor_type: int, shape: tuple[int, ...]
) -> TensorProto:
    """An initializer ``tensor_name`` whose data is the container's array at ``location`` (a ``#key``)."""
    tensor = TensorProto(name=tensor_name)
    _point_at(tensor, location)
    tensor.data_type = tensor_type
    tensor.dims.extend(shape)
    return tensor


def _location(tensor: TensorProto) -> str:
    found = None
    for entry in tensor.external_data:
        if entry.key == "location":
            found = entry
    if found is None:
        raise RuntimeError(f"No location found for tensor name {tensor.name!r}.")
    return found.value


class ModelContainer:
    """A model and its large initializers, kept apart until saved."""

    def __init__(self) -> None:
        self.model_proto_: ModelProto | None = None
        self.large_initializers: dict[str, Any] = {}

    def check_model(self) -> None:
        """Check the model (``checker.check_model``)."""
        if self.model_proto is not None:
            checker.check_model(self.model_proto)

    def __getitem__(self, name: str) -> Any:
        """The array stored under ``name`` (``ValueError`` if there is none)."""
        if name not in self.large_initializers:
            raise ValueError(f"Unable to find large tensor {name!r} among {sorted(self.large_initializers)}.")
        return self.large_initializers[name]

    @property
    def model_proto(self) -> ModelProto:
        if self.model_proto_ is None:
            raise RuntimeError("ModelContainer is empty.")
        return self.model_proto_

    @model_proto.setter
    def model_proto(self, model_proto: ModelProto) -> None:
        self.model_proto_ = model_proto
        self.graphs_ = list(self.enumerate_graph_protos())

    def enumerate_graph_protos(self) -> Iterator[GraphProto]:
        """The main graph, then every subgraph."""
        yield self.model_proto.graph
        yield from _subgraphs(self.model_proto.graph)

    def is_in_memory_external_initializer(self, name: str) -> bool:
        """Whether ``name`` is a key of an array held in memory (it starts with ``#``)."""
        return name.startswith("#")

    def set_large_initializers(self, large_initializers: dict[str, Any]) -> None:
        """Hold these arrays; every key must start with ``#`` (``ValueError``)."""
        for key in large_initializers:
            if not self.is_in_memory_external_initializer(key):
                raise ValueError(f"The location {key!r} must start with '#' to be ignored by check model.")
        self.large_initializers = large_initializers

    def check_large_initializers(self) -> None:
        """Every external tensor of the model names an array held here (``RuntimeError``)."""
        for tensor in external_data_helper._get_all_tensors(self.model_proto):
            if external_data_helper.uses_external_data(tensor):
                self._array_of(tensor, _location(tensor))

    def _array_of(self, tensor: TensorProto, location: str) -> Any:
        if location not in self.large_initializers:
            raise RuntimeError(
                f"Unable to find large tensor named {tensor.name!r} with location {location!r} in "
                f"{sorted(self.large_initializers)}."
            )
        return self.large_initializers[location]

    def save(self, file_path: str, all_tensors_to_one_file: bool = False) -> ModelProto:
        """Write the model and its arrays; returns the model as written (a copy whose external
        tensors name their files)."""
        from wirecodec.numpy_helper import tobytes_little_endian
        from wirecodec.protobuf.codec import encode_into

        folder = os.path.dirname(file_path)
        if not os.path.exists(folder):
            raise FileNotFoundError(f"Folder {folder!r} does not exist.")
        copy = ModelProto()
        copy.CopyFrom(self.model_proto)
        prefix = os.path.splitext(os.path.basename(file_path))[0]
        weight_name = f"{os.path.basename(file_path)}.weight"
        seen: dict[str, int] = {}
        one_file: list[bytes] = []
        offset = 0
        with AtomicFiles(durable=False) as files:  # onnx does not fsync either
            for tensor in external_data_helper._get_all_tensors(copy):
                if not external_data_helper.uses_external_data(tensor):
                    continue
                location = _location(tensor)
                data = tobytes_little_endian(self._array_of(tensor, location))
                if all_tensors_to_one_file:
                    _point_at(tensor, weight_name, offset, len(data))
                    offset += len(data)
                    one_file.append(data)
                else:
                    name = f"{_unique_file_name(prefix, location, seen)}.weight"
                    _point_at(tensor, name)
                    with files.open(pathlib.Path(folder) / name) as out:
                        out.write(data)
            if all_tensors_to_one_file:
                with files.open(f"{file_path}.weight") as out:
                    for data in one_file:
                        out.write(data)
            with files.open(file_path) as out:
                encode_into(copy, out)
            files.commit()
        return copy

    def load(self, file_path: str, load_large_initializers: bool = True) -> None:
        """Read the model at ``file_path`` (and, unless told not to, its arrays: keys ``#t<i>``)."""
        from wirecodec.onnx_compat import load_model

        self.model_proto_ = load_model(file_path, load_external_data=False)
        if load_large_initializers:
            self._load_large_initializers(file_path)

    def _load_large_initializers(self, file_path: str) -> None:
        from wirecodec.helper import tensor_dtype_to_np_dtype
        from wirecodec.tensors.dtypes import numpy_module

        if self.model_proto_ is None:
            raise RuntimeError("A model must be loaded before loading the weights.")
        np = numpy_module()
        self.large_initializers = {}
        base_dir = os.path.dirname(file_path)
        for i, tensor in enumerate(external_data_helper._get_all_tensors(self.model_proto_)):
            if not external_data_helper.uses_external_data(tensor):
                continue
            data = external_data_helper._read(tensor, base_dir)
            key = f"#t{i}"
            _point_at(tensor, key)
            dtype = np.dtype(tensor_dtype_to_np_dtype(tensor.data_type)).newbyteorder("<")
            self.large_initializers[key] = np.frombuffer(data, dtype=dtype).reshape(tuple(tensor.dims))


def _unique_file_name(prefix: str, name: str, seen: dict[str, int]) -> str:
    """``<prefix>-<name>`` without ``:/\\;,!``, then ``_<n>`` for the n-th repeat (onnx's file names)."""
    if prefix:
        name = f"{prefix}-{name}"
    for forbidden in ":/\\;,!":
        name = name.replace(forbidden, "")
    if name in seen:
        seen[name] += 1
        return f"{name}_{seen[name]}"
    seen[name] = 1
    return name


def make_large_model(
    graph: GraphProto, large_initializers: dict[str, Any] | None = None, **kwargs: Any
) -> ModelContainer:
    """A :class:`ModelContainer` of ``helper.make_model(graph, **kwargs)`` and these arrays."""
    from wirecodec.helper import make_model

    container = ModelContainer()
    container.model_proto = make_model(graph, **kwargs)
    if large_initializers:
        container.set_large_initializers(large_initializers)
        container.check_large_initializers()
    return container
