"""What several verbs share: the bundled example, opening a model, JSON output, errors.

Exit codes for every verb: 0 ok, 1 a problem was found (a bad model, a missing file,
models that differ), 2 a usage error (arguments that do not make sense, or that ask
for something the model does not have). Verbs raise :class:`CliError` (or
:class:`UsageError`) and :func:`wirecodec.cli.main` prints it on standard error.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import IO, Any, Final

from wirecodec.errors import WireCodecError
from wirecodec.files.opener import STDIN, Opened
from wirecodec.files.opener import open_model as _open

__all__ = [
    "EXAMPLE",
    "JSON_VERSION",
    "STDIN",
    "CliError",
    "Opened",
    "UsageError",
    "add_model_argument",
    "add_output_layout_arguments",
    "describe_error",
    "open_model",
    "print_json",
    "read_stdin",
]

EXAMPLE: Final = pathlib.Path(__file__).parent.parent / "examples" / "mlp.onnx"
JSON_VERSION: Final = 1
"""The ``version`` of every verb's ``--json`` output; raised when a key changes meaning or goes."""

MODEL_HELP: Final = "an .onnx file, an .onnxz container, or - for standard input"


class CliError(Exception):
    """A failure to report on standard error (no traceback); ``code`` is the exit code."""

    code = 1

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class UsageError(CliError):
    """The command line asks for something that cannot be done (exit code 2)."""

    code = 2


def add_model_argument(
    parser: argparse.ArgumentParser, *, name: str = "model", default: str | None = None
) -> None:
    """The MODEL argument, declared alike by every verb (``default``: optional, with that value)."""
    if default is None:
        parser.add_argument(name, metavar=name.upper(), help=MODEL_HELP)
    else:
        parser.add_argument(
            name,
            metavar=name.upper(),
            nargs="?",
            default=default,
            help=MODEL_HELP + " (default: the example)",
        )


def add_output_layout_arguments(parser: argparse.ArgumentParser) -> None:
    """``--external-data`` / ``--single-file`` for verbs that write a new model as onnx writes
    it (``args.external_data``: True, False, or None for onnx's rule, external only past 2 GiB)."""
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument(
        "--external-data",
        dest="external_data",
        action="store_const",
        const=True,
        help="tensors of 1 KiB or more to OUT.data (default: only past 2 GiB, as onnx)",
    )
    layout.add_argument(
        "--single-file", dest="external_data", action="store_const", const=False, help="one file of any size"
    )


def describe_error(label: str, exc: BaseException) -> str:
    """One line naming what failed and why: ``model.onnx: DecodeError: ...``.

    An ``OSError`` names the file it is about (``filename``) when it knows it: a verb
    writing ``out.onnx`` must not blame the model it read.
    """
    if isinstance(exc, WireCodecError):
        return f"{label}: {type(exc).__name__}: {exc}"
    if isinstance(exc, OSError):
        name = exc.filename if exc.filename is not None else label
        if isinstance(exc, IsADirectoryError):
            return f"{name}: is a directory, not a model file"
        return f"{name}: {exc.strerror or exc}"
    return f"{label}: {exc}"


def read_stdin(stream: IO[bytes] | None = None) -> bytes:
    """Every byte of standard input (binary)."""
    return (stream or sys.stdin.buffer).read()


def open_model(
    source: str | pathlib.Path, *, load_external_data: bool = True, streamed: bool = False
) -> Opened:
    """Open the model at ``source`` (a path, a container, or ``-``) through the one opener.

    With ``load_external_data`` every reference (data files, container entries) is
    resolved into ``raw_data`` views; without, the references stay and ``Opened.data``
    answers for them. ``streamed`` as for :func:`wirecodec.files.opener.open_model`.
    Any failure is a :class:`CliError` naming the right file, never a traceback.
    """
    label = "<stdin>" if str(source) == STDIN else str(source)
    try:
        opened = _open(str(source) if str(source) == STDIN else pathlib.Path(source), streamed=streamed)
        if load_external_data:
            opened.resolve_external()
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(label, exc)) from None
    return opened


def print_json(value: dict[str, Any], stream: IO[str] | None = None) -> None:
    """``value`` with the output ``version`` first, as indented JSON on standard output."""
    out = stream or sys.stdout
    json.dump({"version": JSON_VERSION, **value}, out, indent=2, ensure_ascii=False)
    out.write("\n")
