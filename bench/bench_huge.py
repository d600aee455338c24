"""A model over 2 GiB through every layout: time and peak RSS per step, each in a fresh process.

    python bench/bench_huge.py [--dir DIR] [--layers 36] [--dim 4096] [--no-onnx] [--keep]

The model is a chain of ``--layers`` MatMul + Relu layers with random float32 weights
of ``dim x dim`` (36 x 64 MiB = 2.4 GB by default), written as external data by this
script one tensor at a time (wirecodec's own classes; nothing holds the whole model).
Then, each step in its own process, with its peak RSS measured by the parent of that
process (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` in a one-child wrapper):

1. ``wirecodec.convert`` external -> single file (over 2 GiB);
2. ``cat single.onnx | python -c '... wirecodec.stream(sys.stdin.buffer) ...'``: every
   node, every initializer's payload read from the pipe and hashed;
3. ``wirecodec.stream(path)``: every event, payloads located, not read;
4. ``wirecodec.convert`` single file -> external data again;
5. every tensor of the final data file hashed (``pread``) and compared with the hashes
   taken when the weights were generated: bit-identical or the script fails;

and, with onnx installed, what onnx does with the same steps (``onnx.load`` +
``onnx.save``), including where it refuses (protobuf's 2 GiB limit).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
from typing import Any

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from schema_dsl.onnx import (  # noqa: E402  (after the path is set)
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec import save  # noqa: E402

# Runs one command as its only child and records its wall time and peak RSS.
WRAPPER = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
code = subprocess.run(sys.argv[2:]).returncode
seconds = time.perf_counter() - start
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "seconds": seconds, "peak_mb": peak_kb / 1024}, out)
"""

CHUNK = 1 << 24


def _value(name: str, dim: int) -> ValueInfoProto:
    shape = TensorShapeProto(
        dim=[TensorShapeProto.Dimension(dim_param="N"), TensorShapeProto.Dimension(dim_value=dim)]
    )
    return ValueInfoProto(
        name=name, type=TypeProto(tensor_type=TypeProto.Tensor(elem_type=TensorProto.FLOAT, shape=shape))
    )


def build(folder: pathlib.Path, layers: int, dim: int) -> dict[str, str]:
    """Write model.onnx + model.onnx.data; returns each weight's SHA-256."""
    rng = np.random.default_rng(2026)
    hashes: dict[str, str] = {}
    initializers = []
    nodes = []
    previous = "x"
    with open(folder / "model.onnx.data", "wb") as data:
        for i in range(layers):
            weight = rng.standard_normal((dim, dim), dtype=np.float32)
            name = f"layer{i}.weight"
            offset = data.tell()
            data.write(weight.data)
            hashes[name] = hashlib.sha256(weight.data).hexdigest()
            initializers.append(
                TensorProto(
                    name=name,
                    dims=[dim, dim],
                    data_type=TensorProto.FLOAT,
                    data_location=TensorProto.DataLocation.EXTERNAL,
                    external_data=[
                        StringStringEntryProto(key="location", value="model.onnx.data"),
                        StringStringEntryProto(key="offset", value=str(offset)),
                        StringStringEntryProto(key="length", value=str(weight.nbytes)),
                    ],
                )
            )
            nodes.append(NodeProto(op_type="MatMul", input=[previous, name], output=[f"h{i}"], name=f"mm{i}"))
            nodes.append(NodeProto(op_type="Relu", input=[f"h{i}"], output=[f"a{i}"], name=f"relu{i}"))
            previous = f"a{i}"
            del weight
    graph = GraphProto(
        name="chain",
        node=nodes,
        initializer=initializers,
        input=[_value("x", dim)],
        output=[_value(previous, dim)],
    )
    model = ModelProto(
        ir_version=10,
        producer_name="bench_huge",
        opset_import=[OperatorSetIdProto(domain="", version=21)],
        graph=graph,
    )
    save(model, folder / "model.onnx")
    return hashes


def measure(label: str, argv: list[str], work: pathlib.Path) -> dict[str, Any]:
    record = work / "measure.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Run from the work directory: ``python -c`` puts the current directory first on sys.path.
    subprocess.run([sys.executable, "-c", WRAPPER, str(record), *argv], env=env, cwd=work, check=True)
    result: dict[str, Any] = json.loads(record.read_text())
    result["step"] = label
    status = "ok" if result["code"] == 0 else f"FAILED (exit {result['code']})"
    print(f"{label:58s} {result['seconds']:7.1f} s {result['peak_mb']:8.0f} MB  {status}", flush=True)
    return result


def python(code: str, *args: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code), *args]


CONVERT = """
import sys, wirecodec
wirecodec.convert(sys.argv[1], sys.argv[2], to=sys.argv[3])
"""

