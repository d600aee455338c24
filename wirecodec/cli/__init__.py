"""``python -m wirecodec`` / ``wirecodec``: one module per verb.

Each verb module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``. Exit codes: 0 ok, 1 a problem was found (bad model, failed
check, files differ), 2 a usage error. Errors go to standard error, one line each,
never a traceback for a bad model or a missing file.

Without a verb the first argument is a model to ``inspect`` (and without any argument,
the example model bundled with the package), so ``python -m wirecodec model.onnx``
and ``python -m wirecodec - < model.onnx`` keep working.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import Final

from wirecodec.cli.common import (
    EXAMPLE,
    CliError,
    add_remote_arguments,
    describe_error,
    print_json,
)
from wirecodec.cli.progress import add_quiet_argument
from wirecodec.errors import WireCodecError

__all__ = ["EXAMPLE", "VERBS", "main", "program"]

# verb -> module (imported when the parser is built; each is small)
VERBS: dict[str, str] = {
    "inspect": "wirecodec.cli.inspect",
    "check": "wirecodec.cli.check",
    "dump": "wirecodec.cli.dump",
    "tensors": "wirecodec.cli.tensors",
    "diff": "wirecodec.cli.diff",
    "edit": "wirecodec.cli.edit",
    "convert": "wirecodec.cli.convert",
    "attach-weights": "wirecodec.cli.attach_weights",
    "extract": "wirecodec.cli.extract",
    "merge": "wirecodec.cli.merge",
    "run": "wirecodec.cli.run",
    "draw": "wirecodec.cli.draw",
    "infer-shapes": "wirecodec.cli.infer_shapes",
    "convert-opset": "wirecodec.cli.convert_opset",
    "fuzz": "wirecodec.cli.fuzz",
}

# Options of the program itself; any other first argument starting with "-" belongs to inspect.
_OWN_OPTIONS = ("-h", "--help", "--version")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("wirecodec")
    except metadata.PackageNotFoundError:
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``, reading the installed version only when asked (importlib.metadata is slow
    to import: every other run would pay for it)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(f"wirecodec {_version()}")  # on standard output, as argparse's own version action
        parser.exit()


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with ``only``, the parser of that verb alone (only its module imported)."""
    parser = argparse.ArgumentParser(
        prog="wirecodec",
        description="Read, check and convert ONNX models (.onnx, external data, .onnxz).",
        epilog="Every MODEL may be a file (its external data beside it), an .onnxz container, "
        "an https:// URL (read by range requests) or - (standard input). "
        "wirecodec VERB --help explains a verb.",
    )
    parser.add_argument("--version", action=_VersionAction)
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb, module_name in VERBS.items():
        if only is not None and verb != only:
            continue
        module = importlib.import_module(module_name)
        sub = verbs.add_parser(
            verb,
            help=module.HELP,
            description=help_text(module.__doc__ or ""),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub)
        add_quiet_argument(sub)
        add_remote_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


_ROLE: Final = re.compile(r":[a-z]+:`~?([^`]+)`")
_WIDTH: Final = 79


def help_text(doc: str) -> str:
    """A module docstring as ``--help`` shows it: reST markup gone, prose folded to 79 columns,
    indented example lines kept as they are."""
    plain = _ROLE.sub(r"\1", doc).replace("``", "")
    paragraphs = []
    for paragraph in plain.strip().split("\n\n"):
        lines = paragraph.splitlines()
        if all(line.startswith("  ") for line in lines):
            paragraphs.append("\n".join(lines))
        else:
            paragraphs.append(textwrap.fill(" ".join(line.strip() for line in lines), _WIDTH))
    return "\n\n".join(paragraphs)


def _with_verb(args: list[str]) -> list[str]:
    """The arguments with ``inspect`` put in front when no verb is named."""
    if not args:
        return ["inspect"]
    first = args[0]
    if first in VERBS or first in _OWN_OPTIONS:
        return args
    return ["inspect", *args]


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 problem found, 2 usage error)."""
    args_list = _with_verb(list(sys.argv[1:] if argv is None else argv))
    try:
        only = args_list[0] if args_list and args_list[0] in VERBS else None
        args = _parser(only).parse_args(args_list)
    except SystemExit as exc:  # argparse: usage errors (2), --help and --version (0)
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "run", None) is None:
        _parser().print_usage(sys.stderr)
        return 2
    try:
        # Every verb decodes as the library does (docs/performance.md, *Records and views*).
        code: int = args.run(args)
        return code
    except KeyboardInterrupt:
        # Ctrl-C: one line, the shell's code for SIGINT (128 + 2), no traceback. Temporary
        # files are gone already: every writer removes its own on the way out.
        _quiet_stdout_flush()
        print(f"wirecodec {args.verb}: interrupted", file=sys.stderr)
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly, like other CLI tools. The
        # program's own entry (program()) also quiets the exit flush; a caller's streams,
        # when main() runs in their process, are theirs.
        return 0
    except CliError as exc:
        if _stdout_gone(exc.__context__):
            return 0
        return _failed(args, exc.message, exc.code)
    except (WireCodecError, OSError) as exc:
        if _stdout_gone(exc):
            return 0
        label = getattr(args, "model", None)
        message = describe_error(str(label), exc) if label is not None else describe_error("", exc)[2:]
        return _failed(args, message, 1)


def program() -> None:
    """The ``wirecodec`` program (``python -m wirecodec``, the console script): :func:`main`,
    then exit with its code. When standard output's reader has gone away, the flush at exit
    would fail again: the program's standard output is pointed at the null device first (the
    process is ending; main() called in someone else's process never does this)."""
    try:
        code = main()
    except KeyboardInterrupt:  # before a verb runs (its modules being imported, say)
        print("wirecodec: interrupted", file=sys.stderr)
        code = INTERRUPTED
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(code)


INTERRUPTED: Final = 130
"""The exit code after Ctrl-C (128 + SIGINT, as shells report it)."""


def _stdout_gone(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what a verb's error was raised from) is a write to a pipe whose
    reader has gone away."""
    return isinstance(exc, OSError) and (isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE)


def _quiet_stdout_flush() -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()


def _failed(args: argparse.Namespace, message: str, code: int) -> int:
    """Report a failure: one line on standard error, and with ``--json`` a JSON object on
    standard output too, so a script reading the JSON always gets JSON."""
    print(f"wirecodec {args.verb}: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        print_json({"error": message, "exit_code": code})
    return code
