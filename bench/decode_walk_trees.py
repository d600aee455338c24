"""Decode + walk of one model by two or more source trees of wirecodec, in alternating fresh processes.

For before/after figures of a change to the decoder or the message model: each tree is
imported from its own folder (``git worktree add /tmp/before <commit>``), the trees take
turns so a change in the machine's load falls on all of them, and each run prints the
decode and the walk (``bench/child.py``'s ``walk_proto``) separately. With ``--load`` the
first step is ``wirecodec.load(path)`` (mapping the file, looking for external data)
instead of ``wirecodec.decode`` of its bytes; with ``--walk-without-gc`` the cyclic
collector is off during the walk (what a full collection over the decoded tree costs).

    python bench/decode_walk_trees.py bench/.cache/<meta-100000>/model.onnx /tmp/before . --pairs 3
"""

from __future__ import annotations

import argparse
import pathlib
import subprocess
import sys

_CHILD = """
import gc, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[3])
from child import walk_proto
import wirecodec
from schema_dsl.onnx import ModelProto
load = sys.argv[4] == "load"
gc_in_walk = sys.argv[5] == "gc"
data = open(sys.argv[2], "rb").read()
wirecodec.decode(ModelProto, b"")
wirecodec.load  # noqa: B018  (wirecodec imports its names on first use: not inside the clock)
start = time.perf_counter()
model = wirecodec.load(sys.argv[2]) if load else wirecodec.decode(ModelProto, data)
if not gc_in_walk:
    gc.disable()
decoded = time.perf_counter()
walk_proto(model)
walked = time.perf_counter()
first = "load" if load else "decode"
print(f"{first} {decoded - start:.3f} s  walk {walked - decoded:.3f} s  total {walked - start:.3f} s")
"""


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("model", type=pathlib.Path, help="an .onnx file")
    parser.add_argument("trees", nargs="+", type=pathlib.Path, help="folders with wirecodec/, schema_dsl/")
    parser.add_argument("--pairs", type=int, default=3, help="rounds of one run per tree")
    parser.add_argument("--load", action="store_true", help="wirecodec.load(path) instead of decode(bytes)")
    parser.add_argument("--walk-without-gc", action="store_true", help="no cyclic collector in the walk")
    args = parser.parse_args(argv)
    bench = pathlib.Path(__file__).resolve().parent
    step = "load" if args.load else "decode"
    collector = "off" if args.walk_without_gc else "gc"
    for _ in range(args.pairs):
        for tree in args.trees:
            child = [str(tree.resolve()), str(args.model), str(bench), step, collector]
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, *child],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            print(f"{tree}: {out}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
