"""Cut a subgraph out of a model: the nodes that compute OUTPUTS from INPUTS, as a new model.

What ``onnx.utils.extract_model`` does, with the same result (onnx's bytes), on any
layout: a single file of any size, external data (only the kept tensors are read and
copied) or an ``.onnxz`` container. Names are tensor names, comma-separated or given
by repeating the option; without ``--inputs`` the cut starts at the model's inputs,
without ``--outputs`` it ends at the model's outputs. A tensor the cut starts or ends at
needs a type: by default every value's type is inferred first (wirecodec's shape
inference, as ``onnx.utils.extract_model`` runs onnx's; no weight is read for it), so any
value inference can type will do; with ``--no-infer-shapes``, only an input, an output or
a ``value_info`` entry of the graph. ``--json`` prints what was written: ``{"model", "out", "nodes",
"source_nodes", "initializers", "inputs", "outputs"}``.

  wirecodec extract model.onnx head.onnx --outputs /encoder/layer.0/Add_output_0
  wirecodec extract model.onnx block.onnx --inputs a,b --outputs c
  wirecodec extract big.onnxz part.onnx --inputs x --outputs y --external-data
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Final

from schema_dsl.onnx import ModelProto
from wirecodec.checker.violation import Violation
from wirecodec.cli.common import (
    CliError,
    UsageError,
    add_output_layout_arguments,
    describe_error,
    open_model,
    print_json,
)
from wirecodec.cli.progress import Status, status
from wirecodec.errors import CheckError, GraphError, WireCodecError
from wirecodec.graphs.subgraph import extract
from wirecodec.shape_inference._types import InferenceError
from wirecodec.utils import save_like_onnx

__all__ = ["HELP", "add_arguments", "check_summary", "names", "run"]

HELP = "cut the subgraph between tensor names into a new model (onnx.utils.extract_model)"


def names(values: list[str] | None) -> list[str]:
    """``["a,b", "c"]`` -> ``["a", "b", "c"]``: names from repeated, comma-separated options."""
    return [name for value in values or () for name in value.split(",") if name]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="an .onnx file, an .onnxz container, an https:// URL, or - for standard input",
    )
    parser.add_argument("out", metavar="OUT", help="where to write the new model (.onnxz: a zip container)")
    parser.add_argument("--inputs", action="append", metavar="A,B", help="tensors the cut starts at")
    parser.add_argument("--outputs", action="append", metavar="C,D", help="tensors the cut ends at")
    add_output_layout_arguments(parser)
    parser.add_argument("--no-check", action="store_true", help="do not check the source and the result")
    parser.add_argument(
        "--no-infer-shapes",
        action="store_true",
        help="take the types the model records only (default: infer every value's type first, "
        "as onnx.utils.extract_model does; no weight is read for it)",
    )
    parser.add_argument("--json", action="store_true", help="print what was written as JSON (docs/cli.md)")


def _summary(model: ModelProto, source: ModelProto) -> str:
    graph = model.graph
    weights = sum(len(tensor.raw_data) for tensor in graph.initializer)
    return (
        f"{len(graph.node)} of {len(source.graph.node)} nodes, {len(graph.initializer)} initializers "
        f"({weights} bytes of raw data); inputs {', '.join(v.name for v in graph.input)}; "
        f"outputs {', '.join(v.name for v in graph.output)}"
    )


_SHOWN: Final = 3  # violations named in the one message; `wirecodec check` lists them all


def check_summary(label: str, found: Sequence[Violation], *, written: bool = True) -> str:
    """One line and a few: how many violations, the first of them, and what to do.

    ``label`` names a model file the user has (extract's source); ``written=False`` when it
    names a result never written (merge's): no command to run on it, no --no-check."""
    count = len(found)
    lines = [f"{label}: fails the IR check ({count} violation{'s' if count != 1 else ''}); the first:"]
    lines += [f"  {violation}" for violation in found[:_SHOWN]]
    if count > _SHOWN:
        listing = f" (wirecodec check {label} lists them all)" if written else ""
        lines.append(f"  ... and {count - _SHOWN} more{listing}")
    if not written:
        return "\n".join(lines)
    hints = ["--no-check cuts it anyway"]
    if any(violation.rule == "topological-order" for violation in found):
        hints.insert(0, f"wirecodec edit {label} -o sorted.onnx --toposort puts the nodes in order")
    lines.append("  hint: " + "; ".join(hints))
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    inputs, outputs = names(args.inputs), names(args.outputs)
    if not inputs and not outputs:
        raise UsageError("give --inputs, --outputs or both (the tensor names the cut starts and ends at)")
    with status(args) as shown:
        return _extract(args, inputs, outputs, shown)


def _extract(args: argparse.Namespace, inputs: list[str], outputs: list[str], shown: Status) -> int:
    shown(f"opening {args.model}")
    opened = open_model(args.model, options=args)
    model = opened.model
    graph = model.graph
    if not inputs:
        initializers = {tensor.name for tensor in graph.initializer}
        inputs = [value.name for value in graph.input if value.name not in initializers]
    if not outputs:
        outputs = [value.name for value in graph.output]
    try:
        if not args.no_infer_shapes:
            from wirecodec.shape_inference import infer_shapes  # only when used

            shown("inferring shapes")
            model = infer_shapes(model)
        shown("cutting" + ("" if args.no_check else " and checking"))
        cut = extract(model, inputs, outputs, check_model=not args.no_check)
    except (GraphError, InferenceError) as exc:
        raise UsageError(f"{opened.label}: {exc}") from None
    except CheckError as exc:
        raise CliError(check_summary(opened.label, exc.violations)) from None
    try:
        shown(f"writing {args.out}")
        save_like_onnx(cut, args.out, external_data=args.external_data)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(args.out, exc)) from None
    shown.clear()
    if args.json:
        graph = cut.graph
        print_json(
            {
                "model": opened.label,
                "out": str(args.out),
                "nodes": len(graph.node),
                "source_nodes": len(opened.model.graph.node),
                "initializers": len(graph.initializer),
                "inputs": [v.name for v in graph.input],
                "outputs": [v.name for v in graph.output],
            }
        )
    else:
        print(f"wrote {args.out}: {_summary(cut, opened.model)}")
    return 0
