"""``invalid``: a model with one malformed record that every conforming parser must refuse."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schema_dsl import Message
from schema_dsl.onnx import ModelProto
from wirecodec.protobuf.rewrite import apply
from wirecodec.protobuf.rewrite.invalid import INVALID as _INVALID
from wirecodec.protobuf.rewrite.invalid import InvalidKind

__all__ = ["INVALID", "InvalidKind", "invalid"]

INVALID: Mapping[str, InvalidKind] = _INVALID
"""Every invalid kind by name; ``INVALID[name].doc`` says which rule the encoding breaks."""


def invalid(
    data: bytes | bytearray | memoryview,
    *,
    seed: int,
    message: type[Message] = ModelProto,
    kinds: Sequence[str] | None = None,
) -> bytes:
    """``data``, a well-formed ``message``, with one malformed record of one of ``kinds``
    (names from :data:`INVALID`; None: any) placed at some depth, every enclosing length
    kept right so that record is the only fault.

    >>> from wirecodec.fuzz import invalid
    >>> from wirecodec.errors import DecodeError
    >>> from schema_dsl.onnx import TensorProto
    >>> bad = invalid(TensorProto(name="x").SerializeToString(), seed=0, message=TensorProto,
    ...               kinds=["field_zero"])
    >>> try:
    ...     TensorProto.FromString(bad)
    ... except DecodeError as error:
    ...     print("refused:", str(error).split(" (")[0])
    refused: field number 0 is not allowed
    """
    return apply.spoil(data, message, seed=seed, kinds=kinds)
