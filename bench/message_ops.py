"""``==``, ``CopyFrom`` and ``list.index`` of decoded messages, beside onnx (upb), as the
libraries built on onnx call them (issue 42: qonnx's ``list.index(node)``, 876 ``CopyFrom``).

    python bench/message_ops.py [MODEL ...] [--rounds N]

For each model (default: ``bench/.cache/meta-10000`` and the ``gpt-small`` export, made by
``python bench/inputs.py meta-10000 gpt-small``), a fresh process per library and round,
the libraries taking turns; each process decodes the model twice and times, on the main
graph's nodes (every node read once first: a view is built outside the clock):

* ``model ==``: the two decoded models compared;
* ``node ==``: each node of one compared with the same node of the other;
* ``CopyFrom``: a new ``NodeProto`` copied from each node;
* ``index``: ``nodes.index(node)`` for 50 nodes spread over the graph (each compares
  the nodes before it), ``nodes`` a list of the node views;
* ``in``: ``node in graph.node`` for the same 50 nodes of the *other* decode (the
  container's own search: upb's container has ``in`` but no ``index``);
* ``remove``: ``graph.node.remove(node)`` for the same 50 nodes of the other decode;
* ``copy changed``: ``copy.copy`` of each node left, once renamed (no source bytes left:
  a field-by-field copy).

Prints each library's median seconds (fastest-slowest) and wirecodec's ratio to upb.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
CACHE = HERE / ".cache"
OPS = ("model ==", "node ==", "CopyFrom", "index", "in", "remove", "copy changed")

_CHILD = r"""
import copy, json, sys, time
library, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
if library == "upb":
    import onnx
    decode, Node = onnx.load_model_from_string, onnx.NodeProto
else:
    import wirecodec
    from schema_dsl.onnx import ModelProto, NodeProto as Node
    decode = lambda b: wirecodec.decode(ModelProto, b)
a, b = decode(data), decode(data)
mine, theirs = list(a.graph.node), list(b.graph.node)
def timed(fn):
    t = time.perf_counter(); fn(); return time.perf_counter() - t
step = max(1, len(mine) // 50)
out = {
    "model ==": timed(lambda: a == b),
    "node ==": timed(lambda: [x == y for x, y in zip(mine, theirs)]),
    "CopyFrom": timed(lambda: [Node().CopyFrom(n) for n in mine]),
    "index": timed(lambda: [mine.index(mine[k]) for k in range(0, len(mine), step)]),
    "in": timed(lambda: [theirs[k] in a.graph.node for k in range(0, len(mine), step)]),
}
assert a == b
out["remove"] = timed(lambda: [a.graph.node.remove(theirs[k]) for k in range(0, len(theirs), step)])
left = list(a.graph.node)
for n in left:
    n.name = n.name + "_renamed"
out["copy changed"] = timed(lambda: [copy.copy(n) for n in left])
print(json.dumps(out))
"""


def run(library: str, model: pathlib.Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, library, str(model)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", type=pathlib.Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    models = args.models or [
        CACHE / "meta-10000" / "model.onnx",
        CACHE / "gpt-small-torch-v6000-d512-l2" / "model.onnx",
    ]
    print("| model | step | upb s | wirecodec s | ratio |\n|---|---|---|---|---|")
    for model in models:
        runs: dict[str, list[dict[str, float]]] = {"upb": [], "wirecodec": []}
        for _ in range(args.rounds):
            for library in runs:
                runs[library].append(run(library, model))
        for op in OPS:
            cells = []
            for library in runs:
                values = sorted(r[op] for r in runs[library])
                cells.append((statistics.median(values), values[0], values[-1]))
            (u, ulo, uhi), (w, wlo, whi) = cells
            print(
                f"| {model.parent.name} | {op} | {u:.4f} ({ulo:.4f}-{uhi:.4f}) | "
                f"{w:.4f} ({wlo:.4f}-{whi:.4f}) | {w / u:.2f}× |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
