"""Convert a model to another opset version of the default domain (ai.onnx), up or down.

Each node is adapted as onnx's version converter adapts it (attributes made inputs and
back, attributes set or dropped, element types checked); the model's types are inferred
as onnx's converter infers them. The model keeps its layout: external data stays where
it is: with the output beside the model, the weights are neither read nor copied (the
references are written as they were); elsewhere they are copied beside it. A node
that cannot be converted stops the verb with its path and what to do; nothing is
written then. The graph is held in memory, the weights are not.

    wirecodec convert-opset model.onnx model-opset21.onnx --to-opset 21
    wirecodec convert-opset big.onnx big-18.onnx --to-opset 18
"""

from __future__ import annotations

import argparse
import os

from wirecodec.cli.common import CliError, describe_error, open_model
from wirecodec.errors import WireCodecError
from wirecodec.files.save import save
from wirecodec.files.zip.container import save_zip

HELP = "convert a model to another ai.onnx opset version (as onnx's version converter)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="IN", help="the model: .onnx, .onnxz, a URL, or - for standard input"
    )
    parser.add_argument("output", metavar="OUT", help="where to write the converted model")
    parser.add_argument(
        "--to-opset", type=int, required=True, metavar="N", help="the ai.onnx opset version to convert to"
    )


def run(args: argparse.Namespace) -> int:
    from wirecodec.version_converter import convert_version

    opened = open_model(args.model, options=args, load_external_data=False)
    external = opened.layout == "external"
    to_zip = opened.layout == "zip" or str(args.output).endswith(".onnxz")
    before = next((o.version for o in opened.model.opset_import if o.domain in ("", "ai.onnx")), None)
    try:
        converted = convert_version(opened.model, args.to_opset)
        opened.model = converted
        if external and not to_zip and _same_folder(args.model, args.output):
            # The references still resolve from the output: written as they were, data unread.
            save(converted, args.output)
        else:
            opened.resolve_external()
            if to_zip:
                save_zip(converted, args.output)
            else:
                save(converted, args.output, external_data=external)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(opened.label, exc)) from None
    print(
        f"wrote {args.output}: opset {before} -> {args.to_opset}, {len(converted.graph.node)} nodes"
        + (" (with external data)" if external else "")
    )
    return 0


def _same_folder(model: str, output: str) -> bool:
    return os.path.dirname(os.path.abspath(model)) == os.path.dirname(os.path.abspath(output))
