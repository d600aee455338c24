"""Check a model against the ONNX IR specification and its operator schemas; list every violation.

Each violation is printed as ``path: message [rule]``; ``--json`` prints an object
with the list of ``{"path", "rule", "message"}`` violations. External data is looked
for where the model's references point (files beside it, or a .onnxz container's
entries). A safetensors data file's header is checked (it must parse, cover its file,
and agree with the tensors that point into it: dtype, shape, offsets); that reads only
headers. ``--full`` also reads every data file and container entry whole to verify
checksums: the SHA1 a reference may give, and each .onnxz entry's CRC-32. That costs a
read of all the weights. Every node is checked against its operator's schema at the
imported opset, as onnx's ``check_model`` does; nodes of domains onnx has no schemas for
are skipped, and the output says which. ``--ir-only`` leaves the schema rules out. Exit
code 0 when the model is valid, 1 when it is not (or cannot be read), 2 for a usage error.

Several models, or a directory (its ``.onnx`` and ``.onnxz`` files, in subdirectories
too), are checked one by one, each reported as alone (a model that cannot be read is
one line on standard error), and one summary line ends the run; exit code 1 if any
fails. With ``--json`` that is one object: ``{"models": [...], "checked", "valid",
"invalid", "unreadable"}``, each element as for one model (or ``{"model", "error"}``).

  wirecodec check model.onnx
  wirecodec check a.onnx b.onnx --json
  wirecodec check models/
"""

from __future__ import annotations

import argparse
import pathlib
import sys
from typing import Any

from wirecodec.checker import examine
from wirecodec.cli.common import MODEL_HELP, CliError, UsageError, describe_error, open_model, print_json
from wirecodec.cli.progress import Status, status
from wirecodec.errors import WireCodecError
from wirecodec.files.base.source import classify

HELP = "check a model against the ONNX IR rules and operator schemas"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model", metavar="MODEL", nargs="+", help=f"{MODEL_HELP}, or a directory of them (several allowed)"
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="also verify checksums (SHA1 of data files, CRC-32 of .onnxz entries): reads every "
        "weight byte, as long as reading the whole model; without it only headers are read. "
        "Then strict shape inference with type checks, as onnx's full_check (reads no weight)",
    )
    parser.add_argument("--json", action="store_true", help="print the violations as JSON")
    parser.add_argument(
        "--ir-only", action="store_true", help="check the IR rules only, not nodes against operator schemas"
    )


def _note(operators: dict[str, int], ir_only: bool, skipped: dict[str, int]) -> str:
    if ir_only:
        kinds = len(operators)
        return f"--ir-only: {kinds} operator type{'s' if kinds != 1 else ''} not checked against schemas"
    if not skipped:
        return "every node checked against its operator schema"
    shown = ", ".join(
        f"{domain} ({count} node{'s' if count != 1 else ''})" for domain, count in skipped.items()
    )
    return f"no schemas for domains {shown}: skipped as onnx skips them"


def _models(given: list[str]) -> list[str]:
    """The models to check: each argument, a directory standing for its model files."""
    found: list[str] = []
    for name in given:
        path = pathlib.Path(name)
        if classify(name) == "path" and path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
            if not inside:
                raise UsageError(f"{name}: a directory without .onnx or .onnxz files")
            found += [str(p) for p in inside]
        else:
            found.append(name)
    if found.count("-") > 1:
        raise UsageError("- (standard input) can be given once")
    return found


_SUFFIXES = (".onnx", ".onnxz")


def run(args: argparse.Namespace) -> int:
    given: list[str] = args.model  # one or more: main() names args.model in an error, so one is set below
    models = _models(given)
    with status(args) as shown:
        if len(models) == 1 and not pathlib.Path(given[0]).is_dir():
            args.model = models[0]  # main() names it in an error
            return _check_one(args, models[0], shown)[0]
        return _check_all(args, models, shown)


def _check_all(args: argparse.Namespace, models: list[str], shown: Status) -> int:
    results: list[dict[str, Any]] = []
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    for done, model in enumerate(models, 1):
        shown.count(done, len(models), model)
        try:
            code, result = _check_one(args, model, shown, quiet=args.json)
        except (CliError, WireCodecError, OSError) as exc:
            message = exc.message if isinstance(exc, CliError) else describe_error(model, exc)
            shown.clear()
            print(f"wirecodec check: {message}", file=sys.stderr)
            code, result = 2, {"model": model, "error": message}
        counts[("valid", "invalid", "unreadable")[code]] += 1
        results.append(result)
    failed = counts["invalid"] + counts["unreadable"]
    if args.json:
        print_json({"models": results, "checked": len(models), **counts})
    else:
        unread = f", {counts['unreadable']} unreadable" if counts["unreadable"] else ""
        checked = f"{len(models)} model{'s' if len(models) != 1 else ''} checked"
        print(f"{checked}: {counts['valid']} valid, {counts['invalid']} invalid{unread}")
    return 1 if failed else 0


def _check_one(
    args: argparse.Namespace, model: str, shown: Status, *, quiet: bool = False
) -> tuple[int, dict[str, Any]]:
    """Check ``model`` and print its report (but for ``quiet``: JSON of several, printed
    whole at the end); returns 0 or 1 and the model's JSON."""
    opened = open_model(
        model, options=args, load_external_data=False, check_safetensors=False, payloads=False
    )
    if args.full:
        shown(f"{opened.label}: checking, every weight read for its checksum")
        shown(f"{opened.label}: strict shape inference")  # after the rules, in examine
    examined = examine(opened, full=args.full, ir_only=args.ir_only)  # one walk of the model
    found = list(examined.violations)  # the files layer's integrity problems among them
    skipped = examined.skipped_domains
    rules = "the IR rules" if args.ir_only else "the IR rules and operator schemas"
    note = _note(examined.operators, args.ir_only, skipped)
    result = {
        "model": opened.label,
        "valid": not found,
        "schemas_checked": not args.ir_only,
        "skipped_domains": skipped,
        "violations": [v.to_dict() for v in found],
    }
    shown.clear()
    if quiet:
        pass
    elif args.json:
        print_json(result)
    elif found:
        for violation in found:
            print(violation)
        print(f"{opened.label}: {len(found)} violation{'s' if len(found) != 1 else ''} of {rules} ({note})")
    else:
        print(f"{opened.label}: valid under {rules} ({note})")
    return (1 if found else 0), result
