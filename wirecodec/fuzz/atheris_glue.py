"""The custom mutator atheris takes: ``atheris.Setup(argv, test, custom_mutator=atheris_mutator())``.

atheris itself is imported only if an input cannot be parsed as a model (then its own
byte-level mutator is used), so this module loads without it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from schema_dsl import Message
from schema_dsl.onnx import ModelProto
from wirecodec.errors import WireCodecError
from wirecodec.fuzz.mutation import mutate
from wirecodec.fuzz.rewriting import rewrite

__all__ = ["atheris_mutator"]

CustomMutator = Callable[[bytes, int, int], bytes]


def atheris_mutator(
    message: type[Message] = ModelProto,
    *,
    rewrite_share: float = 0.3,
    valid_enums: bool = True,
    moves: Sequence[str] | None = None,
) -> CustomMutator:
    """A ``custom_mutator(data, max_size, seed) -> bytes`` for atheris.

    Most calls :func:`~wirecodec.fuzz.mutate` the input (structure-aware, ONNX-aware);
    ``rewrite_share`` of them also :func:`~wirecodec.fuzz.rewrite` the result, so the
    target sees non-canonical encodings of the same models. An input that is not a
    well-formed ``message`` (libFuzzer's own seeds, crossovers) goes to atheris's byte
    mutator.

    >>> mutator = atheris_mutator()
    >>> from wirecodec.examples.build_mlp import build
    >>> data = build().SerializeToString()
    >>> mutator(data, 1 << 20, 7) == mutator(data, 1 << 20, 7)
    True
    """

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        try:
            out = mutate(
                data, seed=seed, message=message, max_size=max_size, valid_enums=valid_enums, moves=moves
            )
            if rng.random() < rewrite_share:
                rewritten = rewrite(out, seed=rng.getrandbits(32), message=message)
                out = rewritten if len(rewritten) <= max_size else out
        except WireCodecError:
            import atheris  # the fuzz extra

            result: bytes = atheris.Mutate(data, max_size)
            return result
        return out

    return custom_mutator
