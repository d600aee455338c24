"""Facts about a model that several verbs print.

Types as ONNX writes them (``tensor(float)``, ``seq(tensor(int64))``), shapes, and a
tensor's size read from its header (``dims``, ``data_type``, ``external_data``) without
touching its payload. (Walking a model is :mod:`wirecodec.protobuf.walk`'s job.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from schema_dsl.onnx import TensorProto, TensorShapeProto, TypeProto, ValueInfoProto
from wirecodec.errors import TensorError
from wirecodec.files.base.references import parse_ref
from wirecodec.protobuf.lazy import bytes_length
from wirecodec.tensors.dtypes import raw_size

__all__ = [
    "Dim",
    "TensorFacts",
    "dtype_name",
    "is_external",
    "shape_of",
    "tensor_facts",
    "type_text",
    "value_info_json",
]

EXTERNAL = int(TensorProto.DataLocation.EXTERNAL)

Dim = int | str | None
"""One dimension: a size, a symbolic name (``dim_param``), or None when unknown."""


def dtype_name(code: int) -> str:
    """``1`` -> ``"FLOAT"``; an unknown code reads ``"<code 99>"``."""
    try:
        return str(TensorProto.DataType.Name(code))
    except (KeyError, ValueError):
        return f"<code {code}>"


def _dim(dim: TensorShapeProto.Dimension) -> Dim:
    which = dim.WhichOneof("value")
    if which == "dim_value":
        return int(dim.dim_value)
    if which == "dim_param":
        return str(dim.dim_param)
    return None


def shape_of(type_proto: TypeProto) -> list[Dim] | None:
    """The shape of a tensor or sparse tensor type; None when the rank is unknown or not a tensor."""
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        holder: Any = type_proto.tensor_type
    elif which == "sparse_tensor_type":
        holder = type_proto.sparse_tensor_type
    else:
        return None
    if not holder.HasField("shape"):
        return None
    return [_dim(d) for d in holder.shape.dim]


def _shape_text(shape: list[Dim] | None) -> str:
    if shape is None:
        return ""
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def type_text(type_proto: TypeProto) -> str:
    """The type as ONNX spells it, with the shape: ``tensor(float)[N,3,224,224]``."""
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        elem = dtype_name(type_proto.tensor_type.elem_type).lower()
        return f"tensor({elem}){_shape_text(shape_of(type_proto))}"
    if which == "sparse_tensor_type":
        elem = dtype_name(type_proto.sparse_tensor_type.elem_type).lower()
        return f"sparse_tensor({elem}){_shape_text(shape_of(type_proto))}"
    if which == "sequence_type":
        return f"seq({type_text(type_proto.sequence_type.elem_type)})"
    if which == "optional_type":
        return f"optional({type_text(type_proto.optional_type.elem_type)})"
    if which == "map_type":
        key = dtype_name(type_proto.map_type.key_type).lower()
        return f"map({key},{type_text(type_proto.map_type.value_type)})"
    if which == "opaque_type":
        opaque = type_proto.opaque_type
        return f"opaque({opaque.domain}.{opaque.name})" if opaque.domain else f"opaque({opaque.name})"
    return "?"


def value_info_json(info: ValueInfoProto) -> dict[str, Any]:
    """A graph input or output for ``--json``: name, type text, shape (list, or null)."""
    return {"name": info.name, "type": type_text(info.type), "shape": shape_of(info.type)}


def is_external(tensor: TensorProto) -> bool:
    """Whether the tensor's bytes live in an external data file."""
    return tensor.HasField("data_location") and tensor.data_location == EXTERNAL


@dataclass(frozen=True)
class TensorFacts:
    """What a tensor's header says: ``elements`` is the product of ``dims``; ``nbytes`` the payload size.

    ``nbytes`` is the stored size: ``raw_data``'s length, the external ``length`` (the
    rest of the file is not looked at), or for typed fields the size the elements
    take as ``raw_data`` (strings: the sum of their lengths).
    """

    name: str
    dtype: str
    dims: tuple[int, ...]
    elements: int
    nbytes: int
    location: str | None  # the external data file, if any

    def json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dtype": self.dtype,
            "shape": list(self.dims),
            "elements": self.elements,
            "bytes": self.nbytes,
            "location": self.location,
        }


def tensor_facts(tensor: TensorProto) -> TensorFacts:
    """Size and type of ``tensor`` from its header; payloads (mapped or external) stay unread."""
    dims = tuple(int(d) for d in tensor.dims)
    elements = math.prod(dims)
    location = None
    if is_external(tensor):
        ref = parse_ref(tensor)
        location = ref.location
        nbytes = ref.length if ref.length is not None else _typed_size(tensor, elements)
    elif tensor.HasField("raw_data"):
        nbytes = bytes_length(tensor, "raw_data")  # a remote payload: its length, not fetched
    elif tensor.data_type == TensorProto.DataType.STRING:
        nbytes = sum(len(s) for s in tensor.string_data)
    else:
        nbytes = _typed_size(tensor, elements)
    return TensorFacts(tensor.name, dtype_name(tensor.data_type), dims, elements, nbytes, location)


def _typed_size(tensor: TensorProto, elements: int) -> int:
    try:
        return raw_size(tensor.data_type, max(elements, 0))
    except TensorError:
        return 0  # an unknown data_type: no size to speak of
