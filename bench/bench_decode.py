"""Side-by-side: open a large generated model and walk all of it, wirecodec vs onnx (upb).

    python bench/bench_decode.py [--nodes 100000] [--repeat 5]

The model is built with onnx.helper (the reference) so neither side wrote the bytes it
reads. "Walk" touches every node's op_type, inputs, outputs and every attribute's name
and value, and every initializer's dims and payload length: the same code for both,
since our classes read like onnx's. Reported: best-of-N seconds and the ratio.
"""

from __future__ import annotations

import argparse
import gc
import platform
import time
from collections.abc import Callable
from typing import Any

import onnx
from onnx import TensorProto, helper

import wirecodec
from schema_dsl.onnx import ModelProto


def build_model(nodes: int) -> bytes:
    graph_nodes = []
    prev = "x"
    for i in range(nodes):
        out = f"t{i}"
        if i % 3 == 0:
            graph_nodes.append(helper.make_node("Relu", [prev], [out], name=f"relu_{i}"))
        elif i % 3 == 1:
            graph_nodes.append(
                helper.make_node("Add", [prev, "bias"], [out], name=f"add_{i}")
            )
        else:
            graph_nodes.append(
                helper.make_node("LeakyRelu", [prev], [out], name=f"lrelu_{i}", alpha=0.1)
            )
        prev = out
    graph = helper.make_graph(
        graph_nodes,
        "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
        [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 16])],
        initializer=[helper.make_tensor("bias", TensorProto.FLOAT, [16], [0.5] * 16)],
    )
    model = helper.make_model(graph, producer_name="bench")
    return model.SerializeToString()


def walk(model: Any) -> int:
    touched = 0
    graph = model.graph
    for node in graph.node:
        touched += len(node.op_type) + len(node.name)
        for name in node.input:
            touched += len(name)
        for name in node.output:
            touched += len(name)
        for attr in node.attribute:
            touched += len(attr.name) + attr.type
            touched += int(attr.f) + attr.i + len(attr.ints)
    for tensor in graph.initializer:
        touched += len(tensor.dims) + len(tensor.raw_data) + len(tensor.float_data)
    for value in list(graph.input) + list(graph.output):
        touched += len(value.type.tensor_type.shape.dim)
    return touched


def best_of(repeat: int, fn: Callable[[], int]) -> tuple[float, int]:
    times = []
    result = 0
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    data = build_model(args.nodes)

    def with_onnx() -> int:
        return walk(onnx.load_from_string(data))

    def with_onnx_parse_only() -> int:
        onnx.load_from_string(data)
        return 0

    def with_wirecodec() -> int:
        return walk(wirecodec.decode(ModelProto, data))

    def with_wirecodec_decode_only() -> int:
        wirecodec.decode(ModelProto, data)
        return 0

    with_wirecodec()  # compile the codec once, as any long-running user would
    t_onnx, r_onnx = best_of(args.repeat, with_onnx)
    t_ours, r_ours = best_of(args.repeat, with_wirecodec)
    assert r_onnx == r_ours, (r_onnx, r_ours)
    t_onnx_parse, _ = best_of(args.repeat, with_onnx_parse_only)
    t_ours_decode, _ = best_of(args.repeat, with_wirecodec_decode_only)

    print(f"# decode + full walk of a {args.nodes:,}-node model ({len(data) / 1e6:.1f} MB)")
    print(f"# python {platform.python_version()}, onnx {onnx.__version__}, best of {args.repeat}")
    print("| what | onnx.load (upb) | wirecodec | ratio (wirecodec / onnx) |")
    print("|---|---|---|---|")
    print(f"| decode + walk | {t_onnx:.3f} s | {t_ours:.3f} s | {t_ours / t_onnx:.2f}× |")
    ratio = t_ours_decode / t_onnx_parse
    print(f"| decode only | {t_onnx_parse:.3f} s | {t_ours_decode:.3f} s | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
