"""Memory amplification: decode N MB of empty NodeProtos (a GraphProto of ``0a 00`` pairs).

    python bench/bench_amplification.py [--mb 20]

Each library decodes the same bytes in its own fresh subprocess; the factor is the
growth of peak RSS during the decode divided by the input size (and, for wirecodec,
also the tracemalloc peak, which counts only Python allocations).
"""

from __future__ import annotations

import argparse
import json
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
print(json.dumps({"growth": peak - before, "seconds": elapsed}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=20)
    args = parser.parse_args()
    data = b"\x0a\x00" * (args.mb * 1_000_000 // 2)
    with tempfile.NamedTemporaryFile(suffix=".pb") as file:
        file.write(data)
        file.flush()
        print(f"# {len(data) / 1e6:.0f} MB of empty NodeProtos ({len(data) // 2:,} nodes), peak RSS growth")
        print("| library | seconds | RSS growth (MB) | amplification |")
        print("|---|---|---|---|")
        for library in ("upb", "wirecodec"):
            out = subprocess.run(
                [sys.executable, "-c", CHILD, file.name, library], capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            factor = r["growth"] / len(data)
            print(f"| {library} | {r['seconds']:.2f} | {r['growth'] / 1e6:.0f} | {factor:.1f}× |")


if __name__ == "__main__":
    main()
