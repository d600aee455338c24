"""An opt-in pause of the cyclic garbage collector, for callers who own their process.

wirecodec never touches the collector by itself (docs/guide.md, "A guest in your
process"): the collector's state is the host's. A script that decodes or walks a huge
model and owns its process may pause it around that work:

>>> import wirecodec
>>> from schema_dsl.onnx import ModelProto
>>> with wirecodec.gc_paused():
...     model = wirecodec.decode(ModelProto, b"")

Decoding makes many container objects and no reference cycles, so the collections
its allocations trigger find nothing; docs/performance.md ("The collector") gives what
they cost. While the pause lasts, no thread of the process collects cycles.
"""

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
    """Disable the cyclic collector inside the block; the caller's state comes back after.

    Nested and concurrent pauses (several threads) are counted: the collector is
    re-enabled when the last one ends, and only if it was enabled when the first began.
    Nothing else about the collector changes: no generation is moved, no threshold set.
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
