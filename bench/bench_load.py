"""Open a large model and get every initializer as numpy: wirecodec vs onnx vs onnx-ir.

    python bench/bench_load.py [--mb 537] [--external]

The model is written by onnx (``onnx.save``, or with ``save_as_external_data`` for
``--external``) from random float32 tensors of about 4 MB each, like a PyTorch export.
Each library runs in its own fresh subprocess, so peak RSS (``ru_maxrss``) is its own;
the time is open + every initializer as an array, inside that process. The page cache
is dropped for the files before each run where the OS allows it, so the first run is
not penalised for reading from disk.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

# (imports, timed body) per library: imports happen before the clock starts.
CHILD = {
    "onnx": (
        "import onnx\nfrom onnx import numpy_helper",
        """
        model = onnx.load(PATH)
        arrays = [numpy_helper.to_array(t) for t in model.graph.initializer]
        """,
    ),
    "wirecodec": (
        "import wirecodec",
        """
        model = wirecodec.load(PATH)
        arrays = [wirecodec.to_array(t) for t in model.graph.initializer]
        """,
    ),
    "onnx_ir": (
        "import onnx_ir as ir",
        """
        model = ir.load(PATH)
        arrays = [v.const_value.numpy() for v in model.graph.initializers.values()]
        """,
    ),
}

RUNNER = """
import json, resource, sys, time
{imports}
PATH = sys.argv[1]
start = time.perf_counter()
{body}
elapsed = time.perf_counter() - start
# Memory is read before the checksum below touches any data: the measurement is
# "open and get every initializer as an array", not "read every array".
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
anon_mb = int(status.get("RssAnon", "0 kB").split()[0]) / 1024
file_mb = int(status.get("RssFile", "0 kB").split()[0]) / 1024
# Two elements per tensor: enough to prove the libraries read the same data.
checksum = float(sum(float(a.reshape(-1)[0]) + float(a.reshape(-1)[-1]) for a in arrays))
print(json.dumps({{"seconds": elapsed, "peak_mb": peak_mb, "anon_mb": anon_mb, "file_mb": file_mb,
                  "tensors": len(arrays), "bytes": sum(a.nbytes for a in arrays), "checksum": checksum}}))
"""


def build(path: pathlib.Path, megabytes: int, external: bool) -> None:
    import onnx
    from onnx import helper, numpy_helper

    rng = np.random.default_rng(0)
    tensors = []
    remaining = megabytes * 1_000_000
    i = 0
    while remaining > 0:
        count = min(1_000_000, remaining // 4) or 1
        tensors.append(numpy_helper.from_array(rng.standard_normal(count).astype(np.float32), f"w{i}"))
        remaining -= 4 * count
        i += 1
    nodes = [helper.make_node("Identity", [t.name], [f"out{k}"]) for k, t in enumerate(tensors)]
    outputs = [
        helper.make_tensor_value_info(f"out{k}", onnx.TensorProto.FLOAT, None) for k in range(len(tensors))
    ]
    graph = helper.make_graph(nodes, "weights", [], outputs, initializer=tensors)
    model = helper.make_model(graph)
    if external:
        onnx.save_model(model, str(path), save_as_external_data=True, location=path.name + ".data")
    else:
        onnx.save(model, str(path))


def drop_cache(folder: pathlib.Path) -> None:
    for file in folder.iterdir():
        fd = os.open(file, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def warm_cache(folder: pathlib.Path) -> None:
    for file in folder.iterdir():
        with file.open("rb") as f:
            while f.read(1 << 24):
                pass


def run(library: str, path: pathlib.Path, cache: str) -> dict[str, float] | None:
    if library == "onnx_ir":
        try:
            import onnx_ir  # noqa: F401
        except ImportError:
            return None
    imports, body = CHILD[library]
    code = RUNNER.format(imports=imports, body=textwrap.dedent(body))
    if cache == "cold":
        drop_cache(path.parent)
    else:
        warm_cache(path.parent)
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=537)
    parser.add_argument("--external", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--build-only", type=pathlib.Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_only:
        build(args.build_only, args.mb, args.external)
        return
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "model.onnx"
        # Built in a child: ru_maxrss survives exec, so this process must stay small.
        command = [sys.executable, __file__, "--mb", str(args.mb), "--build-only", str(path)]
        subprocess.run(command + (["--external"] if args.external else []), check=True)
        size = sum(p.stat().st_size for p in pathlib.Path(folder).iterdir())
        for cache in ("warm", "cold"):
            report(path, size, cache, args)


def report(path: pathlib.Path, size: int, cache: str, args: argparse.Namespace) -> None:
    results = {}
    for library in CHILD:
        runs = [run(library, path, cache) for _ in range(args.repeat)]
        measured = [r for r in runs if r is not None]
        if not measured:
            continue
        results[library] = {
            "seconds": min(r["seconds"] for r in measured),
            "peak_mb": min(r["peak_mb"] for r in measured),
            "anon_mb": min(r["anon_mb"] for r in measured),
            "file_mb": min(r["file_mb"] for r in measured),
            "checksum": measured[0]["checksum"],
            "tensors": measured[0]["tensors"],
        }
    sums = {round(r["checksum"], 3) for r in results.values()}
    assert len(sums) == 1, f"libraries disagree on the data: {results}"
    kind = "external data" if args.external else "single file"
    base = results["onnx"]
    print(
        f"# open + every initializer as numpy: {size / 1e6:.0f} MB model ({kind}), "
        f"{int(base['tensors'])} tensors, {cache} page cache, best of {args.repeat}, fresh process each"
    )
    print(
        "| library | seconds | peak RSS (MB) | RSS at end: anonymous / file-backed (MB) "
        "| time vs onnx | peak RSS vs onnx |"
    )
    print("|---|---|---|---|---|---|")
    for library, r in results.items():
        print(
            f"| {library} | {r['seconds']:.4f} | {r['peak_mb']:.0f} | "
            f"{r['anon_mb']:.0f} / {r['file_mb']:.0f} | "
            f"{r['seconds'] / base['seconds']:.4f}× | {r['peak_mb'] / base['peak_mb']:.3f}× |"
        )


if __name__ == "__main__":
    main()
