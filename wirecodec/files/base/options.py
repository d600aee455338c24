"""The save options, spelled out once: every writer (external data, safetensors) and every
front door (``save``, ``convert``) takes them as one :class:`SaveOptions`, checked once.

>>> SaveOptions(size_threshold=0, align=64).align
64
>>> SaveOptions(align=100)
Traceback (most recent call last):
...
ValueError: align must be a power of two, got 100
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SaveOptions"]


@dataclass(frozen=True)
class SaveOptions:
    """Where and how tensor bytes leave the model file (:func:`wirecodec.save` says what each
    means). ``location`` None picks the writer's default name; ``metadata`` is a safetensors
    file's ``__metadata__``; ``durable`` fsyncs before and after the renames."""

    location: str | None = None
    size_threshold: int = 1024
    all_tensors_to_one_file: bool = True
    align: int = 4096
    max_shard_size: int | None = None
    convert_attribute: bool = False
    durable: bool = True
    metadata: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        if self.size_threshold < 0:
            raise ValueError("size_threshold must not be negative")
        if self.align < 1 or self.align & (self.align - 1):
            raise ValueError(f"align must be a power of two, got {self.align}")
        if self.max_shard_size is not None and self.max_shard_size < 1:
            raise ValueError("max_shard_size must be positive")
        if self.location is not None and not self.location:
            raise ValueError("location must not be empty (None picks the default name)")

    def but(self, **changes: object) -> SaveOptions:
        """These options with some changed (checked again)."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
