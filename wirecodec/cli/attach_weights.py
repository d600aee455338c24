"""Make a model's tensors refer to their bytes in a safetensors file, matched by name.

Each initializer of MODEL that WEIGHTS names (with the same element type and shape; a
difference is an error) becomes a reference into WEIGHTS, and the result is written to
OUT, so one copy of the weights serves PyTorch and onnxruntime. WEIGHTS may be a
``.safetensors`` file or a sharded checkpoint's ``.safetensors.index.json``; it must be
in OUT's directory or below it. Tensors WEIGHTS does not name stay in OUT.

    wirecodec attach-weights model.onnx model.safetensors model.st.onnx
    wirecodec attach-weights m.onnx m.safetensors.index.json out.onnx --verify
"""

from __future__ import annotations

import argparse
import pathlib

from wirecodec.cli.common import CliError, add_model_argument, describe_error, open_model
from wirecodec.errors import WireCodecError
from wirecodec.files.safetensors.attach import attach
from wirecodec.files.save import save

HELP = "point a model's tensors into a safetensors file by name (one copy of the weights)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument("weights", metavar="WEIGHTS", type=pathlib.Path, help=".safetensors or .index.json")
    parser.add_argument("out", metavar="OUT", type=pathlib.Path, help="where to write the model")
    parser.add_argument(
        "--convert-attribute",
        action="store_true",
        help="also attach attribute tensors (Constant nodes) that WEIGHTS names",
    )
    parser.add_argument(
        "--verify",
        action="store_true",
        help="also check that the tensors MODEL holds have the same bytes as in WEIGHTS",
    )
    parser.add_argument(
        "--require-all",
        action="store_true",
        help="fail unless WEIGHTS names every initializer",
    )


def _count(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def run(args: argparse.Namespace) -> int:
    opened = open_model(args.model, options=args)
    result = attach(
        opened.model,
        args.weights,
        model_dir=args.out.parent,
        convert_attribute=args.convert_attribute,
        require_all=args.require_all,
        verify=args.verify,
    )
    try:
        save(result.model, args.out)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(str(args.out), exc)) from None
    line = f"{args.out}: {_count(len(result.attached), 'tensor', 'tensors')} in {args.weights.name}"
    if result.kept:
        line += f", {_count(len(result.kept), 'tensor', 'tensors')} kept in the model"
    if result.unused:
        line += f"; {_count(len(result.unused), 'entry', 'entries')} of the weights unused"
    print(line)
    return 0
