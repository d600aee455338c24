"""Enums as protobuf's Python API shows them.

A :class:`ProtoEnum` is an ``IntEnum`` that also answers protobuf's enum-wrapper calls
(``Name``, ``Value``, ``keys``, ``values``, ``items``), and a message class that
declares one exposes each of its values as a plain ``int`` class attribute, as
generated protobuf classes do (``TensorProto.FLOAT == 1``).

>>> from schema_dsl.onnx import TensorProto
>>> TensorProto.FLOAT, TensorProto.DataType.Name(16), TensorProto.DataType.Value("INT4")
(1, 'BFLOAT16', 22)
"""

from __future__ import annotations

import enum
import operator
from typing import TYPE_CHECKING, Any, TypeAlias

__all__ = ["ProtoEnum"]


class ProtoEnum(enum.IntEnum):
    """An enum of a ``.proto`` file: an IntEnum with protobuf's lookup methods.

    ``ValueType`` is ``int``, as on protobuf's enum wrappers, so annotations written
    for onnx (``dtype: TensorProto.DataType.ValueType``) import and type-check.
    """

    if TYPE_CHECKING:  # set after the class: in the body it would become a member
        ValueType: TypeAlias = int
        DESCRIPTOR: Any

    @classmethod
    def Name(cls, number: int) -> str:
        """The name of value ``number``: TypeError for what is not an integer (a float,
        a str), ValueError if the enum has no such value, as protobuf."""
        try:
            as_int = operator.index(number)
        except TypeError:
            raise TypeError(
                f"Enum value for {cls.__name__} must be an int, but got {type(number)} {number!r}."
            ) from None
        # protobuf reads the number as a C int64 cast to int32: wider ones wrap around
        # (and a number beyond int64 names nothing).
        if -(1 << 63) <= as_int < 1 << 63:
            as_int = ((as_int + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)
        try:
            return cls(as_int).name
        except ValueError:
            raise ValueError(f"Enum {cls.__name__} has no name defined for value {number!r}") from None

    @classmethod
    def Value(cls, name: str | bytes) -> int:
        """The number of the value called ``name`` (``str``, or UTF-8 ``bytes`` as protobuf
        takes); ValueError if there is none."""
        key: object = name
        hash(name)  # an unhashable name is a TypeError, as protobuf's lookup gives
        if isinstance(name, bytes):
            try:
                key = name.decode("utf-8")
            except UnicodeDecodeError:
                key = None
        member = cls.__members__.get(key) if isinstance(key, str) else None
        if member is None:
            raise ValueError(f"Enum {cls.__name__} has no value defined for name {name!r}")
        return int(member)

    @classmethod
    def keys(cls) -> list[str]:
        """Value names in declaration order."""
        return list(cls.__members__)

    @classmethod
    def values(cls) -> list[int]:
        """Value numbers in declaration order."""
        return [int(m) for m in cls.__members__.values()]

    @classmethod
    def items(cls) -> list[tuple[str, int]]:
        """``(name, number)`` pairs in declaration order."""
        return [(name, int(m)) for name, m in cls.__members__.items()]


class _Descriptor:
    """``DESCRIPTOR``: protobuf's descriptor of the enum, as data (schema_dsl.descriptors)."""

    def __get__(self, obj: object, owner: type[ProtoEnum]) -> Any:
        from schema_dsl.descriptors import enum_descriptor_of  # on first use: few programs ask

        return enum_descriptor_of(owner)


if not TYPE_CHECKING:
    ProtoEnum.ValueType = int
    ProtoEnum.DESCRIPTOR = _Descriptor()
