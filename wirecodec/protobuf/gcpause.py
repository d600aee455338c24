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
_SETTLE_AFTER: Final = 50_000  # objects built during the pause
_was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector while a decode (or an encode) builds objects.

    A decode allocates hundreds of thousands of container objects and creates no
    reference cycles, so collections triggered mid-decode find nothing and cost more
    than the decode itself. Counted, so concurrent decodes restore the caller's state.

    When the pause built many objects, they are moved to the oldest generation on the
    way out (``gc.freeze(); gc.unfreeze()``): left young, the next two collections would
    each scan the whole new tree. The move takes every young object of the process
    along, so unrelated young garbage cycles wait for the next full collection.
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
                if gc.get_count()[0] > _SETTLE_AFTER:
                    # Move what the decode built straight to the oldest generation: left
                    # young, the next collections would each scan the whole new tree
                    # (which holds no cycles) on its way there.
                    gc.freeze()
                    gc.unfreeze()
                gc.enable()
