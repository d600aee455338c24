"""Regenerate the shipped codecs: ``python -m wirecodec._codecs``.

Writes ``wirecodec/_codecs/onnx_<kind>.py`` (wirecodec._codecs._generate). Run it after
changing a generator or the schema layer, and commit the diff it makes.
"""

from __future__ import annotations

import sys

from wirecodec._codecs._generate import write


def main() -> int:
    """Write every module; print where and how big."""
    for target, size in write():
        print(f"{target}: {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
