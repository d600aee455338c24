"""Write onnx's backend test corpus into a folder, for the Pyodide job to mount.

Natively (onnx generates it); inside WebAssembly there is no onnx. Each item becomes a
file under DIR, and ``DIR/manifest.tsv`` lists ``message class<TAB>relative path``.

    python -m tests.pyodide.make_corpus DIR
"""

from __future__ import annotations

import pathlib
import sys

from tests.support.reference import backend_corpus


def write(folder: pathlib.Path) -> int:
    """Write the corpus (unless the folder already holds this onnx's); the number of items."""
    import onnx

    stamp = folder / "onnx-version"
    manifest = folder / "manifest.tsv"
    if stamp.exists() and manifest.exists() and stamp.read_text() == onnx.__version__:
        return len(manifest.read_text().splitlines())
    lines = []
    for item in backend_corpus():
        path = folder / item.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(item.data)
        lines.append(f"{item.message}\t{item.name}")
    manifest.write_text("\n".join(lines) + "\n")
    stamp.write_text(onnx.__version__)
    return len(lines)


if __name__ == "__main__":
    print(write(pathlib.Path(sys.argv[1])), "corpus items")
