"""``python -m wirecodec`` / ``wirecodec``: one module per verb.

Each verb module defines ``HELP`` (one line), ``add_arguments(parser)`` and
``run(args) -> int``. Exit codes: 0 ok, 1 a problem was found (bad model, failed
check, files differ), 2 a usage error. Errors go to standard error.

Without a verb the first argument is a model to ``inspect`` (and without any argument,
the example model bundled with the package), so ``python -m wirecodec model.onnx``
keeps working.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from importlib import metadata

from wirecodec.cli.common import EXAMPLE
from wirecodec.errors import WireCodecError

__all__ = ["EXAMPLE", "VERBS", "main"]

# verb -> module (imported when the parser is built; each is small)
VERBS: dict[str, str] = {
    "inspect": "wirecodec.cli.inspect",
    "convert": "wirecodec.cli.convert",
}


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
        sub = verbs.add_parser(verb, help=module.HELP, description=module.__doc__)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0] not in VERBS and not args_list[0].startswith("-")):
        args_list.insert(0, "inspect")
    args = _parser().parse_args(args_list)
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
    except WireCodecError as exc:
        print(f"{getattr(args, 'model', '')}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"{getattr(args, 'model', '')}: {exc.strerror or exc}", file=sys.stderr)
        return 1
