"""The operator table: (domain, op_type) -> implementations by the version they start at.

An implementation is a function ``impl(ctx, *inputs)`` returning one value or a tuple of
values; ``ctx`` (:class:`~wirecodec.reference._context.NodeContext`) holds the node's
attributes (schema defaults filled in), the opset version in effect, and runs subgraphs.
The families register themselves when :func:`load_all` imports them (on the first
evaluator built, never at ``import wirecodec``).
"""

from __future__ import annotations

import bisect
import functools
import importlib
from collections.abc import Callable
from typing import Any

Impl = Callable[..., Any]

_TABLE: dict[tuple[str, str], list[tuple[int, Impl]]] = {}
_FAMILIES = (
    "elementwise",
    "math",
    "reductions",
    "shape",
    "nn",
    "conv",
    "pool",
    "control",
    "sequences",
    "quantize",
    "ml",
    "random",
    "text",
    "misc",
    "resize",
    "rnn",
    "sampling",
    "signal",
    "training",
)
_loaded = False


def op(name: str, since: int = 1, domain: str = "") -> Callable[[Impl], Impl]:
    """Register the decorated function for ``name`` from opset ``since`` of ``domain``."""

    def register(impl: Impl) -> Impl:
        versions = _TABLE.setdefault((domain, name), [])
        versions.append((since, impl))
        versions.sort(key=lambda pair: pair[0])
        return impl

    return register


def load_all() -> None:
    """Import every operator family once (each registers its operators)."""
    global _loaded
    if _loaded:
        return
    for family in _FAMILIES:
        importlib.import_module(f"wirecodec.reference.ops.{family}")
    _loaded = True


@functools.cache
def lookup(domain: str, name: str, version: int) -> Impl | None:
    """The implementation in effect at opset ``version``, or None (the table is complete once
    :func:`load_all` ran, before any lookup)."""
    versions = _TABLE.get((domain, name))
    if not versions:
        return None
    at = bisect.bisect_right([v for v, _ in versions], version)
    return versions[at - 1][1] if at else versions[0][1]