PIPE_STREAM = """
import hashlib, json, sys, wirecodec
from wirecodec.files.stream.events import Initializer, Node
nodes, hashes = 0, {}
for event in wirecodec.stream(sys.stdin.buffer):
    if isinstance(event, Node):
        nodes += 1
    elif isinstance(event, Initializer):
        hashes[event.tensor.name] = hashlib.sha256(event.tensor.read()).hexdigest()
json.dump({"nodes": nodes, "hashes": hashes}, open(sys.argv[1], "w"))
"""

PATH_STREAM = """
import sys, wirecodec
from wirecodec.files.stream.events import Initializer
with wirecodec.stream(sys.argv[1]) as events:
    located = sum(e.tensor.raw_length for e in events if isinstance(e, Initializer))
print(f"    {located} payload bytes located", file=sys.stderr)
"""

HASH_EXTERNAL = """
import hashlib, json, os, sys, wirecodec
from wirecodec.files.base.references import parse_ref
model = wirecodec.load(sys.argv[1], load_external_data=False)
folder = os.path.dirname(sys.argv[1])
hashes = {}
for tensor in model.graph.initializer:
    ref = parse_ref(tensor)
    digest = hashlib.sha256()
    fd = os.open(os.path.join(folder, ref.location), os.O_RDONLY)
    done = 0
    while done < ref.length:
        piece = os.pread(fd, min(1 << 24, ref.length - done), ref.offset + done)
        digest.update(piece)
        done += len(piece)
    os.close(fd)
    hashes[tensor.name] = digest.hexdigest()
json.dump(hashes, open(sys.argv[2], "w"))
"""

ONNX_TO_SINGLE = """
import sys, onnx
onnx.save(onnx.load(sys.argv[1]), sys.argv[2])
"""

ONNX_LOAD = """
import sys, onnx
onnx.load(sys.argv[1])
"""

ONNX_TO_EXTERNAL = """
import sys, onnx
model = onnx.load(sys.argv[1])
onnx.save(
    model, sys.argv[2], save_as_external_data=True, all_tensors_to_one_file=True, location="out.onnx.data"
)
"""


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dir", type=pathlib.Path, help="work directory (default: a fresh temporary one)")
    parser.add_argument("--layers", type=int, default=36)
    parser.add_argument("--dim", type=int, default=4096)
    parser.add_argument("--no-onnx", action="store_true", help="skip the onnx steps")
    parser.add_argument("--keep", action="store_true", help="keep the files")
    args = parser.parse_args()
    work = pathlib.Path(tempfile.mkdtemp(prefix="bench_huge.", dir=args.dir))
    try:
        for name in ("external", "single", "back", "onnx"):
            (work / name).mkdir()
        hashes = build(work / "external", args.layers, args.dim)
        size = (work / "external" / "model.onnx.data").stat().st_size
        print(f"model: {args.layers} weights, {size / 1e9:.2f} GB of float32 in external data ({work})")
        source, single = work / "external" / "model.onnx", work / "single" / "model.onnx"
        back = work / "back" / "model.onnx"
        results = [
            measure(
                "wirecodec convert external -> single",
                python(CONVERT, str(source), str(single), "single"),
                work,
            )
        ]
        print(f"    single file: {single.stat().st_size / 1e9:.2f} GB")
        piped = work / "piped.json"
        code = shlex.quote(textwrap.dedent(PIPE_STREAM))
        reader = f"{shlex.quote(sys.executable)} -c {code} {shlex.quote(str(piped))}"
        pipe = f"cat {shlex.quote(str(single))} | {reader}"
        results.append(measure("wirecodec stream through a pipe (payloads read)", ["sh", "-c", pipe], work))
        results.append(
            measure("wirecodec stream a path (payloads located)", python(PATH_STREAM, str(single)), work)
        )
        results.append(
            measure(
                "wirecodec convert single -> external",
                python(CONVERT, str(single), str(back), "external"),
                work,
            )
        )
        final = work / "final.json"
        results.append(
            measure("hash the final tensors (pread)", python(HASH_EXTERNAL, str(back), str(final)), work)
        )
        seen = json.loads(piped.read_text())
        same_pipe = seen["hashes"] == hashes and seen["nodes"] == 2 * args.layers
        same_final = json.loads(final.read_text()) == hashes
        print(f"    pipe saw {seen['nodes']} nodes; payload hashes match: {same_pipe}")
        print(f"    external -> single -> external: every tensor bit-identical: {same_final}")
        if not args.no_onnx:
            onnx_single = work / "onnx" / "single.onnx"
            results.append(
                measure(
                    "onnx load(external) + save single",
                    python(ONNX_TO_SINGLE, str(source), str(onnx_single)),
                    work,
                )
            )
            results.append(measure("onnx load(single over 2 GiB)", python(ONNX_LOAD, str(single)), work))
            results.append(
                measure(
                    "onnx load(external) + save external",
                    python(ONNX_TO_EXTERNAL, str(source), str(work / "onnx" / "out.onnx")),
                    work,
                )
            )
        print(json.dumps(results))
        return 0 if same_pipe and same_final else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
