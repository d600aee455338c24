"""Rewriting a whole message: every level, innermost first, by the kinds asked for."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from schema_dsl import Message
from wirecodec.errors import WireCodecError
from wirecodec.protobuf.rewrite.kinds import REWRITES, RewriteKind
from wirecodec.protobuf.rewrite.records import Record, emit, levels, parse

__all__ = ["UnknownKindError", "choose", "rewrite", "rewrite_records", "spoil"]


class UnknownKindError(WireCodecError, ValueError):
    """A kind name that is not in the table asked of."""


def choose(table: Iterable[str], asked: Sequence[str] | None, rng: random.Random) -> list[str]:
    """The kinds to apply, in the table's order: those ``asked`` (all of them checked to exist),
    or, when None, a random non-empty subset."""
    names = list(table)
    if asked is not None:
        unknown = sorted(set(asked) - set(names))
        if unknown:
            raise UnknownKindError(f"unknown kind {', '.join(unknown)}: choose from {', '.join(names)}")
        return [name for name in names if name in asked]
    picked = [name for name in names if rng.random() < 0.5]
    return picked or [rng.choice(names)]


def rewrite_records(
    records: list[Record], cls: type[Message], kinds: Sequence[RewriteKind], rng: random.Random
) -> int:
    """Apply each kind over every level of a tree, in place; return how many changes were made.

    Each kind draws one rate for the whole tree; if that rate changed nothing anywhere,
    it runs again with every eligible record chosen, so a kind that can apply does.
    """
    total = 0
    for kind in kinds:
        rate = rng.choice((0.2, 0.5, 1.0))
        changes = _over_levels(records, cls, kind, rng, rate)
        if changes == 0 and rate < 1.0:
            changes = _over_levels(records, cls, kind, rng, 1.0)
        total += changes
    return total


def _over_levels(
    records: list[Record], cls: type[Message], kind: RewriteKind, rng: random.Random, rate: float
) -> int:
    # Innermost first: a level is rewritten after everything inside it.
    return sum(kind.apply(level, level_cls, rng, rate) for level, level_cls in reversed(levels(records, cls)))


def rewrite(
    data: bytes | bytearray | memoryview, cls: type[Message], *, seed: int, kinds: Sequence[str] | None = None
) -> bytes:
    """``data`` (a well-formed ``cls`` message) re-encoded by the rewrite ``kinds``
    (names in :data:`~wirecodec.protobuf.rewrite.kinds.REWRITES`; None: a random subset).

    Any conforming parser reads the result as the same message (plus unknown fields when
    ``unknown_fields`` is among the kinds). The same data, seed and kinds give the same
    bytes.
    """
    rng = random.Random(seed)
    names = choose(REWRITES, kinds, rng)
    records = parse(data, cls)
    rewrite_records(records, cls, [REWRITES[name] for name in names], rng)
    return emit(records)


def spoil(
    data: bytes | bytearray | memoryview, cls: type[Message], *, seed: int, kinds: Sequence[str] | None = None
) -> bytes:
    """``data`` (a well-formed ``cls`` message) with one malformed record placed at some depth,
    of one of ``kinds`` (names in :data:`~wirecodec.protobuf.rewrite.invalid.INVALID`; None:
    any). Every conforming parser must refuse the result. Deterministic for a seed.
    """
    from wirecodec.protobuf.rewrite.invalid import INVALID

    rng = random.Random(seed)
    names = choose(INVALID, kinds, rng) if kinds is not None else list(INVALID)
    return INVALID[rng.choice(names)].make(parse(data, cls), cls, rng)
