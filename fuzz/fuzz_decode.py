"""atheris harness: decode (and re-encode) every top-level message type.

    python fuzz/fuzz_decode.py -atheris_runs=100000 fuzz/seeds/

The first byte picks the message type; the rest is the input. Whatever decodes must
encode, and decoding the encoding must give an equal message.
"""

from __future__ import annotations

import sys

import atheris

with atheris.instrument_imports():
    from _common import EXPECTED, TOP_LEVEL

    import wirecodec


def test_one_input(data: bytes) -> None:
    if not data:
        return
    cls = TOP_LEVEL[data[0] % len(TOP_LEVEL)]
    try:
        message = wirecodec.decode(cls, data[1:])
    except EXPECTED:
        return
    again = wirecodec.decode(cls, wirecodec.encode(message))
    if again != message:
        raise AssertionError("decode(encode(m)) != m")


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
