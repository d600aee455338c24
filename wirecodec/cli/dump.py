"""Print a model, or one field of it, in protobuf text format, JSON or the ONNX textual syntax.

FIELD is a path from the model, as other verbs print them: ``graph.node[3]``,
``graph.initializer[0].dims``, ``opset_import``. Tensor payloads print as protobuf
prints them (``raw_data`` escaped), so ``--format onnx`` is the readable choice for big
models: it writes ``...`` for tensor data.

  wirecodec dump model.onnx                       # protobuf text format, as str(model)
  wirecodec dump model.onnx --format onnx         # <ir_version: ...> graph (...) => (...) {...}
  wirecodec dump model.onnx graph.node[3] --format json
"""

from __future__ import annotations

import argparse
import re
from typing import Any

from schema_dsl import Message
from schema_dsl.onnx import FunctionProto, GraphProto, ModelProto, NodeProto
from schema_dsl.text_format import to_str
from wirecodec import printer
from wirecodec.cli.common import UsageError, open_model
from wirecodec.protobuf.json_format import to_json

__all__ = ["HELP", "add_arguments", "field_at", "run"]

HELP = "print a model or one field of it (protobuf text format, JSON, or the ONNX syntax)"

_STEP = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[(-?\d+)\])?")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", help="an .onnx file, or - for standard input")
    parser.add_argument("field", nargs="?", default="", help="a field path like graph.node[3] (default: all)")
    parser.add_argument(
        "--format",
        choices=("text", "json", "onnx"),
        default="text",
        help="text: protobuf text format (default); json: protobuf's JSON; onnx: the ONNX textual syntax",
    )


def field_at(model: ModelProto, path: str) -> Any:
    """The value at ``path`` (``graph.node[3].attribute[0]``); UsageError naming the step that fails."""
    value: Any = model
    walked = ""
    for step in filter(None, path.split(".")):
        match = _STEP.fullmatch(step)
        if match is None or not isinstance(value, Message):
            raise UsageError(f"{path!r}: cannot take {step!r} after {walked or 'the model'}")
        name, index = match.group(1), match.group(2)
        if name not in value.__schema__.by_name:
            raise UsageError(f"{path!r}: {type(value).__qualname__} has no field {name!r}")
        value = getattr(value, name)
        walked += f".{name}" if walked else name
        if index is not None:
            if not isinstance(value, list) or not -len(value) <= int(index) < len(value):
                size = len(value) if isinstance(value, list) else "no"
                raise UsageError(f"{path!r}: {walked} has {size} elements, no [{index}]")
            value = value[int(index)]
            walked += f"[{index}]"
    return value


def _render(value: Any, form: str) -> str:
    if form == "onnx":
        if not isinstance(value, (ModelProto, GraphProto, FunctionProto, NodeProto)):
            raise UsageError("--format onnx prints a model, graph, function or node only")
        return printer.to_text(value).rstrip("\n") + "\n"
    if isinstance(value, Message):
        return to_json(value) + "\n" if form == "json" else to_str(value)
    if isinstance(value, list):
        return "".join(_render(item, form) for item in value)
    if isinstance(value, (bytes, memoryview)):
        return repr(bytes(value)) + "\n"
    return f"{value}\n"


def run(args: argparse.Namespace) -> int:
    opened = open_model(args.model, load_external_data=False)
    print(_render(field_at(opened.model, args.field), args.format), end="")
    return 0
