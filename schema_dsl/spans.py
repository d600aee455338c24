"""Where the message model reports that a decoded message is about to change.

A decoder may give a message a *span* (an int, ``_span``) saying "my source bytes are my
encoding"; the codec owns what it means (wirecodec.protobuf.origin). The schema layer
only passes a span to :func:`report` before any change to the message or to one of its
repeated fields, so that the codec stops re-emitting those bytes. Until a codec installs
its receiver, there is nothing to tell.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["install_receiver", "report"]


def _nobody(span: int) -> None:
    pass


_receiver: Callable[[int], None] = _nobody


def install_receiver(receiver: Callable[[int], None]) -> None:
    """Make ``receiver`` hear every span reported (wirecodec installs this on import)."""
    global _receiver
    _receiver = receiver


def report(span: int) -> None:
    """The message with this span (or a repeated field of it) is about to change."""
    _receiver(span)
