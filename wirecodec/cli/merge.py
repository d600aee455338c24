"""Merge two models into one: outputs of A feed inputs of B (onnx.compose.merge_models).

``--io-map OUT:IN`` connects output OUT of A to input IN of B (comma-separated pairs,
or the option repeated; a name holding ``:`` such as ``onnx::Gemm_0`` is split where
the halves name an output of A and an input of B). Names are those of the models as
they are; ``--prefix1``/``--prefix2`` then prefix every name of A or B, which keeps
names both models use apart. Inputs and outputs not connected stay inputs and outputs,
unless ``--inputs``/``--outputs`` name the ones to keep.

The model is onnx.compose.merge_models's, but for one thing: each operator set domain
is imported once (onnx lists a domain both models import twice, which the IR checker
refuses). Any layout reads; OUT ending in ``.onnxz`` writes a zip container.

  wirecodec merge pre.onnx net.onnx all.onnx --io-map image:input --prefix2 n/
  wirecodec merge net.onnx post.onnx all.onnx --io-map logits:x --prefix1 n/
"""

from __future__ import annotations

import argparse
from typing import Final

from schema_dsl.onnx import GraphProto
from wirecodec.cli.common import (
    CliError,
    UsageError,
    add_output_layout_arguments,
    describe_error,
    open_model,
    print_json,
)
from wirecodec.cli.extract import check_summary, names
from wirecodec.cli.progress import Status, status
from wirecodec.compose import check_overlapping_names, dedupe_opset_import, merge_models
from wirecodec.errors import CheckError, GraphError, WireCodecError
from wirecodec.utils import save_like_onnx

__all__ = ["HELP", "add_arguments", "io_map", "run"]

_MODEL = "an .onnx file, an .onnxz container, an https:// URL, or - for standard input"

HELP = "merge two models, outputs of the first feeding inputs of the second (onnx.compose)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", metavar="A", help="the first model (its outputs feed B): " + _MODEL)
    parser.add_argument("second", metavar="B", help="the second model: " + _MODEL)
    parser.add_argument(
        "out", metavar="OUT", help="where to write the merged model (.onnxz: a zip container)"
    )
    parser.add_argument(
        "--io-map", action="append", required=True, metavar="OUT:IN,...", help="outputs of A to inputs of B"
    )
    parser.add_argument("--prefix1", metavar="P", help="prefix every name of A")
    parser.add_argument("--prefix2", metavar="Q", help="prefix every name of B")
    parser.add_argument("--inputs", action="append", metavar="A,B", help="keep only these inputs")
    parser.add_argument("--outputs", action="append", metavar="C,D", help="keep only these outputs")
    parser.add_argument("--name", help="the merged graph's name (default: A's and B's names joined by _)")
    add_output_layout_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print what was written as JSON (docs/cli.md)")


def _pair(text: str, outputs: set[str], inputs: set[str]) -> tuple[str, str]:
    splits = [(text[:i], text[i + 1 :]) for i, char in enumerate(text) if char == ":"]
    if len(splits) == 1:
        return splits[0]
    known = [(out, in_) for out, in_ in splits if out in outputs and in_ in inputs]
    if len(known) == 1:
        return known[0]
    raise UsageError(f"--io-map: cannot read {text!r} as OUT:IN (an output of A, a colon, an input of B)")


def io_map(values: list[str], outputs: set[str], inputs: set[str]) -> list[tuple[str, str]]:
    """``["a:b,c:d"]`` -> ``[("a", "b"), ("c", "d")]``, splitting names with colons where the
    halves are an output of A (``outputs``) and an input of B (``inputs``)."""
    return [_pair(text, outputs, inputs) for text in names(values)]


_NAMED: Final = 5  # names shown of a clash; the rest are counted


def _clash(g1: GraphProto, g2: GraphProto, pairs: list[tuple[str, str]]) -> str | None:
    """One short line for names both graphs use, with the options that keep them apart."""
    overlapping = check_overlapping_names(g1, g2, pairs)
    if not overlapping:
        return None
    parts = []
    for kind, clashing in overlapping:
        shown = ", ".join(map(repr, clashing[:_NAMED]))
        more = f" and {len(clashing) - _NAMED} more" if len(clashing) > _NAMED else ""
        parts.append(f"{len(clashing)} {kind} name{'s' if len(clashing) != 1 else ''} ({shown}{more})")
    return f"both models use {'; '.join(parts)}: --prefix1 P or --prefix2 Q keeps them apart"


def run(args: argparse.Namespace) -> int:
    with status(args) as shown:
        return _merge(args, shown)


def _merge(args: argparse.Namespace, shown: Status) -> int:
    shown(f"opening {args.model}")
    first = open_model(args.model, options=args)
    shown(f"opening {args.second}")
    second = open_model(args.second, options=args)
    pairs = io_map(
        args.io_map, {v.name for v in first.model.graph.output}, {v.name for v in second.model.graph.input}
    )
    try:
        shown("merging and checking")
        merged = merge_models(
            first.model,
            second.model,
            pairs,
            inputs=names(args.inputs) or None,
            outputs=names(args.outputs) or None,
            prefix1=args.prefix1,
            prefix2=args.prefix2,
            name=args.name,
            every_scope=True,
        )
    except CheckError as exc:
        label = f"the merge of {first.label} and {second.label}"
        raise CliError(check_summary(label, exc.violations, written=False)) from None
    except GraphError as exc:
        # compose says which names clash, all of them, in its words: say it short, with our flags.
        clash = _clash(first.model.graph, second.model.graph, pairs) if "both have the" in str(exc) else None
        raise UsageError(f"{first.label} + {second.label}: {clash or exc}") from None
    dedupe_opset_import(merged)
    try:
        shown(f"writing {args.out}")
        save_like_onnx(merged, args.out, external_data=args.external_data)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(args.out, exc)) from None
    graph = merged.graph
    shown.clear()
    if args.json:
        print_json(
            {
                "models": [first.label, second.label],
                "out": str(args.out),
                "nodes": len(graph.node),
                "initializers": len(graph.initializer),
                "inputs": [v.name for v in graph.input],
                "outputs": [v.name for v in graph.output],
            }
        )
        return 0
    print(
        f"wrote {args.out}: {len(graph.node)} nodes; inputs {', '.join(v.name for v in graph.input)}; "
        f"outputs {', '.join(v.name for v in graph.output)}"
    )
    return 0
