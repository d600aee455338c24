"""Fuzz other people's parsers of ONNX files.

- :func:`rewrite` / :data:`REWRITES` — a model re-encoded in ways protobuf's serializers
  never write (fields reordered, packed runs unpacked or split, earlier values of a
  singular field, sub-messages split in occurrences that merge, overlong varints, padded
  lengths, unknown fields) that every conforming parser must read as the same model: a
  metamorphic oracle needing no expected output;
- :func:`invalid` / :data:`INVALID` — one malformed record, at any depth, that every
  conforming parser must refuse;
- :func:`mutate` / :data:`MOVE_NAMES` — structure-aware mutation (libprotobuf-mutator's
  add, delete, mutate, copy, clone) plus ONNX-aware moves that hit real bugs;
- :mod:`wirecodec.fuzz.strategies` — Hypothesis strategies (the ``fuzz`` extra);
- :func:`atheris_mutator` — the callable ``atheris.Setup(custom_mutator=...)`` takes;
- :mod:`wirecodec.fuzz.compare` — every file through every parser, each in its own process
  (``wirecodec fuzz compare``).

docs/fuzzing-parsers.md walks through them.
"""

from __future__ import annotations

from wirecodec.fuzz.atheris_glue import atheris_mutator
from wirecodec.fuzz.invalidating import INVALID, InvalidKind, invalid
from wirecodec.fuzz.mutation import MOVE_NAMES, mutate
from wirecodec.fuzz.rewriting import REWRITES, RewriteKind, rewrite

__all__ = [
    "INVALID",
    "MOVE_NAMES",
    "REWRITES",
    "InvalidKind",
    "RewriteKind",
    "atheris_mutator",
    "invalid",
    "mutate",
    "rewrite",
]
