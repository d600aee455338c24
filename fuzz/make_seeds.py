"""Build the seed corpus for the harnesses from valid models: the onnx backend corpus.

    python fuzz/make_seeds.py [fuzz/seeds]

Each seed is one byte naming the message type (see _common.TOP_LEVEL) followed by a
file of that type, as fuzz_decode.py reads it; fuzz_to_array and fuzz_load take the
same files (their first byte is just part of the input).
"""

from __future__ import annotations

import hashlib
import pathlib
import sys

from _common import ROOT, TOP_LEVEL

from tests.reference import backend_corpus


def main() -> None:
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fuzz" / "seeds"
    out.mkdir(parents=True, exist_ok=True)
    names = [cls.__qualname__ for cls in TOP_LEVEL]
    written = 0
    for item in backend_corpus(ROOT / ".pytest_cache" / "d" / "onnx-corpus"):
        if item.message not in names or len(item.data) > 16_384:
            continue
        seed = bytes([names.index(item.message)]) + item.data
        (out / hashlib.sha1(seed).hexdigest()[:16]).write_bytes(seed)
        written += 1
    print(f"{written} seeds in {out}")


if __name__ == "__main__":
    main()
