"""``mutate``: structure-aware mutation of a model, as libprotobuf-mutator does it, plus
ONNX-aware moves (:mod:`wirecodec.fuzz.onnx_moves`)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Final

from schema_dsl import Message
from schema_dsl.onnx import ModelProto
from wirecodec.errors import WireCodecError
from wirecodec.fuzz.onnx_moves import ONNX_MOVES
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, encode
from wirecodec.protobuf.rewrite.apply import choose, spoil
from wirecodec.protobuf.rewrite.moves import MOVES, delete
from wirecodec.protobuf.rewrite.records import MAX_DEPTH, Group, Nested, Record, emit, parse

__all__ = ["MOVE_NAMES", "mutate"]

_ONNX_SHARE: Final = 0.35  # of the moves on a model, how many are ONNX-aware

MOVE_NAMES: Final[Mapping[str, str]] = {
    **{name: (move.__doc__ or "").strip().splitlines()[0] for name, move in MOVES.items()},
    **{name: (move.__doc__ or "").strip().splitlines()[0] for name, move in ONNX_MOVES.items()},
}
"""Every move ``mutate`` may make, by name, with its one-line description."""


def mutate(
    data: bytes | bytearray | memoryview,
    *,
    seed: int,
    message: type[Message] = ModelProto,
    max_size: int | None = None,
    moves: Sequence[str] | None = None,
    valid_enums: bool = True,
    well_formed: bool = True,
) -> bytes:
    """``data``, a well-formed ``message``, changed by one to three structure-aware moves.

    The moves (:data:`MOVE_NAMES`; ``moves`` narrows them) are libprotobuf-mutator's five
    over the schema — add, delete, mutate, copy, clone, at any depth — and, for a model,
    the ONNX-aware ones of :mod:`wirecodec.fuzz.onnx_moves`. Enum values stay among the
    declared ones unless ``valid_enums`` is False. The result is well-formed on the wire
    unless ``well_formed`` is False (then half the results also carry one malformed record
    of :data:`wirecodec.fuzz.INVALID`); well-formed, it also nests no deeper than the
    parsers' limit (protobuf's and wirecodec's ``max_depth``, 100): a move that nested
    deeper (a clone into itself, ``deep_nesting``) is cut at the limit. With ``max_size``,
    records are deleted until the result fits, when that is possible. The same arguments
    give the same bytes, and the result can be rewritten (:func:`wirecodec.fuzz.rewrite`) like any model.

    >>> from wirecodec.fuzz import mutate
    >>> from schema_dsl.onnx import ModelProto
    >>> from wirecodec.examples.build_mlp import build
    >>> data = build().SerializeToString()
    >>> out = mutate(data, seed=3)
    >>> out == mutate(data, seed=3), isinstance(ModelProto.FromString(out), ModelProto)
    (True, True)
    """
    rng = random.Random(seed)
    wire_names = list(MOVES)
    onnx_names = list(ONNX_MOVES) if issubclass(message, ModelProto) else []
    chosen = (
        choose([*wire_names, *onnx_names], moves, rng) if moves is not None else [*wire_names, *onnx_names]
    )
    wire_moves = [name for name in chosen if name in MOVES]
    onnx_moves = [name for name in chosen if name in ONNX_MOVES]
    records = parse(data, message, max_depth=MAX_DEPTH)
    for _ in range(rng.randint(1, 3)):
        use_onnx = onnx_moves and (not wire_moves or rng.random() < _ONNX_SHARE)
        if use_onnx:
            records = _onnx_move(records, message, rng.choice(onnx_moves), rng)
        elif wire_moves:
            for _attempt in range(4):  # a move may find nothing to change in this model
                if MOVES[rng.choice(wire_moves)](records, message, rng, valid_enums):
                    break
    if well_formed:
        _cut_below(records, DEFAULT_MAX_DEPTH)
    out = emit(records)
    if max_size is not None and len(out) > max_size:
        out = _shrink(records, message, rng, max_size)
    if not well_formed and rng.random() < 0.5:
        out = spoil(out, message, seed=rng.getrandbits(32))
    return out


def _cut_below(records: list[Record], limit: int) -> None:
    """Delete every sub-message (and unknown group) nested more than ``limit`` levels below
    the top message, which protobuf and wirecodec refuse at ``max_depth=limit``."""
    stack: list[tuple[list[Record], int]] = [(records, 0)]
    while stack:
        level, depth = stack.pop()
        if depth >= limit:
            level[:] = [r for r in level if not isinstance(r, (Nested, Group))]
            continue
        stack.extend((r.records, depth + 1) for r in level if isinstance(r, Nested))


def _onnx_move(records: list[Record], message: type[Message], name: str, rng: random.Random) -> list[Record]:
    """The records after an ONNX-aware move, made on the decoded model."""
    try:
        model = decode(message, emit(records), max_depth=MAX_DEPTH, lazy=False)
    except WireCodecError:  # e.g. mutated into something our decoder refuses: keep it as it is
        return records
    assert isinstance(model, ModelProto)
    if not ONNX_MOVES[name](model, rng):
        return records
    return parse(encode(model), message, max_depth=MAX_DEPTH)


def _shrink(records: list[Record], message: type[Message], rng: random.Random, max_size: int) -> bytes:
    out = emit(records)
    for _ in range(200):
        if len(out) <= max_size or not delete(records, message, rng, True):
            break
        out = emit(records)
    return out
