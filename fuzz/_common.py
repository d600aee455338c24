"""Shared setup for the atheris harnesses: imports, and the one error type they may swallow."""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from wirecodec import WireCodecError  # noqa: E402

# The documented error contract: anything else escaping is a finding.
EXPECTED = WireCodecError

from tests.reference import TOP_LEVEL  # noqa: E402

__all__ = ["EXPECTED", "ROOT", "TOP_LEVEL", "make_all_lazy"]


def make_all_lazy() -> None:
    """Defer every element of every repeated message field for the rest of the run, so
    inputs exercise validation and deferred decoding instead of the eager path only."""
    from wirecodec.protobuf.compile import defer_every_element

    defer_every_element().__enter__()
