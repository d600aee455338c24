"""Print a model, or one field of it, in protobuf text format, JSON or the ONNX textual syntax.

FIELD is a field path as every verb prints them: ``graph.node[3]``,
``graph.initializer[0].dims``, ``opset_import``. Tensor payloads print as protobuf
prints them (``raw_data`` escaped), so ``--format onnx`` is the readable choice for big
models: it writes ``...`` for the data of tensors of more than 16 elements
(``--all-data`` prints them all, as onnx's printer does).

  wirecodec dump model.onnx                   # protobuf text, as str(model)
  wirecodec dump model.onnx --format onnx     # the ONNX textual syntax
  wirecodec dump model.onnx graph.node[3] --format json
"""

from __future__ import annotations

import argparse
from typing import Any, Final

from schema_dsl import Message
from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto
from schema_dsl.text_format import to_str
from wirecodec import printer
from wirecodec.cli.common import UsageError, add_model_argument, open_model
from wirecodec.errors import PathError
from wirecodec.protobuf import fieldpath
from wirecodec.protobuf.json_format import to_json

__all__ = ["HELP", "add_arguments", "field_at", "run"]

HELP = "print a model or one field of it (protobuf text format, JSON, or the ONNX syntax)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "field", nargs="?", default="", metavar="FIELD", help="a field path like graph.node[3] (default: all)"
    )
    parser.add_argument(
        "--all-data", action="store_true", help="with --format onnx: print every tensor element"
    )
    parser.add_argument(
        "--format",
        choices=("text", "json", "onnx"),
        default="text",
        help="text: protobuf text format (default); json: protobuf's JSON; onnx: the ONNX textual syntax",
    )


def field_at(model: ModelProto, path: str) -> Any:
    """The value at ``path`` (``graph.node[3].attribute[0]``); UsageError naming the step that fails."""
    try:
        return fieldpath.resolve(model, path)
    except PathError as exc:
        raise UsageError(str(exc)) from None


_ELIDE_FROM: Final = 16


def _render(value: Any, form: str, all_data: bool = False) -> str:
    if form == "onnx":
        if not isinstance(value, (ModelProto, GraphProto, FunctionProto, NodeProto)):
            raise UsageError("--format onnx prints a model, graph, function or node only")
        limit = None if all_data else _ELIDE_FROM
        return printer.to_text(value, max_elements=limit).rstrip("\n") + "\n"
    if isinstance(value, Message):
        return to_json(value) + "\n" if form == "json" else to_str(value)
    if isinstance(value, list):
        return "".join(_render(item, form, all_data) for item in value)
    if isinstance(value, (bytes, memoryview)):
        return repr(bytes(value)) + "\n"
    return f"{value}\n"


def run(args: argparse.Namespace) -> int:
    opened = open_model(args.model, options=args, load_external_data=False, payloads=False)
    print(_render(field_at(opened.model, args.field), args.format, args.all_data), end="")
    return 0
