"""``python -m wirecodec [MODEL]``: open a model, summarise it, and prove the round trip.

With no argument it uses the example model bundled with the package.
"""

from __future__ import annotations

import argparse
import collections
import mmap
import os
import pathlib
import sys
import time
from collections.abc import Sequence

from schema_dsl.onnx import ModelProto
from wirecodec.codec import decode, encode
from wirecodec.compile import decoder
from wirecodec.errors import DecodeError, WireCodecError

EXAMPLE = pathlib.Path(__file__).parent / "examples" / "mlp.onnx"


def _describe(path: pathlib.Path) -> tuple[list[str], bool]:
    """Decode ``path`` from a read-only map; return the summary lines and the round-trip verdict.

    Everything is computed while the map is open and nothing that views it escapes,
    so the map closes cleanly before anything is printed.
    """
    size = path.stat().st_size
    if size == 0:
        raise DecodeError("empty file: not an ONNX model", 0, "ModelProto")
    with path.open("rb") as file, mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        started = time.perf_counter()
        decoder(ModelProto)  # generated once per process; timed apart from the decode
        compiled = time.perf_counter()
        model = decode(ModelProto, mapped)
        decoded = time.perf_counter() - compiled
        graph = model.graph
        ops = collections.Counter(f"{n.domain}::{n.op_type}" if n.domain else n.op_type for n in graph.node)
        payload = sum(len(t.raw_data) for t in graph.initializer)
        opsets = ", ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in model.opset_import)
        lines = [
            f"model         {path} ({size:,} bytes)",
            f"decoded in    {decoded * 1000:.2f} ms "
            f"(codec generated in {(compiled - started) * 1000:.1f} ms)",
            f"ir_version    {model.ir_version}",
            f"producer      {model.producer_name} {model.producer_version}".rstrip(),
            f"opsets        {opsets}",
            f"graph         {graph.name!r}: {len(graph.node)} nodes, "
            f"{len(graph.initializer)} initializers ({payload:,} bytes of raw_data)",
            f"inputs        {', '.join(v.name for v in graph.input)}",
            f"outputs       {', '.join(v.name for v in graph.output)}",
            "operators     " + ", ".join(f"{op}×{n}" for op, n in ops.most_common()),
        ]
        same = encode(model) == mapped[:]
        lines.append(f"round trip    {'byte-identical' if same else 'DIFFERS'}")
        del model, graph
    return lines, same


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="wirecodec", description=__doc__)
    parser.add_argument("model", nargs="?", type=pathlib.Path, default=EXAMPLE,
                        help="an .onnx file (default: the bundled example)")
    args = parser.parse_args(argv)
    try:
        lines, same = _describe(args.model)
        print("\n".join(lines))
        return 0 if same else 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly, like other CLI tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except WireCodecError as exc:
        print(f"{args.model}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{args.model}: {exc.strerror or exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
