"""The types inference works on: small frozen values, converted to and from ``TypeProto``.

A dimension is an ``int`` (a size), a ``str`` (a symbol, ``dim_param``) or ``None``
(unknown). A shape is a tuple of dimensions, or ``None`` when even the rank is unknown.
An element type of 0 means unknown (``TensorProto.UNDEFINED``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from schema_dsl.containers import new_container
from schema_dsl.onnx import TensorShapeProto, TypeProto

__all__ = [
    "Dim",
    "InferenceError",
    "MapType",
    "OpaqueType",
    "OptionalType",
    "SequenceType",
    "Shape",
    "TensorType",
    "Type",
    "from_proto",
    "merge",
    "new_type_proto",
    "to_proto",
    "write_type",
]

from wirecodec.errors import WireCodecError

Dim = int | str | None
Shape = tuple[Dim, ...] | None


MAX_RANK = 1024
"""The highest rank inference gives a value from a length it reads (a shape input's): onnx
leaves the rank unknown above it (found by probing onnx 1.23), and a hostile model cannot
make a tuple of 2**31 dims."""


class InferenceError(WireCodecError, ValueError):
    """A node's types or shapes contradict its operator, its inputs or what the model declares.

    ``node`` names the node (``graph.node[3] (Add "add_1")``) where known.
    """

    def __init__(self, reason: str, node: str = "") -> None:
        self.reason = reason
        self.node = node
        super().__init__(f"{node}: {reason}" if node else reason)


@dataclass(frozen=True)
class TensorType:
    """A dense (or, with ``sparse``, a sparse) tensor: element type and shape."""

    elem: int = 0
    shape: Shape = None
    sparse: bool = False

    @property
    def rank(self) -> int | None:
        return None if self.shape is None else len(self.shape)


@dataclass(frozen=True)
class SequenceType:
    """A sequence whose elements have one type (``None``: unknown)."""

    elem: Type | None = None


@dataclass(frozen=True)
class OptionalType:
    """A value that may be absent."""

    elem: Type | None = None


@dataclass(frozen=True)
class MapType:
    """A map from a scalar key type to a value type."""

    key: int = 0
    value: Type | None = None


@dataclass(frozen=True)
class OpaqueType:
    """A type known only by domain and name."""

    domain: str = ""
    name: str = ""


Type = TensorType | SequenceType | OptionalType | MapType | OpaqueType


_Dimension: Final = TensorShapeProto.Dimension
_DIM_VALUE: Final = _Dimension.__schema__.bit["dim_value"]
_DIM_PARAM: Final = _Dimension.__schema__.bit["dim_param"]


def _shape_from(proto: TensorShapeProto) -> tuple[Dim, ...]:
    dims: list[Dim] = []
    for d in proto.dim:
        has = d._has  # (HasField's test, without a call per axis: every declared type comes here)
        if has & _DIM_VALUE:
            dims.append(d.dim_value)
        elif has & _DIM_PARAM and d.dim_param:
            dims.append(d.dim_param)
        else:
            dims.append(None)
    return tuple(dims)


def from_proto(proto: TypeProto) -> Type | None:
    """The type a ``TypeProto`` declares, or None when it declares nothing."""
    if proto.HasField("tensor_type"):  # the common case, without WhichOneof's cost
        dense = proto.tensor_type
        return TensorType(dense.elem_type, _shape_from(dense.shape) if dense.HasField("shape") else None)
    which = proto.WhichOneof("value")
    if which == "tensor_type" or which == "sparse_tensor_type":
        t = proto.tensor_type if which == "tensor_type" else proto.sparse_tensor_type
        shape = _shape_from(t.shape) if t.HasField("shape") else None
        return TensorType(t.elem_type, shape, which == "sparse_tensor_type")
    if which == "sequence_type":
        s = proto.sequence_type
        return SequenceType(from_proto(s.elem_type) if s.HasField("elem_type") else None)
    if which == "optional_type":
        o = proto.optional_type
        return OptionalType(from_proto(o.elem_type) if o.HasField("elem_type") else None)
    if which == "map_type":
        m = proto.map_type
        return MapType(m.key_type, from_proto(m.value_type) if m.HasField("value_type") else None)
    if which == "opaque_type":
        return OpaqueType(proto.opaque_type.domain, proto.opaque_type.name)
    return None


def _write_shape(shape: tuple[Dim, ...], proto: TensorShapeProto) -> None:
    for dim in shape:
        d = proto.dim.add()
        if isinstance(dim, int):
            d.dim_value = dim
        elif isinstance(dim, str):
            d.dim_param = dim


def to_proto(t: Type) -> TypeProto:
    """``t`` as a new ``TypeProto``."""
    proto = TypeProto()
    write_type(t, proto)
    return proto


_INT64: Final = (-(1 << 63), 1 << 63)
# What new_type_proto fills in place: each class's maker of an empty holder (every slot at
# its default, as schema_dsl.layout.blank makes one) and the presence bits it sets.
_new_dim: Final = _Dimension.__schema__.fresh
_new_shape: Final = TensorShapeProto.__schema__.fresh
_SHAPE_DIM: Final = TensorShapeProto.__schema__.bit["dim"]
_DIM_FIELD: Final = TensorShapeProto.__schema__.by_name["dim"]
_new_type: Final = TypeProto.__schema__.fresh


def _dimension(dim: Dim) -> TensorShapeProto.Dimension:
    """A new ``Dimension`` holding ``dim``: filled on its holder, then given its class (what
    :func:`~wirecodec._helper.args.build` does, without a keyword dict and a loop per field:
    a 4-axis type took 6.6 us that way, 2.7 us this way)."""
    d = _new_dim()
    if type(dim) is int and _INT64[0] <= dim < _INT64[1]:
        d.dim_value = dim
        d._has = _DIM_VALUE
    elif type(dim) is str and dim.isascii():  # (ASCII text needs no UTF-8 check)
        d.dim_param = dim
        d._has = _DIM_PARAM
    elif dim is not None:  # (an int subclass, a size out of range, non-ASCII text: checked)
        checked = _Dimension()
        if isinstance(dim, int):
            checked.dim_value = dim  # (out of range is the assignment's error)
        else:
            checked.dim_param = dim
        return checked
    d.__class__ = _Dimension
    return d  # type: ignore[no-any-return]


def new_type_proto(t: Type) -> TypeProto:
    """``t`` as a new ``TypeProto`` (what :func:`write_type` writes into an empty one), its
    messages built in place: inference writes one per inferred value, and on the per-node
    loops of onnxslim and onnxruntime's symbolic shapes (a model of one node inferred once
    per node) setting each field through its parent's stub was most of the time."""
    if not isinstance(t, TensorType):
        proto = TypeProto()
        write_type(t, proto)
        return proto
    cls = TypeProto.SparseTensor if t.sparse else TypeProto.Tensor
    schema = cls.__schema__
    tensor = schema.fresh()
    tensor.elem_type = int(t.elem)
    has = schema.bit["elem_type"]
    if t.shape is not None:
        shape = _new_shape()
        shape.dim = new_container(_DIM_FIELD, [_dimension(dim) for dim in t.shape])
        shape._has = _SHAPE_DIM
        shape.__class__ = TensorShapeProto
        tensor.shape = shape
        has |= schema.bit["shape"]
    tensor._has = has
    tensor.__class__ = cls
    proto = _new_type()
    name = "sparse_tensor_type" if t.sparse else "tensor_type"
    setattr(proto, name, tensor)  # (on the holder: a plain store)
    proto._has = TypeProto.__schema__.bit[name]
    proto.__class__ = TypeProto
    return proto  # type: ignore[no-any-return]


