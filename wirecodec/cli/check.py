"""Check a model against the ONNX IR specification and list every violation.

Each violation is printed as ``path: message [rule]``; ``--json`` prints a JSON list of
``{"path", "rule", "message"}`` objects instead (``[]`` for a valid model). External
data is looked for next to the model; ``--full`` also verifies checksums. Exit code 0
when the model is valid, 1 when it is not (or cannot be read), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import pathlib

from wirecodec.checker import violations

HELP = "check a model against the ONNX IR specification"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("model", type=pathlib.Path, help="an .onnx file")
    parser.add_argument("--full", action="store_true", help="also read external data files (checksums)")
    parser.add_argument("--json", action="store_true", help="print the violations as a JSON list")


def run(args: argparse.Namespace) -> int:
    found = violations(args.model, full=args.full)
    if args.json:
        print(json.dumps([v.to_dict() for v in found], indent=2))
    elif found:
        for violation in found:
            print(violation)
        print(f"{args.model}: {len(found)} violation{'s' if len(found) != 1 else ''}")
    else:
        print(f"{args.model}: valid")
    return 1 if found else 0
