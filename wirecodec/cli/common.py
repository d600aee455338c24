"""What several verbs share: the bundled example, opening a model, JSON output, errors.

Exit codes for every verb: 0 ok, 1 a problem was found (a bad model, a missing file,
models that differ), 2 a usage error (arguments that do not make sense, or that ask
for something the model does not have). Verbs raise :class:`CliError` (or
:class:`UsageError`) and :func:`wirecodec.cli.main` prints it on standard error.
"""

from __future__ import annotations

import json
import mmap
import pathlib
import sys
from dataclasses import dataclass
from typing import IO, Any, Final

from schema_dsl.onnx import ModelProto
from wirecodec.errors import WireCodecError
from wirecodec.files.load import load

__all__ = [
    "EXAMPLE",
    "STDIN",
    "CliError",
    "Opened",
    "UsageError",
    "describe_error",
    "open_model",
    "print_json",
    "read_stdin",
]

EXAMPLE: Final = pathlib.Path(__file__).parent.parent / "examples" / "mlp.onnx"
STDIN: Final = "-"
"""The model argument that means "read the model from standard input"."""


class CliError(Exception):
    """A failure to report on standard error (no traceback); ``code`` is the exit code."""

    code = 1

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class UsageError(CliError):
    """The command line asks for something that cannot be done (exit code 2)."""

    code = 2


@dataclass
class Opened:
    """A model as a verb opened it: ``label`` names it in messages, ``size`` counts its bytes."""

    model: ModelProto
    label: str
    path: pathlib.Path | None  # None when read from standard input
    size: int
    data: Any = None  # what standard input held, or the file's map (``keep_bytes``)


def describe_error(label: str, exc: BaseException) -> str:
    """One line naming what failed and why: ``model.onnx: DecodeError: ...``."""
    if isinstance(exc, WireCodecError):
        return f"{label}: {type(exc).__name__}: {exc}"
    if isinstance(exc, OSError):
        return f"{label}: {exc.strerror or exc}"
    return f"{label}: {exc}"


def read_stdin(stream: IO[bytes] | None = None) -> bytes:
    """Every byte of standard input (binary)."""
    return (stream or sys.stdin.buffer).read()


def open_model(
    source: str | pathlib.Path, *, load_external_data: bool = True, keep_bytes: bool = False
) -> Opened:
    """Load the model at ``source`` (a path, or ``-`` for standard input) as any user would.

    Files are mapped and decoded in place (``wirecodec.load``); external data is
    resolved next to the file unless ``load_external_data`` is false. With
    ``keep_bytes`` the model is decoded from a map of the file that ``Opened.data``
    then holds, so its payloads are views of that very buffer. Any failure is a
    :class:`CliError` naming the model, never a traceback.
    """
    label = str(source)
    try:
        if label == STDIN:
            data = read_stdin()
            if not data:
                raise CliError(f"{label}: DecodeError: empty input: not an ONNX model")
            model = load(data, load_external_data=load_external_data)
            return Opened(model, "<stdin>", None, len(data), data)
        path = pathlib.Path(source)
        size = path.stat().st_size
        if size == 0:
            # Zero bytes decode as an empty ModelProto; nobody means that by a model file.
            raise CliError(f"{label}: DecodeError: empty file: not an ONNX model")
        if not keep_bytes:
            return Opened(load(path, load_external_data=load_external_data), label, path, size)
        with path.open("rb") as file:
            mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        model = load(mapped, load_external_data=load_external_data, base_dir=path.parent)
        return Opened(model, label, path, size, mapped)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(label, exc)) from None


def print_json(value: Any, stream: IO[str] | None = None) -> None:
    """``value`` as indented JSON on standard output (non-ASCII kept readable)."""
    out = stream or sys.stdout
    json.dump(value, out, indent=2, ensure_ascii=False)
    out.write("\n")
