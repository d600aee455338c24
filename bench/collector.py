"""What wirecodec does to its host's garbage collector, and what the collector costs it.

Two measurements, each in this process, for the tree first on ``sys.path`` (run it from
each tree in turn: ``PYTHONPATH=/tmp/before python bench/collector.py ...``):

* ``host MODEL``: three threads decode MODEL in a loop for ``--seconds`` while the main
  thread, the host, samples ``gc.isenabled()`` and makes 1 KB garbage cycles; prints the
  share of samples with the collector off and the process's peak RSS growth.
* ``walk MODEL [--pause]``: one decode then the benchmark's walk (bench/child.py), with
  the decode inside ``wirecodec.gc_paused()`` if asked (the opt-in).

    python bench/collector.py host bench/.cache/meta-10000/model.onnx --seconds 15
    python bench/collector.py walk bench/.cache/meta-100000/model.onnx --pause
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import pathlib
import threading
import time

from child import walk_proto  # bench/child.py: the script's folder is on sys.path

import wirecodec
from schema_dsl.onnx import ModelProto


class _Cycle:
    def __init__(self) -> None:
        self.me = self
        self.payload = bytearray(1024)


def _rss() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def host(data: bytes, seconds: float) -> str:
    stop = threading.Event()

    def decode_forever() -> None:
        while not stop.is_set():
            wirecodec.decode(ModelProto, data)

    threads = [threading.Thread(target=decode_forever) for _ in range(3)]
    gc.collect()
    start = peak = _rss()
    for thread in threads:
        thread.start()
    samples = off = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for _ in range(100):
            _Cycle()
        samples += 1
        off += not gc.isenabled()
        peak = max(peak, _rss())
    stop.set()
    for thread in threads:
        thread.join()
    share, growth = 100 * off / samples, (peak - start) / 1e6
    return f"collector off in {share:.1f}% of {samples} samples; peak RSS growth {growth:.0f} MB"


def walk(data: bytes, pause: bool) -> str:
    pausing = getattr(wirecodec, "gc_paused", None)
    if pause and pausing is None:
        raise SystemExit("this tree has no wirecodec.gc_paused")
    start = time.perf_counter()
    with pausing() if pause and pausing is not None else contextlib.nullcontext():
        model = wirecodec.decode(ModelProto, data)
    decoded = time.perf_counter()
    walk_proto(model)
    walked = time.perf_counter()
    return f"decode {decoded - start:.3f} s  walk {walked - decoded:.3f} s  total {walked - start:.3f} s"


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("what", choices=["host", "walk"])
    parser.add_argument("model", type=pathlib.Path)
    parser.add_argument("--seconds", type=float, default=15.0, help="host: how long the threads decode")
    parser.add_argument("--pause", action="store_true", help="walk: decode inside wirecodec.gc_paused()")
    args = parser.parse_args(argv)
    data = args.model.read_bytes()
    wirecodec.decode(ModelProto, data)  # codecs generated before anything is timed
    result = host(data, args.seconds) if args.what == "host" else walk(data, args.pause)
    print(f"{pathlib.Path(wirecodec.__file__).parent.parent}: {result}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
