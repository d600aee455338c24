"""Pausing the cyclic garbage collector while a decode builds objects."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator
from typing import Final

__all__ = ["gc_paused"]

_lock: Final = threading.Lock()
_pausers = 0
_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector while a decode builds objects.

    A decode allocates hundreds of thousands of container objects and creates no
    reference cycles, so collections triggered mid-decode find nothing and cost more
    than the decode itself. Counted, so concurrent decodes restore the caller's state.
    """
    global _pausers, _was_enabled
    with _lock:
        if _pausers == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pausers += 1
    try:
        yield
    finally:
        with _lock:
            _pausers -= 1
            if _pausers == 0 and _was_enabled:
                gc.enable()
