"""SequenceProto, MapProto and OptionalProto ↔ Python lists, dicts and optionals.

The counterparts of ``onnx.numpy_helper``'s ``to_list``/``from_list``,
``to_dict``/``from_dict`` and ``to_optional``/``from_optional``: tensors inside become
numpy arrays through :func:`wirecodec.tensors.to_array` (and back through
:func:`~wirecodec.tensors.from_array`), so the same zero-copy rules apply. What onnx
writes, these write byte for byte.

>>> import numpy as np
>>> from wirecodec.tensors.values import from_list, to_list
>>> seq = from_list([np.array([1, 2], dtype=np.int32), np.array([3], dtype=np.int32)], "s")
>>> seq.elem_type, len(seq.tensor_values)
(1, 2)
>>> to_list(seq)
[array([1, 2], dtype=int32), array([3], dtype=int32)]

Beyond onnx: sequences of optionals and optionals of optionals convert both ways, an
optional whose ``elem_type`` is set but whose value is absent reads as ``None``, and
``from_dict`` takes ``str``/``bytes`` keys. Sparse tensors are not converted
(:class:`~wirecodec.TensorError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from wirecodec.errors import NumpyMissingError

try:
    import numpy as np
except ImportError as exc:  # the one error that says so (docs/platforms.md)
    raise NumpyMissingError() from exc

from schema_dsl.onnx import MapProto, OptionalProto, SequenceProto, TensorProto
from wirecodec.errors import TensorError
from wirecodec.tensors.dtypes import INT_KEY_TYPES, data_type_of
from wirecodec.tensors.reading import to_array
from wirecodec.tensors.writing import from_array

__all__ = ["INT_KEY_TYPES", "from_dict", "from_list", "from_optional", "to_dict", "to_list", "to_optional"]

_Elem = SequenceProto.DataType  # OptionalProto.DataType has the same members and values

# Which value field holds each element kind, in SequenceProto and OptionalProto alike.
_SEQUENCE_FIELDS: Final = {
    _Elem.TENSOR: "tensor_values",
    _Elem.SPARSE_TENSOR: "sparse_tensor_values",
    _Elem.SEQUENCE: "sequence_values",
    _Elem.MAP: "map_values",
    _Elem.OPTIONAL: "optional_values",
}
_OPTIONAL_FIELDS: Final = {
    _Elem.TENSOR: "tensor_value",
    _Elem.SPARSE_TENSOR: "sparse_tensor_value",
    _Elem.SEQUENCE: "sequence_value",
    _Elem.MAP: "map_value",
    _Elem.OPTIONAL: "optional_value",
}

_INT64_MIN: Final = -(1 << 63)
_INT64_MAX: Final = (1 << 63) - 1


def _label(kind: str, name: str) -> str:
    return f"{kind} {name!r}" if name else f"{kind} (unnamed)"


def _elem_name(elem_type: int) -> str:
    try:
        return _Elem(elem_type).name
    except ValueError:
        return str(elem_type)


# -- sequences -------------------------------------------------------------------------------


def to_list(sequence: SequenceProto, *, copy: bool = False) -> list[Any]:
    """The elements of ``sequence`` as a Python list (arrays, lists, dicts or optionals).

    ``copy`` is passed on to :func:`~wirecodec.tensors.to_array` for tensor elements.
    A value field other than the one ``elem_type`` names holding elements is a
    :class:`~wirecodec.TensorError`.
    """
    where = _label("sequence", sequence.name)
    elem_type = sequence.elem_type
    field = _SEQUENCE_FIELDS.get(elem_type)  # type: ignore[call-overload]
    if field is None:
        raise TensorError(f"{where}: elem_type {_elem_name(elem_type)} is not a valid element type")
    stray = [f for f in _SEQUENCE_FIELDS.values() if f != field and len(getattr(sequence, f))]
    if stray:
        kind = _elem_name(elem_type)
        raise TensorError(f"{where}: elem_type is {kind} but {', '.join(stray)} holds values")
    items = getattr(sequence, field)
    if elem_type == _Elem.TENSOR:
        return [to_array(t, copy=copy) for t in items]
    if elem_type == _Elem.SEQUENCE:
        return [to_list(s, copy=copy) for s in items]
    if elem_type == _Elem.MAP:
        return [to_dict(m, copy=copy) for m in items]
    if elem_type == _Elem.OPTIONAL:
        return [to_optional(o, copy=copy) for o in items]
    raise TensorError(f"{where}: sparse tensor elements are not supported")


def from_list(values: Sequence[Any], name: str | None = None, dtype: int | None = None) -> SequenceProto:
    """A SequenceProto holding ``values``, as ``onnx.numpy_helper.from_list`` writes it.

    The element kind is ``dtype`` (a ``SequenceProto.DataType``) or inferred from the
    first value: a dict is a MAP, a list a SEQUENCE, anything else a TENSOR (through
    ``numpy.asarray``); an empty list is a sequence of tensors. All values must have
    the same Python type (``TypeError`` otherwise).

    >>> from_list([[np.float32(1.0)], []]).elem_type == SequenceProto.DataType.SEQUENCE
    True
    """
    sequence = SequenceProto()
    if name:
        sequence.name = name
    if dtype is not None:
        elem_type = int(dtype)
    elif not values:
        elem_type = _Elem.TENSOR
    elif isinstance(values[0], dict):
        elem_type = _Elem.MAP
    elif isinstance(values[0], list):
        elem_type = _Elem.SEQUENCE
    else:
        elem_type = _Elem.TENSOR
    sequence.elem_type = int(elem_type)
    # A sequence of optionals may mix values and empty optionals (None).
    typed = [v for v in values if v is not None] if elem_type == _Elem.OPTIONAL else list(values)
    if typed and not all(isinstance(v, type(typed[0])) for v in typed):
        raise TypeError(
            "the values of a sequence must all have the same type, got "
            + ", ".join(sorted({type(v).__name__ for v in typed}))
        )
    if elem_type == _Elem.TENSOR:
        sequence.tensor_values = [from_array(np.asarray(v)) for v in values]
    elif elem_type == _Elem.SEQUENCE:
        sequence.sequence_values = [from_list(v) for v in values]
    elif elem_type == _Elem.MAP:
        sequence.map_values = [from_dict(v) for v in values]
    elif elem_type == _Elem.OPTIONAL:
        sequence.optional_values = [from_optional(v) for v in values]
    else:
        raise TypeError(f"cannot build a sequence of {_elem_name(elem_type)} elements")
    return sequence


# -- maps ------------------------------------------------------------------------------------


def to_dict(map_proto: MapProto, *, copy: bool = False) -> dict[Any, Any]:
    """The entries of ``map_proto`` as a dict.

    Integer keys come back as ``int``, string keys as ``bytes`` (as onnx returns them);
    values are converted with :func:`to_list`.
    """
    where = _label("map", map_proto.name)
    key_type = map_proto.key_type
    if key_type == TensorProto.DataType.STRING:
        keys: list[Any] = [bytes(k) for k in map_proto.string_keys]
        stray = "keys" if map_proto.keys else None
    elif key_type in INT_KEY_TYPES:
        keys = list(map_proto.keys)
        stray = "string_keys" if map_proto.string_keys else None
    else:
        raise TensorError(f"{where}: key_type {key_type} is not an integer type or STRING")
    if stray is not None:
        raise TensorError(f"{where}: {stray} holds keys, which key_type {key_type} does not use")
    if not keys and not map_proto.HasField("values"):
        return {}
    values = to_list(map_proto.values, copy=copy)
    if len(keys) != len(values):
        raise TensorError(f"{where}: {len(keys)} keys but {len(values)} values")
    return dict(zip(keys, values, strict=True))


def _key_type(key: Any) -> int:
    if isinstance(key, (str, bytes)):
        return int(TensorProto.DataType.STRING)
    if isinstance(key, (bool, np.bool_)):
        raise TypeError("map keys cannot be bool")
    if isinstance(key, np.integer):
        return data_type_of(key.dtype)
    if isinstance(key, int):
        return int(TensorProto.DataType.INT64)
    raise TypeError(f"map keys must be integers or strings, got {type(key).__name__}")


def _value_kind(value: Any) -> Any:
    # onnx requires one numpy result type for all values; arrays compare by dtype.
    if isinstance(value, (np.ndarray, np.generic)):
        return value.dtype
    return type(value)


def from_dict(values: Mapping[Any, Any], name: str | None = None) -> MapProto:
    """A MapProto holding ``values``, as ``onnx.numpy_helper.from_dict`` writes it.

    Keys must all be of one integer type (Python ``int`` is INT64, numpy integers keep
    their width) or all strings (``str`` is written as UTF-8, ``bytes`` as is); the
    values, all of one type, become a sequence through :func:`from_list`.

    >>> m = from_dict({1: np.array([1.0]), 2: np.array([2.0])}, "m")
    >>> m.key_type, m.keys, m.values.elem_type
    (7, [1, 2], 1)
    """
    if not values:
        raise ValueError("an empty dict cannot be converted to a MapProto (its value type is unknown)")
    keys = list(values)
    key_types = {_key_type(k) for k in keys}
    if len(key_types) != 1 or (
        key_types != {int(TensorProto.DataType.STRING)} and len({type(k) for k in keys}) != 1
    ):
        raise TypeError("the keys of a map must all have the same type")
    (key_type,) = key_types
    if key_type != TensorProto.DataType.STRING and not all(_INT64_MIN <= int(k) <= _INT64_MAX for k in keys):
        raise ValueError("integer map keys must fit in int64 (MapProto.keys is an int64 field)")
    items = list(values.values())
    if len({_value_kind(v) for v in items}) != 1:
        raise TypeError("the values of a map must all have the same type")
    map_proto = MapProto()
    if name:
        map_proto.name = name
    map_proto.key_type = int(key_type)
    if key_type == TensorProto.DataType.STRING:
        map_proto.string_keys = [k.encode("utf-8") if isinstance(k, str) else k for k in keys]
    else:
        map_proto.keys = [int(k) for k in keys]
    map_proto.values = from_list(items)
    return map_proto


# -- optionals -------------------------------------------------------------------------------


def to_optional(optional: OptionalProto, *, copy: bool = False) -> Any:
    """The value of ``optional``, or ``None`` when it holds none.

    ``None`` for elem_type UNDEFINED, and (unlike onnx, which fails) for an optional
    whose elem_type is set but whose value field is absent: an empty optional of
    that type.
    """
    where = _label("optional", optional.name)
    elem_type = optional.elem_type
    if elem_type == _Elem.UNDEFINED:
        field = None
    else:
        field = _OPTIONAL_FIELDS.get(elem_type)  # type: ignore[call-overload]
        if field is None:
            raise TensorError(f"{where}: elem_type {_elem_name(elem_type)} is not a valid element type")
    stray = [f for f in _OPTIONAL_FIELDS.values() if f != field and optional.HasField(f)]
    if stray:
        raise TensorError(f"{where}: elem_type is {_elem_name(elem_type)} but {', '.join(stray)} is set")
    if field is None or not optional.HasField(field):
        return None
    if elem_type == _Elem.TENSOR:
        return to_array(optional.tensor_value, copy=copy)
    if elem_type == _Elem.SEQUENCE:
        return to_list(optional.sequence_value, copy=copy)
    if elem_type == _Elem.MAP:
        return to_dict(optional.map_value, copy=copy)
    if elem_type == _Elem.OPTIONAL:
        return to_optional(optional.optional_value, copy=copy)
    raise TensorError(f"{where}: sparse tensor values are not supported")


def from_optional(value: Any, name: str | None = None, dtype: int | None = None) -> OptionalProto:
    """An OptionalProto holding ``value``, as ``onnx.numpy_helper.from_optional`` writes it.

    The element kind is ``dtype`` (an ``OptionalProto.DataType``) or inferred: a dict
    is a MAP, a list a SEQUENCE, ``None`` UNDEFINED (an empty optional), anything else
    a TENSOR. ``from_optional(None, dtype=...)`` is an empty optional of that kind.

    >>> from_optional(None).elem_type, from_optional([]).elem_type
    (0, 3)
    """
    optional = OptionalProto()
    if name:
        optional.name = name
    if dtype is not None:
        if dtype not in set(OptionalProto.DataType):
            raise TypeError(f"{dtype} is not an OptionalProto.DataType")
        elem_type = int(dtype)
    elif isinstance(value, dict):
        elem_type = _Elem.MAP
    elif isinstance(value, list):
        elem_type = _Elem.SEQUENCE
    elif value is None:
        elem_type = _Elem.UNDEFINED
    else:
        elem_type = _Elem.TENSOR
    optional.elem_type = int(elem_type)
    if value is None:
        return optional
    if elem_type == _Elem.TENSOR:
        optional.tensor_value = from_array(np.asarray(value))
    elif elem_type == _Elem.SEQUENCE:
        optional.sequence_value = from_list(value)
    elif elem_type == _Elem.MAP:
        optional.map_value = from_dict(value)
    elif elem_type == _Elem.OPTIONAL:
        optional.optional_value = from_optional(value)
    else:
        raise TypeError(f"cannot build an optional of {_elem_name(elem_type)} holding {type(value).__name__}")
    return optional
