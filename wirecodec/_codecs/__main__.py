"""Regenerate this interpreter's shipped codecs: ``python -m wirecodec._codecs``.

Writes ``wirecodec/_codecs/<cache tag>.bin`` (wirecodec.protobuf.shipped). Run it after
changing a generator or the schema layer, with every interpreter whose file is shipped:
the native one, and Pyodide's through ``python -m bench.pyodide_cold --ship``.
"""

from __future__ import annotations

import os
import sys

from wirecodec._codecs import entries
from wirecodec.protobuf import shipped


def main() -> int:
    """Write this interpreter's file; print where and how big."""
    target = shipped.path()
    if target is None:
        print("this interpreter keeps no bytecode: nothing to ship", file=sys.stderr)
        return 1
    data = shipped.blob(entries())
    temp = target + ".tmp"
    with open(temp, "wb") as file:
        file.write(data)
    os.chmod(temp, 0o644)  # Pyodide's umask is 0: a file any user may write would be shipped
    os.replace(temp, target)
    print(f"{target}: {len(data)} bytes, stamp {shipped.stamp()[:16]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
