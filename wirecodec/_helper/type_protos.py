"""onnx.helper's builders of types and value infos (re-exported by wirecodec.helper).

Each builds its messages in place (:func:`wirecodec._helper.args.adopt`): a value info made
of a type made of a shape made of dims is one set of messages, not a copy of a copy.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence

from schema_dsl.onnx import TensorShapeProto, TypeProto, ValueInfoProto
from wirecodec._helper.args import INT32_RANGE, adopt, as_int, as_list, as_message, as_text, build

__all__ = [
    "make_empty_tensor_value_info",
    "make_map_type_proto",
    "make_optional_type_proto",
    "make_sequence_type_proto",
    "make_sparse_tensor_type_proto",
    "make_sparse_tensor_value_info",
    "make_tensor_sequence_value_info",
    "make_tensor_type_proto",
    "make_tensor_value_info",
    "make_value_info",
]


def _shape(
    shape: Sequence[str | int | None], shape_denotation: Sequence[str] | None, where: str
) -> TensorShapeProto:
    dims = as_list(shape, f"{where}: shape")
    if shape_denotation and len(shape_denotation) != len(dims):
        raise ValueError(
            f"{where}: shape_denotation has {len(shape_denotation)} entries but shape has {len(dims)}"
        )
    out = []
    for i, d in enumerate(dims):
        fields: dict[str, object] = {}
        if d is None:
            pass
        elif isinstance(d, str):
            fields["dim_param"] = as_text(d, f"{where}: shape[{i}]")
        elif isinstance(d, numbers.Integral):
            fields["dim_value"] = as_int(d, f"{where}: shape[{i}]")
        else:
            raise ValueError(f"{where}: shape[{i}] must be an int, a str or None, got {type(d).__name__}")
        if shape_denotation:
            fields["denotation"] = as_text(shape_denotation[i], f"{where}: shape_denotation[{i}]")
        out.append(build(TensorShapeProto.Dimension, **fields))
    return build(TensorShapeProto, dim=out)


def make_tensor_type_proto(
    elem_type: int, shape: Sequence[str | int | None] | None, shape_denotation: list[str] | None = None
) -> TypeProto:
    """A tensor TypeProto; ``shape`` entries are sizes (int), symbols (str) or unknown (None).

    ``shape=None`` leaves the shape out (any rank); ``[]`` is a scalar.
    """
    tensor = build(
        TypeProto.Tensor, elem_type=as_int(elem_type, "make_tensor_type_proto: elem_type", INT32_RANGE)
    )
    if shape is not None:
        adopt(tensor, "shape", _shape(shape, shape_denotation, "make_tensor_type_proto"))
    return build(TypeProto, tensor_type=tensor)


def make_sparse_tensor_type_proto(
    elem_type: int, shape: Sequence[str | int | None] | None, shape_denotation: list[str] | None = None
) -> TypeProto:
    """A sparse tensor TypeProto (shape entries as in :func:`make_tensor_type_proto`)."""
    sparse = build(
        TypeProto.SparseTensor,
        elem_type=as_int(elem_type, "make_sparse_tensor_type_proto: elem_type", INT32_RANGE),
    )
    if shape is not None:
        adopt(sparse, "shape", _shape(shape, shape_denotation, "make_sparse_tensor_type_proto"))
    return build(TypeProto, sparse_tensor_type=sparse)


def _value_info(name: str, doc_string: str, type_proto: TypeProto, where: str) -> ValueInfoProto:
    """A value info holding ``type_proto`` itself (a builder's own: callers copy a user's)."""
    if doc_string:
        return build(
            ValueInfoProto,
            name=as_text(name, f"{where}: name"),
            type=type_proto,
            doc_string=as_text(doc_string, f"{where}: doc_string"),
        )
    return build(ValueInfoProto, name=as_text(name, f"{where}: name"), type=type_proto)


def make_tensor_value_info(
    name: str,
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    doc_string: str = "",
    shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    """A ValueInfoProto of a tensor: name, element type, shape.

    >>> from schema_dsl.onnx import TensorProto
    >>> v = make_tensor_value_info("X", TensorProto.DataType.FLOAT, ["N", 3, None])
    >>> [d.WhichOneof("value") for d in v.type.tensor_type.shape.dim]
    ['dim_param', 'dim_value', None]
    """
    type_proto = make_tensor_type_proto(elem_type, shape, shape_denotation)
    return _value_info(name, doc_string, type_proto, "make_tensor_value_info")


def make_sparse_tensor_value_info(
    name: str,
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    doc_string: str = "",
    shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    """A ValueInfoProto of a sparse tensor."""
    type_proto = make_sparse_tensor_type_proto(elem_type, shape, shape_denotation)
    return _value_info(name, doc_string, type_proto, "make_sparse_tensor_value_info")


def make_tensor_sequence_value_info(
    name: str,
    elem_type: int,
    shape: Sequence[str | int | None] | None,
    doc_string: str = "",
    elem_shape_denotation: list[str] | None = None,
) -> ValueInfoProto:
    """A ValueInfoProto of a sequence of tensors of one element type and shape."""
    inner = make_tensor_type_proto(elem_type, shape, elem_shape_denotation)
    return _value_info(name, doc_string, make_sequence_type_proto(inner), "make_tensor_sequence_value_info")


def make_sequence_type_proto(inner_type_proto: TypeProto) -> TypeProto:
    """The TypeProto of a sequence whose elements have ``inner_type_proto``."""
    inner = as_message(inner_type_proto, TypeProto, "make_sequence_type_proto: inner_type_proto")
    return TypeProto(sequence_type=TypeProto.Sequence(elem_type=inner))


def make_optional_type_proto(inner_type_proto: TypeProto) -> TypeProto:
    """The TypeProto of an optional value of ``inner_type_proto``."""
    inner = as_message(inner_type_proto, TypeProto, "make_optional_type_proto: inner_type_proto")
    return TypeProto(optional_type=TypeProto.Optional(elem_type=inner))


def make_map_type_proto(key_type: int, value_type: TypeProto) -> TypeProto:
    """The TypeProto of a map from ``key_type`` (a TensorProto.DataType) to ``value_type``."""
    return TypeProto(
        map_type=TypeProto.Map(
            key_type=as_int(key_type, "make_map_type_proto: key_type", INT32_RANGE),
            value_type=as_message(value_type, TypeProto, "make_map_type_proto: value_type"),
        )
    )


def make_value_info(name: str, type_proto: TypeProto, doc_string: str = "") -> ValueInfoProto:
    """A ValueInfoProto of any type."""
    type_proto = as_message(type_proto, TypeProto, "make_value_info: type_proto")
    copied = TypeProto()
    copied.CopyFrom(type_proto)  # the caller keeps theirs, as with onnx
    return _value_info(name, doc_string, copied, "make_value_info")


def make_empty_tensor_value_info(name: str) -> ValueInfoProto:
    """A ValueInfoProto with only a name (an omitted optional input or output)."""
    return ValueInfoProto(name=as_text(name, "make_empty_tensor_value_info: name"))
