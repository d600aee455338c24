"""What a verb is doing, on one line of a terminal's standard error, while it works.

Shown only when standard error is a terminal, never with ``--json`` (a script reads that)
and never with ``--quiet``; the line is redrawn in place (``\\r``) and wiped when the
verb is done or prints (``clear``), so what the verb prints stands alone. No thread: the line
changes when the verb reaches a new stage or counts another item.

>>> import io
>>> out = io.StringIO()
>>> with Status("extract", out) as status:
...     status("inferring shapes")
>>> out.getvalue() == "\\r\\x1b[Kwirecodec extract: inferring shapes\\r\\x1b[K"
True
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import time
from types import TracebackType
from typing import IO, Final

__all__ = ["Status", "add_quiet_argument", "status"]

_CLEAR: Final = "\r\x1b[K"  # back to the line's start, erase to its end


class Status:
    """One status line on ``out`` (None: shown nowhere); use as a context manager."""

    def __init__(self, verb: str, out: IO[str] | None, interval: float = 0.1) -> None:
        self.verb = verb
        self.out = out
        self.interval = interval
        self.drawn = False
        self._shown = 0.0

    def __call__(self, text: str) -> None:
        """Show ``text`` as what the verb does now."""
        if self.out is None:
            return
        width = max(shutil.get_terminal_size((80, 24)).columns - 1, 20)
        line = f"wirecodec {self.verb}: {text}"
        if len(line) > width:
            line = line[: width - 3] + "..."
        self.out.write(_CLEAR + line)
        self.out.flush()
        self.drawn = True
        self._shown = time.monotonic()

    def count(self, done: int, total: int, text: str) -> None:
        """``[done/total] text``, redrawn at most every ``interval`` seconds (and for the first)."""
        if self.out is None:
            return
        if done > 1 and time.monotonic() - self._shown < self.interval:
            return
        self(f"[{done}/{total}] {text}")

    def clear(self) -> None:
        """Wipe the line, before the verb prints on the same terminal (the next call draws
        it again)."""
        if self.out is not None and self.drawn:
            with contextlib.suppress(OSError, ValueError):  # a terminal gone: nothing left to wipe
                self.out.write(_CLEAR)
                self.out.flush()
            self.drawn = False

    def __enter__(self) -> Status:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.clear()


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def status(args: argparse.Namespace) -> Status:
    """The status line of the verb ``args`` run: on standard error when it is a terminal and
    neither ``--json`` nor ``--quiet`` was given, else shown nowhere."""
    asked = not getattr(args, "quiet", False) and not getattr(args, "json", False)
    shown = asked and _is_terminal(sys.stderr)
    return Status(str(getattr(args, "verb", "")), sys.stderr if shown else None)


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``-q``/``--quiet``, every verb's: no progress on the terminal."""
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="show no progress on the terminal (it shows only on one)"
    )
