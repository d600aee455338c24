"""atheris harness: decode (and re-encode) every top-level message type, lazily and eagerly.

    python fuzz/fuzz_decode.py -atheris_runs=100000 fuzz/seeds/
    WIRECODEC_FUZZ_ALL_LAZY=1 python fuzz/fuzz_decode.py ...   # defer every element

The first byte picks the message type; the rest is the input. Decoding with deferred
elements (the default for bytes) and eagerly must give the same verdict, and for a
failure the same error type, offset and path. Whatever decodes must encode, and
decoding the encoding must give an equal message.
"""

from __future__ import annotations

import os
from typing import Any

from _common import fuzz, instrumented

with instrumented():
    from _common import EXPECTED, TOP_LEVEL, make_all_lazy

    import wirecodec

if os.environ.get("WIRECODEC_FUZZ_ALL_LAZY"):
    make_all_lazy()


def _outcome(cls: Any, payload: bytes, lazy: bool) -> Any:
    try:
        return wirecodec.decode(cls, payload, lazy=lazy)
    except EXPECTED as exc:
        return (type(exc).__name__, getattr(exc, "offset", None), getattr(exc, "path", None))


def test_one_input(data: bytes) -> None:
    if not data:
        return
    cls = TOP_LEVEL[data[0] % len(TOP_LEVEL)]
    lazy = _outcome(cls, data[1:], True)
    eager = _outcome(cls, data[1:], False)
    if isinstance(lazy, tuple) or isinstance(eager, tuple):
        if lazy != eager:
            raise AssertionError(f"lazy and eager decoding disagree: {lazy!r} vs {eager!r}")
        return
    again = wirecodec.decode(cls, wirecodec.encode(lazy))
    if again != lazy or lazy != eager:
        raise AssertionError("decode(encode(m)) != m, or lazy != eager")


if __name__ == "__main__":
    fuzz(test_one_input)
