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

__all__ = ["ProtoEnum"]


class ProtoEnum(enum.IntEnum):
    """An enum of a ``.proto`` file: an IntEnum with protobuf's lookup methods."""

    @classmethod
    def Name(cls, number: int) -> str:
        """The name of value ``number``; ValueError if the enum has none."""
        try:
            return cls(number).name
        except ValueError:
            raise ValueError(f"Enum {cls.__name__} has no name defined for value {number!r}") from None

    @classmethod
    def Value(cls, name: str) -> int:
        """The number of the value called ``name``; ValueError if there is none."""
        member = cls.__members__.get(name)
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
