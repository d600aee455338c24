"""The error for the parts of onnx that wirecodec does not provide, and modules made of it."""

from __future__ import annotations

import types
from typing import NoReturn

from wirecodec.errors import WireCodecError

__all__ = ["NotProvidedError", "missing_module_getattr", "not_provided"]


class NotProvidedError(WireCodecError, NotImplementedError):
    """A feature of the onnx package that wirecodec does not provide (the message names it)."""


def not_provided(feature: str, why: str) -> NoReturn:
    """Raise :class:`NotProvidedError` for ``feature``."""
    raise NotProvidedError(f"{feature} is not provided by wirecodec: {why}")


def missing_module_getattr(module: str, why: str, names: frozenset[str]) -> types.FunctionType:
    """A module ``__getattr__`` raising :class:`NotProvidedError` for onnx's ``names`` in ``module``.

    Any other name is an ``AttributeError``, so that introspection (``hasattr``, pytest's
    and doctest's collection) behaves.
    """

    def __getattr__(name: str) -> NoReturn:  # noqa: N807  (a module's __getattr__)
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        not_provided(f"{module}.{name}", why)

    return __getattr__  # type: ignore[return-value]
