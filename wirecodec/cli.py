"""``python -m wirecodec [MODEL]``: open a model, summarise it, and prove the round trip.

With no argument it uses the example model bundled with the package.
"""

from __future__ import annotations

import argparse
import collections
import mmap
import pathlib
import sys
import time
from collections.abc import Sequence

from schema_dsl.onnx import ModelProto
from wirecodec.codec import decode, encode
from wirecodec.errors import WireCodecError

EXAMPLE = pathlib.Path(__file__).parent / "examples" / "mlp.onnx"


def _summary(path: pathlib.Path) -> int:
    with path.open("rb") as file:
        size = path.stat().st_size
        if size == 0:
            print(f"{path}: empty file", file=sys.stderr)
            return 1
        with mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            started = time.perf_counter()
            model = decode(ModelProto, mapped)
            decoded = time.perf_counter() - started
            graph = model.graph
            ops = collections.Counter(
                f"{n.domain}::{n.op_type}" if n.domain else n.op_type for n in graph.node
            )
            payload = sum(len(t.raw_data) for t in graph.initializer)
            print(f"model         {path} ({size:,} bytes, decoded in {decoded * 1000:.1f} ms)")
            print(f"ir_version    {model.ir_version}")
            print(f"producer      {model.producer_name} {model.producer_version}".rstrip())
            opsets = ", ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in model.opset_import)
            print(f"opsets        {opsets}")
            print(f"graph         {graph.name!r}: {len(graph.node)} nodes, "
                  f"{len(graph.initializer)} initializers ({payload:,} bytes of raw_data)")
            for label, values in (("inputs", graph.input), ("outputs", graph.output)):
                print(f"{label:<13} {', '.join(v.name for v in values)}")
            print("operators     " + ", ".join(f"{op}×{n}" for op, n in ops.most_common()))
            same = encode(model) == mapped[:]
            print(f"round trip    {'byte-identical' if same else 'DIFFERS'}")
            del model, graph  # release views into the map before it closes
            return 0 if same else 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wirecodec", description=__doc__)
    parser.add_argument("model", nargs="?", type=pathlib.Path, default=EXAMPLE,
                        help="an .onnx file (default: the bundled example)")
    args = parser.parse_args(argv)
    try:
        return _summary(args.model)
    except WireCodecError as exc:
        print(f"{args.model}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.model}: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
