"""``onnx.backend.test.runner.item``: :class:`TestItem`, one generated test and its model."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

__all__ = ["TestItem"]


@dataclasses.dataclass
class TestItem:
    """A generated test function and a one-element list that holds the model (or node) it
    ran, once it has run (what onnx's coverage report reads)."""

    func: Callable[..., Any]
    proto: list[Any]
    __test__ = False  # not a test for pytest to collect
