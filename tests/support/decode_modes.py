"""Every way wirecodec can decode (and re-encode), as one fixture the differential tests run under.

A *mode* is a combination of the switches the codec has, each an explicit parameter:
``lazy=`` and ``representation=`` of :func:`wirecodec.decode`
(wirecodec.protobuf.representation: every element of every repeated message field
waits; every graph keeps records), and
``reuse_source=`` of :func:`wirecodec.encode` (off: the encoder walks every field
instead of re-emitting unchanged source bytes).

The ``decode_mode`` fixture (registered in ``tests/conftest.py``) runs a test once per
mode and hands it the mode, whose :meth:`DecodeMode.decode` and :meth:`DecodeMode.encode`
pass the mode's parameters (a field read later decodes with the codec the decode
chose, so the mode holds for the whole message). As cbor2 runs each test against both its
implementations, a mode added to :data:`MODES` runs every differential test that takes
the fixture, and ``tests/unit/protobuf/test_decode_modes.py`` fails when the codec grows a switch
(a context variable, a keyword of ``decode``, a field of ``Representation``) that no mode covers.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

import wirecodec
from schema_dsl import Message
from wirecodec.protobuf.representation import Representation

__all__ = [
    "EVERY_ELEMENT",
    "MODES",
    "RECORDS_ALWAYS",
    "SWITCHES",
    "DecodeMode",
    "decode_mode",
    "examples",
]

# The representations tests ask for by name (wirecodec.protobuf.representation).
EVERY_ELEMENT = Representation(every_element_waits=True)
RECORDS_ALWAYS = Representation(records_always=True)

M = TypeVar("M", bound=Message)


@dataclass(frozen=True)
class DecodeMode:
    """One combination of the codec's switches."""

    name: str
    lazy: bool
    every_element: bool = False  # Representation.every_element_waits
    reemit: bool = True  # encode(reuse_source=)
    records: bool = False  # Representation.records_always: every graph keeps records (views)

    @property
    def representation(self) -> Representation:
        return Representation(every_element_waits=self.every_element, records_always=self.records)

    def decode(self, cls: type[M], data: Any, **options: Any) -> M:
        """:func:`wirecodec.decode` in this mode."""
        return wirecodec.decode(cls, data, lazy=self.lazy, representation=self.representation, **options)

    def encode(self, message: Message) -> bytes:
        """:func:`wirecodec.encode` in this mode."""
        return wirecodec.encode(message, reuse_source=self.reemit)


MODES: tuple[DecodeMode, ...] = (
    DecodeMode("eager", lazy=False),
    DecodeMode("lazy", lazy=True),
    DecodeMode("lazy-every-element", lazy=True, every_element=True),
    DecodeMode("reemit-off", lazy=True, reemit=False),
    DecodeMode("records", lazy=True, records=True),
)

# Every switch the codec has, and how the modes cover it: the names of context variables
# under wirecodec/ (and keywords of decode) that change what decoding or re-encoding does,
# or why one is not a mode. tests/unit/protobuf/test_decode_modes.py compares this with the source.
SWITCHES: dict[str, str] = {
    "decode(lazy=)": "eager vs the lazy modes",
    "decode(max_depth=)": "not a mode: a limit, tested at its edges in test_limits.py",
    "decode(representation=)": (
        "not a mode itself: its fields are the switches below (lazy-every-element, records)"
    ),
    "Representation.every_element_waits": "lazy-every-element",
    "encode(reuse_source=)": "reemit-off",
    "wirecodec_notes": "not a mode: records which fields a decode met, changes no value",
    "wirecodec_write_progress": "not a mode: a progress callback for payload writes",
    "decode(records=)": "on in every lazy mode (the default); where a graph keeps records is records' switch",
    "Representation.records_always": "records (every graph keeps records, views everywhere)",
}


def examples(budget: int) -> int:
    """A Hypothesis budget shared out over the modes (at least 10 examples each), so the
    matrix costs about what one mode did: the suite's time, and the mutation harness's
    (``python -m tests.mutation``, under 5 minutes), stay where they were."""
    return max(10, budget // len(MODES))


@pytest.fixture(params=MODES, ids=[mode.name for mode in MODES])
def decode_mode(request: pytest.FixtureRequest) -> Iterator[DecodeMode]:
    """Run the test once per decode mode (its decode and encode pass the mode's parameters)."""
    mode: DecodeMode = request.param
    yield mode
