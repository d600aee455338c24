"""One named mutant: a change to one file of the tree, and the tests expected to notice it."""

from __future__ import annotations

import pathlib
from dataclasses import dataclass

__all__ = ["Mutant", "tests_in"]

_ROOT = pathlib.Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Mutant:
    """A named change to one file of the tree, and the tests expected to notice it."""

    name: str
    file: str  # relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]
    what: str  # the bug, in words


def tests_in(folder: str) -> tuple[str, ...]:
    """The test files of ``folder`` (relative to the repository root), in name order: a
    selection names files, so that the baseline can tell which of them ran and passed."""
    return tuple(sorted(str(path.relative_to(_ROOT)) for path in (_ROOT / folder).glob("test_*.py")))