def write_type(t: Type, proto: TypeProto) -> None:
    """Write ``t`` into the empty ``proto`` in place (building a message and copying it in
    would cost twice as much on graphs of many nodes)."""
    if isinstance(t, TensorType):
        tensor = proto.sparse_tensor_type if t.sparse else proto.tensor_type
        tensor.elem_type = t.elem
        if t.shape is not None:
            tensor.shape.SetInParent()
            _write_shape(t.shape, tensor.shape)
        elif not t.elem:
            tensor.SetInParent()
    elif isinstance(t, SequenceType):
        proto.sequence_type.SetInParent()
        if t.elem is not None:
            write_type(t.elem, proto.sequence_type.elem_type)
    elif isinstance(t, OptionalType):
        proto.optional_type.SetInParent()
        if t.elem is not None:
            write_type(t.elem, proto.optional_type.elem_type)
    elif isinstance(t, MapType):
        proto.map_type.key_type = t.key
        if t.value is not None:
            write_type(t.value, proto.map_type.value_type)
    else:
        proto.opaque_type.domain = t.domain
        proto.opaque_type.name = t.name


def _kind(t: Type) -> str:
    if isinstance(t, TensorType):
        return "sparse tensor" if t.sparse else "tensor"
    return {SequenceType: "sequence", OptionalType: "optional", MapType: "map"}.get(type(t), "opaque")


def merge_dims(inferred: Dim, existing: Dim, where: str) -> Dim:
    """One axis known from both sides: a size wins over a symbol, a symbol over nothing."""
    if isinstance(inferred, int):
        if isinstance(existing, int) and existing != inferred:
            raise InferenceError(f"{where}: inferred size {inferred} but the model says {existing}")
        return inferred
    if isinstance(existing, int):
        return existing
    if existing is not None:
        return existing
    return inferred


def merge(inferred: Type, existing: Type | None, where: str = "value") -> Type:
    """What is known of a value from inference and from the model's declaration.

    As onnx: element types must agree when both are set; ranks must agree; each axis takes
    the declared size or symbol, refined by the inferred size when the model leaves it open.
    """
    if existing is None:
        return inferred
    if _kind(inferred) != _kind(existing):
        raise InferenceError(
            f"{where}: inferred a {_kind(inferred)} but the model declares a {_kind(existing)}"
        )
    if isinstance(inferred, TensorType) and isinstance(existing, TensorType):
        if inferred.elem and existing.elem and inferred.elem != existing.elem:
            raise InferenceError(
                f"{where}: inferred element type {inferred.elem} but the model declares {existing.elem}"
            )
        elem = existing.elem or inferred.elem
        if inferred.shape is None:
            return TensorType(elem, existing.shape, existing.sparse)
        if existing.shape is None:
            return TensorType(elem, inferred.shape, existing.sparse)
        if len(inferred.shape) != len(existing.shape):
            raise InferenceError(
                f"{where}: inferred rank {len(inferred.shape)} "
                f"but the model declares rank {len(existing.shape)}"
            )
        dims = tuple(
            merge_dims(a, b, f"{where} axis {i}")
            for i, (a, b) in enumerate(zip(inferred.shape, existing.shape, strict=False))
        )
        return TensorType(elem, dims, existing.sparse)
    if isinstance(inferred, (SequenceType, OptionalType)) and isinstance(existing, type(inferred)):
        if inferred.elem is None:
            return existing
        return type(inferred)(merge(inferred.elem, existing.elem, where))
    if isinstance(inferred, MapType) and isinstance(existing, MapType):
        if inferred.value is None:
            return existing
        return MapType(existing.key or inferred.key, merge(inferred.value, existing.value, where))
    return existing
