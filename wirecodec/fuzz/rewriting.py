"""``rewrite``: a model re-encoded in ways no protobuf serializer writes, read the same by any
correct parser (a metamorphic oracle: a model and its rewrite must give the same result)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from schema_dsl import Message
from schema_dsl.onnx import ModelProto
from wirecodec.protobuf.rewrite import apply
from wirecodec.protobuf.rewrite.kinds import REWRITES as _REWRITES
from wirecodec.protobuf.rewrite.kinds import RewriteKind

__all__ = ["REWRITES", "RewriteKind", "rewrite"]

REWRITES: Mapping[str, RewriteKind] = _REWRITES
"""Every rewrite kind by name; ``REWRITES[name].doc`` says what it writes and where protobuf
requires parsers to accept it."""


def rewrite(
    data: bytes | bytearray | memoryview,
    *,
    seed: int,
    message: type[Message] = ModelProto,
    kinds: Sequence[str] | None = None,
) -> bytes:
    """``data``, a well-formed ``message`` (a model by default), re-encoded by ``kinds``.

    ``kinds`` are names from :data:`REWRITES`; None picks a random non-empty subset from
    the seed. Every level is rewritten (graphs, subgraphs in attributes, functions,
    tensors), and the result parses, in any conforming parser, to a message equal to the
    original's (with unknown fields added under ``unknown_fields``). The same data, seed
    and kinds always give the same bytes. One limit: an unknown group counts as a level of
    nesting, so a model within three levels of protobuf's limit of 100 may cross it.

    >>> from wirecodec.fuzz import rewrite
    >>> from schema_dsl.onnx import TensorProto
    >>> tensor = TensorProto(dims=[2], data_type=1, float_data=[1.0, 2.0]).SerializeToString()
    >>> out = rewrite(tensor, seed=1, message=TensorProto, kinds=["unpack", "reorder"])
    >>> out != tensor, TensorProto.FromString(out) == TensorProto.FromString(tensor)
    (True, True)

    Raises :class:`~wirecodec.errors.DecodeError` when ``data`` is not well-formed, and
    :class:`~wirecodec.protobuf.rewrite.apply.UnknownKindError` for a kind not in the table.
    """
    return apply.rewrite(data, message, seed=seed, kinds=kinds)
