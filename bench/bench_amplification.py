"""Memory amplification: peak RSS of decoding hostile input, wirecodec against upb, same bytes.

    PYTHONPATH=. python bench/bench_amplification.py [--mb 20] [--shapes empty,16attr]

Inputs (``bench/inputs.py: hostile_graph``): a GraphProto of N identical small nodes
filling --mb megabytes (10^6 bytes):

* ``empty``: empty NodeProtos (``0a 00``), the input of the hostile-input issue;
* ``4attr+name``: nodes of exactly 32 payload bytes (the smallest decoded at once): four
  empty attributes and a 22-character name; the worst shape we found for wirecodec;
* ``16attr``: nodes of 16 empty attributes (32 bytes; the last 12 wait);
* ``names``: one node with N two-character input names (strings, never deferred).

Every figure comes from a fresh subprocess per library and input. The child reads the
input, imports its library and warms it up (wirecodec generates its codec), collects
garbage, then resets the kernel's peak-RSS counter (``/proc/self/clear_refs``) and
notes its RSS; after the decode, the growth is ``VmHWM`` (peak RSS) minus that RSS: the
most memory the decode needed on top of the input it was given. Columns:

* ``upb parse``: ``onnx.onnx_ml_pb2.GraphProto().ParseFromString`` (protobuf's upb
  backend; upb builds Python objects only on access, so this is its whole cost);
* ``wirecodec decode``: ``wirecodec.decode(GraphProto, data)`` from ``bytes``;
* ``wirecodec ÷ upb``: the ratio of those two growths, the figure docs/hostile-input.md
  quotes and ``tests/perf/test_amplification.py`` bounds;
* ``wirecodec decode + read all``: the decode, then every node and attribute read;
* ``onnx.load`` / ``wirecodec.load``: the same graph as a ModelProto file, loaded.

Each cell is growth ÷ input size, then the growth itself.
"""

from __future__ import annotations

import argparse
import gc
import json
import pathlib
import subprocess
import sys
import tempfile
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from child import _reset_peak, _status  # noqa: E402  (bench/ is a folder of scripts)
from inputs import HOSTILE_SHAPES, hostile_graph, varint  # noqa: E402

LIBRARIES = ("upb", "wirecodec", "wirecodec-read-all", "onnx.load", "wirecodec.load")
# The graph as a model file: ModelProto.graph is field 7, length-delimited.
MODEL_GRAPH_TAG = b"\x3a"


# --- the child: one decode, measured -------------------------------------------------------


def _prepare(library: str, path: str) -> Any:
    """Import ``library``, warm it up, and return the measured step (a no-argument callable)."""
    data = pathlib.Path(path).read_bytes()
    if library == "upb":
        import onnx
        from google.protobuf.internal import api_implementation

        if api_implementation.Type() != "upb":
            raise RuntimeError(f"protobuf backend is {api_implementation.Type()!r}, not upb")

        def parse() -> Any:
            message = onnx.onnx_ml_pb2.GraphProto()
            message.ParseFromString(data)
            return message

        return parse
    if library == "onnx.load":
        import onnx

        return lambda: onnx.load(path + ".onnx")
    import wirecodec
    from schema_dsl.onnx import GraphProto, ModelProto

    wirecodec.decode(GraphProto, b"")  # generate the codecs before measuring
    wirecodec.decode(ModelProto, b"")
    wirecodec.load  # noqa: B018  (imported on first use: its modules' memory is not the decode's)
    if library == "wirecodec":
        return lambda: wirecodec.decode(GraphProto, data)
    if library == "wirecodec-read-all":
        return lambda: _read_all(wirecodec.decode(GraphProto, data))
    if library == "wirecodec.load":
        return lambda: wirecodec.load(path + ".onnx")
    raise ValueError(f"unknown library {library!r}; known: {', '.join(LIBRARIES)}")


def _read_all(graph: Any) -> Any:
    for node in graph.node:
        len(node.attribute)
    return graph


def child(library: str, path: str) -> dict[str, Any]:
    """Run one measured decode in this process; its peak RSS growth in bytes, and more."""
    step = _prepare(library, path)
    gc.collect()
    reset = _reset_peak()
    before = _status("VmRSS") if reset else _status("VmHWM")
    result = step()
    growth = _status("VmHWM") - before
    del result
    return {"library": library, "growth": growth, "peak_reset": reset}


# --- the parent: fresh processes, a table ---------------------------------------------------


def measure(library: str, data: bytes, scratch: pathlib.Path) -> dict[str, Any]:
    """Peak RSS growth of decoding ``data`` with ``library``, in a fresh Python process.

    Writes the input (and, for the ``load`` columns, the same graph as a model file) into
    ``scratch``; the child needs ``wirecodec``/``onnx`` importable (PYTHONPATH=.)."""
    path = scratch / "graph.pb"
    path.write_bytes(data)
    if library.endswith(".load"):
        pathlib.Path(f"{path}.onnx").write_bytes(MODEL_GRAPH_TAG + varint(len(data)) + data)
    command = [sys.executable, str(pathlib.Path(__file__).resolve()), "--child", library, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{library} child failed ({done.returncode}):\n{done.stderr}")
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    figures["input"] = len(data)
    return figures


def _megabytes(n: float) -> str:
    return f"{n / 1e6:,.0f} MB" if n >= 10e6 else f"{n / 1e6:,.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--mb", type=float, default=20, help="input size in MB (10^6 bytes)")
    parser.add_argument("--shapes", default=",".join(HOSTILE_SHAPES))
    parser.add_argument("--child", nargs=2, metavar=("LIBRARY", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return
    print(f"# {args.mb:g} MB inputs; peak RSS growth ÷ input size (growth), each in a fresh process")
    print(
        "| input | upb parse | wirecodec decode | wirecodec ÷ upb | wirecodec decode + read all "
        "| onnx.load | wirecodec.load |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in args.shapes.split(","):
        data = hostile_graph(name, int(args.mb * 1_000_000))
        with tempfile.TemporaryDirectory(prefix="bench-amplification-") as scratch:
            figures = {library: measure(library, data, pathlib.Path(scratch)) for library in LIBRARIES}
        if not all(f["peak_reset"] for f in figures.values()):
            print("# warning: the kernel refused to reset peak RSS; growth is measured from the import peak")
        cells = {
            lib: f"{f['growth'] / len(data):.1f}× ({_megabytes(f['growth'])})" for lib, f in figures.items()
        }
        ratio = figures["wirecodec"]["growth"] / figures["upb"]["growth"]
        row = [
            cells["upb"],
            cells["wirecodec"],
            f"**{ratio:.3f}**",
            cells["wirecodec-read-all"],
            cells["onnx.load"],
            cells["wirecodec.load"],
        ]
        print(f"| `{name}` ({_megabytes(len(data))}) | {' | '.join(row)} |")


if __name__ == "__main__":
    main()
