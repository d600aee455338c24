"""What saving a big model costs the kernel alone: ``python bench/save_floor.py [--repeat N] [MODEL]``.

Beside ``wirecodec.save`` of MODEL (default: the benchmark's ``gpt`` input), times putting
the same number of bytes into a new file with one ``write`` of a bytes object already in
memory (what ``onnx.save`` does after serialising), and the same followed by ``fsync``
(what a save that survives a power cut must also wait for). No library can save faster
than the first, nor durably faster than the second; ``docs/performance.md`` reads the
``bench/run.py`` save row against them. Each step writes a fresh file in a scratch folder
next to the input and deletes it; steps take turns within each repeat; medians.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable

import inputs


def _write(data: bytes, folder: pathlib.Path, durable: bool) -> None:
    with open(folder / "raw.onnx", "wb") as file:
        file.write(data)
        if durable:
            file.flush()
            os.fsync(file.fileno())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", nargs="?", type=pathlib.Path, help="default: the cached gpt input")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    import wirecodec

    path = args.model or inputs.path_of(inputs.DEFAULT_CACHE, inputs.FULL, "gpt")
    if not path.exists():
        raise SystemExit(f"{path} does not exist: build it with python bench/inputs.py gpt")
    data = path.read_bytes()
    model = wirecodec.load(path)
    wirecodec.save  # noqa: B018  (imported on first use: not inside the first run's clock)
    steps: dict[str, Callable[[pathlib.Path], None]] = {
        "write (no fsync)": lambda folder: _write(data, folder, durable=False),
        "write + fsync": lambda folder: _write(data, folder, durable=True),
        "wirecodec.save": lambda folder: wirecodec.save(model, folder / "saved.onnx"),
    }
    seconds: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(args.repeat):
        for name, step in steps.items():
            folder = pathlib.Path(tempfile.mkdtemp(dir=path.parent.parent, prefix=".floor-"))
            try:
                started = time.perf_counter()
                step(folder)
                seconds[name].append(time.perf_counter() - started)
            finally:
                shutil.rmtree(folder)
    print(f"{path} ({len(data):,} bytes), {args.repeat} runs each, load average {os.getloadavg()[0]:.1f}")
    for name, runs in seconds.items():
        spread = " ".join(f"{s:.3f}" for s in runs)
        print(f"  {name:18} median {statistics.median(runs):.3f} s   ({spread})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
