"""How a decode represents what it reads, where its size thresholds would choose otherwise.

A decode picks a representation per field by size (docs/performance.md): small elements
past the first few of a field wait as offsets (wirecodec.protobuf.lazy), a graph keeps
records past 1,024 elements (wirecodec.protobuf.records). Small inputs reach none of
them, so tests and fuzzing ask for them by name, per call::

    wirecodec.decode(ModelProto, data, representation=Representation(records_always=True))

What a program reads, writes and encodes is the same in every representation; only
its cost differs. :data:`DEFAULT` is what a decode uses when not told: the thresholds
decide. (The test suite's ``--records`` run replaces it for the whole run, from
tests/conftest.py; nothing in the library does.)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFAULT", "Representation"]


@dataclass(frozen=True)
class Representation:
    """What a decode does past its thresholds, asked for on inputs of any size."""

    every_element_waits: bool = False
    """A lazy decode leaves every element of every repeated message field waiting
    (validated now, decoded on first read), not only small ones past the first few."""
    records_always: bool = False
    """Every graph a lazy decode meets keeps its elements as records, however short."""


DEFAULT = Representation()
