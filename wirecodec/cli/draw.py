"""Draw a model's graph: Graphviz DOT text, or SVG/PNG through Graphviz's ``dot``.

Operators show op_type, name and their short attributes; edges the tensor types and
shapes the graph declares; initializers and Constant values are small grey boxes; If,
Loop and Scan bodies are clusters. A large graph is drawn around a node or tensor
(``--around NAME --depth K``; NAME may be in the main graph or in a body at any depth,
and then that body is drawn around it) and cut at ``--max-nodes`` operators (default
500): the main graph's own nodes come first, so its inputs, outputs and top-level nodes
are always drawn; an If/Loop/Scan body that no longer fits is collapsed into its node's
box, saying how many nodes it holds (``--expand-bodies`` draws every body). A note says
what was left out. MODEL may be a URL. The format follows OUT's suffix (``.dot``, ``.svg``,
``.png``); without ``-o`` the DOT text goes to standard output. SVG and PNG need
Graphviz (``apt-get install graphviz``).

  wirecodec draw model.onnx -o model.svg
  wirecodec draw model.onnx -o block.png --around /layer.3/MatMul --depth 4
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from wirecodec.cli.common import CliError, UsageError, open_model, print_json
from wirecodec.cli.progress import Status, status
from wirecodec.errors import GraphError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.graphs.draw import DEFAULT_MAX_NODES, FORMATS, render, to_dot

__all__ = ["HELP", "add_arguments", "run"]

HELP = "draw the graph as Graphviz DOT, SVG or PNG"


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return int(text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="an .onnx file, an .onnxz container, an https:// URL, or - for standard input",
    )
    parser.add_argument(
        "-o", "--output", metavar="OUT", help="out.dot, out.svg or out.png (default: DOT to stdout)"
    )
    parser.add_argument("--around", metavar="NAME", help="draw only the nodes near this node or tensor")
    parser.add_argument(
        "--depth", type=int, default=2, metavar="K", help="with --around: edges to follow (default 2)"
    )
    parser.add_argument(
        "--max-nodes",
        type=_positive,
        default=DEFAULT_MAX_NODES,
        metavar="N",
        help=f"draw at most N operators (default {DEFAULT_MAX_NODES}); bodies past it are collapsed",
    )
    parser.add_argument(
        "--expand-bodies",
        action="store_true",
        help="draw every If/Loop/Scan body, however many nodes (default: collapse those past --max-nodes)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print what was drawn as JSON, the DOT text in it without -o"
    )


def run(args: argparse.Namespace) -> int:
    fmt = "dot"
    if args.output is not None:
        fmt = pathlib.Path(args.output).suffix.lstrip(".").lower()
        if fmt not in FORMATS:
            raise UsageError(f"{args.output}: the name must end in .dot, .svg or .png")
    if args.depth < 0:
        raise UsageError(f"--depth: expected 0 or more, got {args.depth}")
    with status(args) as shown:
        return _draw(args, fmt, shown)


def _draw(args: argparse.Namespace, fmt: str, shown: Status) -> int:
    shown(f"opening {args.model}")
    opened = open_model(args.model, options=args)
    try:
        shown("laying out the graph")
        text = to_dot(
            opened.model,
            around=args.around,
            depth=args.depth,
            max_nodes=args.max_nodes,
            expand_bodies=args.expand_bodies,
        )
    except GraphError as exc:
        raise UsageError(f"{opened.label}: {exc}") from None
    shown.clear()
    if args.output is None:
        if args.json:
            print_json(
                {
                    "model": opened.label,
                    "output": None,
                    "format": "dot",
                    "bytes": len(text.encode()),
                    "dot": text,
                }
            )
        else:
            sys.stdout.write(text)
        return 0
    try:
        if fmt != "dot":
            shown(f"rendering {fmt.upper()} with Graphviz")
        data = text.encode() if fmt == "dot" else render(text, fmt)
    except OSError as exc:
        raise CliError(str(exc)) from None
    with AtomicFiles() as group:
        with group.open(args.output) as out:
            out.write(data)
        group.commit()
    shown.clear()
    if args.json:
        print_json({"model": opened.label, "output": args.output, "format": fmt, "bytes": len(data)})
    else:
        print(f"wrote {args.output} ({len(data)} bytes)")
    return 0
