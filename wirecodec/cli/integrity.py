"""The integrity checks the verbs use, which live in the files layer now
(:mod:`wirecodec.files.integrity`), so :func:`wirecodec.check` with ``full=True`` and
``wirecodec check --full`` report the same problems. Re-exported here for the verbs."""

from __future__ import annotations

from wirecodec.files.integrity import (
    Problem,
    crc_problems,
    external_sites,
    problems,
    refuse_bad_crc,
    refuse_lying_safetensors,
    safetensors_problems,
)

__all__ = [
    "Problem",
    "crc_problems",
    "external_sites",
    "problems",
    "refuse_bad_crc",
    "refuse_lying_safetensors",
    "safetensors_problems",
]
