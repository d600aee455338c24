"""Decode + walk of one model by two or more source trees of wirecodec, in alternating fresh processes.

For before/after figures of a change to the decoder or the message model: each tree is
imported from its own folder (``git worktree add /tmp/before <commit>``), the trees take
turns so a change in the machine's load falls on all of them, and each run prints the
decode and the walk (``bench/child.py``'s ``walk_proto``) separately. With ``--load`` the
first step is ``wirecodec.load(path)`` (mapping the file, looking for external data)
instead of ``wirecodec.decode`` of its bytes; with ``--walk-without-gc`` the cyclic
collector is off during the walk (what a full collection over the decoded tree costs).

    python bench/decode_walk_trees.py bench/.cache/<meta-100000>/model.onnx /tmp/before . --pairs 3

With ``--walk tool`` the walk is ``walk_tool`` (what a graph tool reads: the "models
people have" rows of bench/run.py) instead of ``walk_proto``; with ``--upb`` onnx
(protobuf's upb) decodes and walks too, in the same alternation, and each run prints
its ratio to the upb run before it. The same-run ratios of several models:

    python bench/decode_walk_trees.py bench/.cache/pypi-*/model.onnx --trees /tmp/before . --walk tool --upb

With ``--pause`` wirecodec's first step runs inside ``wirecodec.gc_paused()``, the
opt-in a caller who owns the process may make (upb's run is unchanged).

(the code cache must hold each tree's codecs, or every fresh process compiles them: run
once without ``PYTHONDONTWRITEBYTECODE``, or point ``WIRECODEC_CODE_CACHE`` at a folder).
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
import child
walk = getattr(child, sys.argv[6])
load = sys.argv[4] == "load"
gc_in_walk = sys.argv[5] == "gc"
data = open(sys.argv[2], "rb").read()
if sys.argv[1] == "upb":
    import onnx
    first_step = lambda: onnx.load(sys.argv[2]) if load else onnx.load_model_from_string(data)
else:
    import wirecodec
    from schema_dsl.onnx import ModelProto
    wirecodec.decode(ModelProto, b"")
    wirecodec.load  # (wirecodec imports its names on first use: not inside the clock)
    first_step = lambda: wirecodec.load(sys.argv[2]) if load else wirecodec.decode(ModelProto, data)
    if sys.argv[7] == "pause":  # the caller's opt-in around the first step
        unpaused = first_step
        def first_step():
            with wirecodec.gc_paused():
                return unpaused()
start = time.perf_counter()
model = first_step()
if not gc_in_walk:
    gc.disable()
decoded = time.perf_counter()
walk(model)
walked = time.perf_counter()
first = "load" if load else "decode"
print(f"{first} {decoded - start:.4f} s  walk {walked - decoded:.4f} s  total {walked - start:.4f} s")
"""


def main(argv: list[str] | None = None) -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("paths", nargs="+", type=pathlib.Path, help="an .onnx file, then the trees")
    parser.add_argument(
        "--trees", nargs="+", type=pathlib.Path, help="the trees (then every path is a model)"
    )
    parser.add_argument("--pairs", type=int, default=3, help="rounds of one run per tree")
    parser.add_argument("--load", action="store_true", help="wirecodec.load(path) instead of decode(bytes)")
    parser.add_argument("--walk-without-gc", action="store_true", help="no cyclic collector in the walk")
    parser.add_argument("--walk", choices=("proto", "tool"), default="proto", help="walk_proto or walk_tool")
    parser.add_argument(
        "--pause",
        action="store_true",
        help="wirecodec's first step inside wirecodec.gc_paused() (the opt-in)",
    )
    parser.add_argument("--upb", action="store_true", help="onnx (upb) too, and each run's ratio to it")
    parser.add_argument(
        "--bench", type=pathlib.Path, help="the folder whose child.py has the walk (default: this one)"
    )
    args = parser.parse_args(argv)
    models, trees = (args.paths, args.trees) if args.trees else (args.paths[:1], args.paths[1:])
    if not trees:
        parser.error("name at least one tree")
    bench = (args.bench or pathlib.Path(__file__).parent).resolve()
    step = "load" if args.load else "decode"
    collector = "off" if args.walk_without_gc else "gc"
    walk = f"walk_{args.walk}"
    for model in models:
        for _ in range(args.pairs):
            reference = None
            for tree in (["upb"] if args.upb else []) + [str(t.resolve()) for t in trees]:
                child = [tree, str(model), str(bench), step, collector, walk, "pause" if args.pause else "-"]
                out = subprocess.run(
                    [sys.executable, "-c", _CHILD, *child], check=True, capture_output=True, text=True
                ).stdout.strip()
                total = float(out.split("total ")[1].split()[0])
                ratio = "" if reference is None or tree == "upb" else f"  {total / reference:.2f}x upb"
                reference = total if tree == "upb" else reference
                print(f"{model.parent.name} {tree}: {out}{ratio}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
