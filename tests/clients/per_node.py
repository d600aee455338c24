"""The per-node inference loop of onnxslim and onnxruntime's symbolic shape inference, timed on
onnx and on wirecodec.onnx_compat in one process: for each node of a model whose input types
are known, ``helper.make_graph([node], ...)``, ``helper.make_model``,
``shape_inference.infer_shapes`` and ``ValueInfoProto().CopyFrom(output)``, twice over.

``python -m tests.clients.per_node MODEL [--side onnx|wirecodec]`` prints the CPU seconds of
each step (``time.process_time``; other processes on the cores disturb it less than the
wall clock). This is where the two libraries' tasks in the client tier spend most of the
time their shim run takes beyond onnx's (docs/coming-from-onnx.md, LEAD-NOTES of compat6).
"""

from __future__ import annotations

import argparse
import importlib
import time
from typing import Any


def _module(side: str) -> Any:
    return importlib.import_module("onnx" if side == "onnx" else "wirecodec.onnx_compat")


def loop(onnx: Any, path: str, rounds: int = 2) -> dict[str, float]:
    """CPU seconds of each step of the loop over the nodes of the model at ``path``."""
    helper = onnx.helper
    model = onnx.load(path, load_external_data=False)
    graph = model.graph
    known = {v.name: v for v in (*graph.input, *graph.value_info)}
    stored = {t.name: t for t in graph.initializer}
    for info in onnx.shape_inference.infer_shapes(model).graph.value_info:
        known[info.name] = info
    nodes = [n for n in graph.node if all(not i or i in known or i in stored for i in n.input)]
    spent = {"make_graph": 0.0, "make_model": 0.0, "infer_shapes": 0.0, "CopyFrom": 0.0}
    for _ in range(rounds):
        for node in nodes:
            start = time.process_time()
            tmp = helper.make_graph(
                [node],
                "tmp",
                [known[i] for i in node.input if i in known],
                [helper.make_empty_tensor_value_info(o) for o in node.output],
                [stored[i] for i in node.input if i in stored and node.op_type in ("Unsqueeze", "Reshape")],
            )
            made = time.process_time()
            one = helper.make_model(tmp, opset_imports=model.opset_import, ir_version=model.ir_version)
            modelled = time.process_time()
            inferred = onnx.shape_inference.infer_shapes(one)
            done = time.process_time()
            onnx.ValueInfoProto().CopyFrom(inferred.graph.output[0])
            copied = time.process_time()
            spent["make_graph"] += made - start
            spent["make_model"] += modelled - made
            spent["infer_shapes"] += done - modelled
            spent["CopyFrom"] += copied - done
    spent["nodes"] = float(len(nodes) * rounds)
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--side", choices=("onnx", "wirecodec", "both"), default="both")
    args = parser.parse_args(argv)
    sides = ("onnx", "wirecodec") if args.side == "both" else (args.side,)
    for side in sides:
        spent = loop(_module(side), args.model)
        calls = int(spent.pop("nodes"))
        steps = "  ".join(f"{k} {v:.3f}s" for k, v in spent.items())
        print(f"{side:10} {calls} calls  {steps}  total {sum(spent.values()):.3f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
