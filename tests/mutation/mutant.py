"""One named mutant: a change to one file of the tree, and the tests expected to notice it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Mutant"]


@dataclass(frozen=True)
class Mutant:
    """A named change to one file of the tree, and the tests expected to notice it."""

    name: str
    file: str  # relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]
    what: str  # the bug, in words
