"""Memory amplification: peak RSS growth when decoding small hostile inputs, per input byte.

    python bench/bench_amplification.py [--mb 20]

Shapes (each a GraphProto of N identical nodes, N chosen to fill --mb):

* ``empty``: empty NodeProtos (``0a 00``), the input of the hostile-input issue;
* ``4attr+name``: nodes of exactly 32 payload bytes (the smallest decoded at once):
  four empty attributes (decoded at once, as the first four of a field always are)
  and a 22-character name; the worst shape we found for wirecodec;
* ``16attr``: nodes of 16 empty attributes (32 bytes; the last 12 wait);
* ``names``: one node with N two-character input names (strings, never lazy).

Each library decodes the same bytes in its own fresh subprocess. "read all" reads every
node and attribute after the decode (everything decoded, as after a full walk); upb's
figure is its parse alone, as upb builds Python objects only on access. The last two
columns load the same graph wrapped in a ModelProto file: ``wirecodec.load`` also looks
through every node for external data (decoding waiting ones one at a time).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

CHILD = """
import json, resource, sys, time
path, library = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
if library == "upb":
    import onnx
    message = onnx.onnx_ml_pb2.GraphProto()
    decode = lambda: message.ParseFromString(data)
elif library == "onnx.load":
    import onnx
    decode = lambda: onnx.load(path + ".onnx")
elif library == "wirecodec.load":
    import wirecodec
    from schema_dsl.onnx import ModelProto
    wirecodec.decode(ModelProto, b"")
    decode = lambda: wirecodec.load(path + ".onnx")
else:
    import wirecodec
    from schema_dsl.onnx import GraphProto
    wirecodec.decode(GraphProto, b"")  # generate the codec before measuring
    decode = lambda: wirecodec.decode(GraphProto, data)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
start = time.perf_counter()
result = decode()
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
out = {"growth": peak - before, "seconds": elapsed}
if library == "wirecodec-walked":
    touched = sum(len(node.attribute) for node in result.node)
    out["growth"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
print(json.dumps(out))
"""
# The same graph as a model file (field 7 of ModelProto), for load() on both sides.
WRAP = b"\x3a"


def shape(name: str, size: int) -> bytes:
    if name == "empty":
        node = b"\x0a\x00"
    elif name == "4attr+name":
        node = b"\x0a\x20" + b"\x2a\x00" * 4 + b"\x1a\x16" + b"n" * 22
    elif name == "16attr":
        node = b"\x0a\x20" + b"\x2a\x00" * 16
    elif name == "names":
        count = size // 4
        body = b"\x0a\x02ab" * count
        return b"\x0a" + _varint(len(body)) + body
    else:
        raise ValueError(name)
    return node * (size // len(node))


def _varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=20)
    parser.add_argument("--shapes", default="empty,4attr+name,16attr,names")
    args = parser.parse_args()
    print(f"# {args.mb} MB inputs, peak RSS growth / input size")
    columns = ["upb parse", "wirecodec decode", "wirecodec decode + read all", "onnx.load", "wirecodec.load"]
    print(f"| input | {' | '.join(columns)} |")
    print("|---|---|---|---|---|---|")
    for name in args.shapes.split(","):
        data = shape(name, args.mb * 1_000_000)
        with tempfile.NamedTemporaryFile(suffix=".pb") as file:
            file.write(data)
            file.flush()
            pathlib.Path(file.name + ".onnx").write_bytes(WRAP + _varint(len(data)) + data)
            cells = []
            for library in ("upb", "wirecodec", "wirecodec-walked", "onnx.load", "wirecodec.load"):
                command = [sys.executable, "-c", CHILD, file.name, library]
                out = subprocess.run(command, capture_output=True, text=True, check=True)
                r = json.loads(out.stdout.strip().splitlines()[-1])
                cells.append(f"{r['growth'] / len(data):.1f}× ({r['seconds']:.2f} s)")
            pathlib.Path(file.name + ".onnx").unlink()
            print(f"| {name} | {' | '.join(cells)} |")


if __name__ == "__main__":
    main()
