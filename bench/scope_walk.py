"""The tools that take their scopes from the one scope walk, on a long graph with many bodies.

A 20,000-node graph whose every tenth node is an If with two one-node branches (4,000
bodies, 4,001 graphs) that read the previous value from the enclosing graph: the
checker's names rule, the whole checker (``violations``), shape inference, draw (all
bodies expanded) and extract. Prints the best of ``--repeat`` runs of each, in seconds.

    PYTHONPATH=$PWD python bench/scope_walk.py [--nodes 20000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from schema_dsl.onnx import GraphProto, ModelProto, TensorProto
from wirecodec import helper

F = TensorProto.FLOAT


def _branch(reads: str, out: str) -> GraphProto:
    return helper.make_graph(
        [helper.make_node("Identity", [reads], [out])], "b", [], [helper.make_tensor_value_info(out, F, [1])]
    )


def build(count: int) -> ModelProto:
    nodes = []
    previous = "x"
    for i in range(count):
        if i % 10 == 0:
            then, other = _branch(previous, f"t{i}"), _branch(previous, f"e{i}")
            nodes.append(helper.make_node("If", ["c"], [f"v{i}"], then_branch=then, else_branch=other))
        else:
            nodes.append(helper.make_node("Relu", [previous], [f"v{i}"]))
        previous = f"v{i}"
    inputs = [
        helper.make_tensor_value_info("x", F, [1]),
        helper.make_tensor_value_info("c", TensorProto.BOOL, []),
    ]
    graph = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(previous, F, [1])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _best(repeat: int, run: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from wirecodec.checker import violations
    from wirecodec.checker.names import check_names
    from wirecodec.checker.violation import Report
    from wirecodec.graphs.draw import to_dot
    from wirecodec.graphs.subgraph import Extractor
    from wirecodec.shape_inference import infer_shapes

    model = build(args.nodes)
    last = model.graph.output[0].name
    model.graph.value_info.append(helper.make_tensor_value_info(f"v{args.nodes // 2}", F, [1]))
    rows = {
        "checker names rule": lambda: check_names(model, Report()),
        "checker (violations)": lambda: violations(model),
        "infer_shapes": lambda: infer_shapes(model),
        "draw, bodies expanded": lambda: to_dot(model, max_nodes=10**9, expand_bodies=True),
        "extract, second half": lambda: Extractor(model).extract_model([f"v{args.nodes // 2}"], [last]),
    }
    for name, run in rows.items():
        print(f"{name:24} {_best(args.repeat, run):7.3f} s")


if __name__ == "__main__":
    main()
