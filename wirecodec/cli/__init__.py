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
import importlib
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from wirecodec.cli.common import EXAMPLE, CliError, describe_error
from wirecodec.errors import WireCodecError

__all__ = ["EXAMPLE", "VERBS", "main"]

# verb -> module (imported when the parser is built; each is small)
VERBS: dict[str, str] = {
    "inspect": "wirecodec.cli.inspect",
    "check": "wirecodec.cli.check",
    "dump": "wirecodec.cli.dump",
    "tensors": "wirecodec.cli.tensors",
    "diff": "wirecodec.cli.diff",
    "edit": "wirecodec.cli.edit",
    "convert": "wirecodec.cli.convert",
    "extract": "wirecodec.cli.extract",
    "merge": "wirecodec.cli.merge",
    "run": "wirecodec.cli.run",
    "draw": "wirecodec.cli.draw",
}

# Options of the program itself; any other first argument starting with "-" belongs to inspect.
_OWN_OPTIONS = ("-h", "--help", "--version")


def _version() -> str:
    try:
        return metadata.version("wirecodec")
    except metadata.PackageNotFoundError:
        return "unknown"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="wirecodec", description="Read, check and convert ONNX models.")
    parser.add_argument("--version", action="version", version=f"wirecodec {_version()}")
    verbs = parser.add_subparsers(dest="verb", metavar="VERB")
    for verb, module_name in VERBS.items():
        module = importlib.import_module(module_name)
        sub = verbs.add_parser(
            verb,
            help=module.HELP,
            description=module.__doc__,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


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
        args = _parser().parse_args(args_list)
    except SystemExit as exc:  # argparse: usage errors (2), --help and --version (0)
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "run", None) is None:
        _parser().print_usage(sys.stderr)
        return 2
    try:
        code: int = args.run(args)
        return code
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); stop quietly, like other CLI tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except CliError as exc:
        print(f"wirecodec {args.verb}: {exc.message}", file=sys.stderr)
        return exc.code
    except (WireCodecError, OSError) as exc:
        label = getattr(args, "model", None)
        message = describe_error(str(label), exc) if label is not None else describe_error("", exc)[2:]
        print(f"wirecodec {args.verb}: {message}", file=sys.stderr)
        return 1
