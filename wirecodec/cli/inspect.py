"""Open a model with ``wirecodec.load``, summarise it, and prove the byte-exact round trip.

With no model it uses the example bundled with the package.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import time

from wirecodec.cli.common import EXAMPLE
from wirecodec.errors import DecodeError
from wirecodec.files.load import load
from wirecodec.protobuf.codec import encode

HELP = "summarise a model (default: the bundled example)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        nargs="?",
        type=pathlib.Path,
        default=EXAMPLE,
        help="an .onnx file (default: the bundled example)",
    )


def describe(path: pathlib.Path) -> tuple[list[str], bool]:
    """Summary lines of the model at ``path`` and whether it re-encodes to the same bytes.

    The model is opened as any user would (``wirecodec.load``, mapped, external data
    resolved); the round trip compares a re-encoding of the file as stored (external
    references kept) with the file's bytes.
    """
    size = path.stat().st_size
    if size == 0:
        raise DecodeError("empty file: not an ONNX model", 0, "ModelProto")
    started = time.perf_counter()
    model = load(path)
    loaded = time.perf_counter() - started
    graph = model.graph
    ops = collections.Counter(f"{n.domain}::{n.op_type}" if n.domain else n.op_type for n in graph.node)
    payload = sum(len(t.raw_data) for t in graph.initializer)
    opsets = ", ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in model.opset_import)
    lines = [
        f"model         {path} ({size:,} bytes)",
        f"loaded in     {loaded * 1000:.2f} ms",
        f"ir_version    {model.ir_version}",
        f"producer      {model.producer_name} {model.producer_version}".rstrip(),
        f"opsets        {opsets}",
        f"graph         {graph.name!r}: {len(graph.node)} nodes, "
        f"{len(graph.initializer)} initializers ({payload:,} bytes of raw_data)",
        f"inputs        {', '.join(v.name for v in graph.input)}",
        f"outputs       {', '.join(v.name for v in graph.output)}",
        "operators     " + ", ".join(f"{op}×{n}" for op, n in ops.most_common()),
    ]
    del model, graph
    stored = load(path, load_external_data=False)
    same = encode(stored) == path.read_bytes()
    lines.append(f"round trip    {'byte-identical' if same else 'DIFFERS'}")
    return lines, same


def run(args: argparse.Namespace) -> int:
    lines, same = describe(args.model)
    print("\n".join(lines))
    return 0 if same else 1
