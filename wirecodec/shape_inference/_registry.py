"""The rule tables: per (domain, op_type), a type-and-shape rule and a data propagator.

Families register their rules when imported (``ops/__init__`` imports them all). A rule
sets the types of a node's outputs from its context; a propagator computes the values of a
small integer output (a shape being computed) for ``data_prop``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from wirecodec.shape_inference._context import NodeContext
    from wirecodec.shape_inference._types import Dim

__all__ = ["PROPAGATORS", "RULES", "SCHEMA_RULES", "domain_key", "propagator", "rule"]

Rule = Callable[["NodeContext"], None]
# -> the values of output 0 (each a size, a symbol or unknown), or None when not known
Propagator = Callable[["NodeContext"], "tuple[Dim, ...] | None"]

RULES: dict[tuple[str, str], Rule] = {}
PROPAGATORS: dict[tuple[str, str], Propagator] = {}
# The rules of schemas registered at run time with an inference function
# (``onnx_compat.defs.register_schema``), by (domain, op_type, since_version): the rule of the
# schema in effect at a node's opset runs before any built-in one.
SCHEMA_RULES: dict[tuple[str, str, int], Rule] = {}

F = TypeVar("F")


def domain_key(domain: str) -> str:
    """``ai.onnx`` and the empty string name the same domain."""
    return "" if domain == "ai.onnx" else domain


def rule(*op_types: str, domain: str = "") -> Callable[[Rule], Rule]:
    """Register the decorated function as the inference rule of ``op_types``."""

    def register(fn: Rule) -> Rule:
        for op in op_types:
            RULES[(domain, op)] = fn
        return fn

    return register


def propagator(*op_types: str, domain: str = "") -> Callable[[Propagator], Propagator]:
    """Register the decorated function as the data propagator of ``op_types``."""

    def register(fn: Propagator) -> Propagator:
        for op in op_types:
            PROPAGATORS[(domain, op)] = fn
        return fn

    return register
