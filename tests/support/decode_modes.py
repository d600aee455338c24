"""Every way wirecodec can decode (and re-encode), as one fixture the differential tests run under.

A *mode* is a combination of the switches the codec has: ``lazy=`` of
:func:`wirecodec.decode`, and the context switches of :mod:`wirecodec.protobuf`
(``defer_every_element``: every element of every repeated message field waits;
``memo.turned_off``: repeated sub-messages decoded one by one; ``origin.full_encode``:
the encoder walks every field instead of re-emitting unchanged source bytes).

The ``decode_mode`` fixture (registered in ``tests/conftest.py``) runs a test once per
mode with the mode's switches on for the whole test, and hands it the mode, whose
:meth:`DecodeMode.decode` passes ``lazy=``. As cbor2 runs each test against both its
implementations, a mode added to :data:`MODES` runs every differential test that takes
the fixture, and ``tests/unit/protobuf/test_decode_modes.py`` fails when the codec grows a switch
(a context variable, or a keyword of ``decode``) that no mode covers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import pytest

import wirecodec
from schema_dsl import Message
from wirecodec.protobuf import memo, origin, records
from wirecodec.protobuf.compile import defer_every_element

__all__ = ["MODES", "SWITCHES", "DecodeMode", "decode_mode", "examples"]

M = TypeVar("M", bound=Message)


@dataclass(frozen=True)
class DecodeMode:
    """One combination of the codec's switches."""

    name: str
    lazy: bool
    every_element: bool = False  # compile.defer_every_element
    memo: bool = True  # memo.awake_from_start when True, memo.turned_off when False
    reemit: bool = True  # origin.full_encode when False
    records: bool = False  # records.records_from_start: every graph keeps records (views)

    @contextlib.contextmanager
    def active(self) -> Iterator[DecodeMode]:
        """The mode's context switches, on for the duration of the block."""
        with contextlib.ExitStack() as stack:
            if self.every_element:
                stack.enter_context(defer_every_element())
            # On: remembering from the first sub-message, so small inputs reach the memo.
            stack.enter_context(memo.awake_from_start() if self.memo else memo.turned_off())
            if not self.reemit:
                stack.enter_context(origin.full_encode())
            if self.records:
                stack.enter_context(records.records_from_start())
            yield self

    def decode(self, cls: type[M], data: Any, **options: Any) -> M:
        """:func:`wirecodec.decode` in this mode (``lazy=`` from the mode)."""
        with self.active():
            return wirecodec.decode(cls, data, lazy=self.lazy, **options)

    def encode(self, message: Message) -> bytes:
        with self.active():
            return wirecodec.encode(message)


MODES: tuple[DecodeMode, ...] = (
    DecodeMode("eager", lazy=False),
    DecodeMode("lazy", lazy=True),
    DecodeMode("lazy-every-element", lazy=True, every_element=True),
    DecodeMode("memo-off", lazy=True, memo=False),
    DecodeMode("reemit-off", lazy=True, reemit=False),
    DecodeMode("records", lazy=True, records=True),
)

# Every switch the codec has, and how the modes cover it: the names of context variables
# under wirecodec/ (and keywords of decode) that change what decoding or re-encoding does,
# or why one is not a mode. tests/unit/protobuf/test_decode_modes.py compares this with the source.
SWITCHES: dict[str, str] = {
    "decode(lazy=)": "eager vs the lazy modes",
    "decode(max_depth=)": "not a mode: a limit, tested at its edges in test_limits.py",
    "wirecodec_defer_every_element": "lazy-every-element",
    "wirecodec_memo": "memo-off",
    "wirecodec_memo_from_start": "every mode but memo-off remembers from the start (eager, lazy)",
    "wirecodec_reuse_source_bytes": "reemit-off",
    "wirecodec_notes": "not a mode: records which fields a decode met, changes no value",
    "wirecodec_write_progress": "not a mode: a progress callback for payload writes",
    "wirecodec_cli_remote": "not a mode: the command line's options for models by URL (docs/remote.md)",
    "decode(records=)": "on in every lazy mode (the default); where a graph keeps records is records' switch",
    "wirecodec_records_from_start": "records (every graph keeps records, views everywhere)",
}


def examples(budget: int) -> int:
    """A Hypothesis budget shared out over the modes (at least 10 examples each), so the
    matrix costs about what one mode did: the suite's time, and the mutation harness's
    (``python -m tests.mutation``, under 5 minutes), stay where they were."""
    return max(10, budget // len(MODES))


@pytest.fixture(params=MODES, ids=[mode.name for mode in MODES])
def decode_mode(request: pytest.FixtureRequest) -> Iterator[DecodeMode]:
    """Run the test once per decode mode, the mode's switches on throughout."""
    mode: DecodeMode = request.param
    with mode.active():
        yield mode
