"""Infer the types and shapes of every value of a model, and save it with them.

The model keeps its layout: written beside MODEL (OUT may be MODEL), its external data
files stay as they are, never read, and only OUT is written; written to another
directory, the external tensors are copied to OUT.data there. No file is deleted.
A .onnxz container (or an OUT ending in .onnxz) is written as one. Unknown axes get
fresh symbols (unk__0, ...) as onnx names them. ``--json`` prints what was written
(docs/cli.md has the keys).

    wirecodec infer-shapes model.onnx inferred.onnx
    wirecodec infer-shapes big.onnx big-inferred.onnx --data-prop
"""

from __future__ import annotations

import argparse

from wirecodec.cli.common import CliError, describe_error, open_model, print_json
from wirecodec.cli.progress import status
from wirecodec.errors import WireCodecError
from wirecodec.files.writeback import where_data_went, write_back
from wirecodec.shape_inference import infer_shapes

HELP = "infer the types and shapes of every value and save the model with them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="IN", help="the model: .onnx, .onnxz, a URL, or - for standard input"
    )
    parser.add_argument(
        "output",
        metavar="OUT",
        help="where to write the model with its inferred types (may be IN: external data then "
        "stays as it is and only OUT is written)",
    )
    parser.add_argument("--strict", action="store_true", help="fail on the first node whose inference fails")
    parser.add_argument(
        "--data-prop", action="store_true", help="compute small integer tensors (shapes) to size more axes"
    )
    parser.add_argument("--json", action="store_true", help="print what was written as JSON (docs/cli.md)")


def run(args: argparse.Namespace) -> int:
    with status(args) as shown:
        shown(f"opening {args.model}")
        opened = open_model(args.model, options=args, load_external_data=False)
        to_zip = opened.layout == "zip" or str(args.output).endswith(".onnxz")
        try:
            shown(f"inferring shapes of {len(opened.model.graph.node)} nodes")
            inferred = infer_shapes(opened.model, strict_mode=args.strict, data_prop=args.data_prop)
            shown(f"writing {args.output}")
            # The one write-back: references that still resolve from OUT are kept, unread.
            layout = "zip" if to_zip else opened.layout
            written = write_back(inferred, args.output, layout, source=opened.data, move_inline=False)
        except (WireCodecError, OSError) as exc:
            raise CliError(describe_error(opened.label, exc)) from None
    typed = len(inferred.graph.value_info)
    if args.json:
        print_json(
            {
                "model": opened.label,
                "out": str(args.output),
                "bytes": written.path.stat().st_size,
                "layout": "zip" if to_zip else opened.layout,
                "nodes": len(inferred.graph.node),
                "values_typed": typed,
                "values_typed_before": len(opened.model.graph.value_info),
                "data_files_written": list(written.data_files),
                "data_files_kept": list(written.kept),
            }
        )
    else:
        print(f"wrote {args.output}: {typed} intermediate values typed" + where_data_went(written))
    return 0
