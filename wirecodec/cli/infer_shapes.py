"""Infer the types and shapes of every value of a model, and save it with them.

The model keeps its layout, not its files: a model with external data is written with
its weights copied (file to file, from maps of the data files) into a new data file
beside OUT (``OUT.data``); the source's data files are left as they are. A .onnxz
container is written as one. Unknown axes get fresh symbols (unk__0, ...) as onnx names
them.

    wirecodec infer-shapes model.onnx inferred.onnx
    wirecodec infer-shapes big.onnx big-inferred.onnx --data-prop
"""

from __future__ import annotations

import argparse

from wirecodec.cli.common import CliError, describe_error, open_model
from wirecodec.errors import WireCodecError
from wirecodec.files.save import save
from wirecodec.files.zip.container import save_zip
from wirecodec.shape_inference import infer_shapes

HELP = "infer the types and shapes of every value and save the model with them"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="IN", help="the model: .onnx, .onnxz, a URL, or - for standard input"
    )
    parser.add_argument("output", metavar="OUT", help="where to write the model with its inferred types")
    parser.add_argument("--strict", action="store_true", help="fail on the first node whose inference fails")
    parser.add_argument(
        "--data-prop", action="store_true", help="compute small integer tensors (shapes) to size more axes"
    )


def run(args: argparse.Namespace) -> int:
    opened = open_model(args.model, load_external_data=False)
    external = opened.layout == "external"
    to_zip = opened.layout == "zip" or str(args.output).endswith(".onnxz")
    try:
        inferred = infer_shapes(opened.model, strict_mode=args.strict, data_prop=args.data_prop)
        # Saving copies the weights from mapped views of their files or entries.
        opened.model = inferred
        opened.resolve_external()
        if to_zip:
            save_zip(inferred, args.output)
        else:
            save(inferred, args.output, external_data=external)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(opened.label, exc)) from None
    typed = len(inferred.graph.value_info)
    print(
        f"wrote {args.output}: {typed} intermediate values typed"
        + (" (with external data)" if external else "")
    )
    return 0
